//! `lab list`: every scenario, its contestants and its parameters.

use std::fmt::Write;

use crate::registry;

/// The listing as text.
pub(crate) fn render() -> String {
    let mut out = String::new();
    for scenario in registry::scenarios() {
        let _ = writeln!(out, "{}: {}", scenario.name(), scenario.title());
        let _ = writeln!(out, "  contestants:");
        let width = scenario.contestants().iter().map(|c| c.name.len()).max().unwrap_or(0);
        for c in scenario.contestants() {
            let _ = writeln!(out, "    {:<width$}  {:<8}  {}", c.name, c.family.as_str(), c.description);
        }
        let (full, quick) = (scenario.repetitions(false), scenario.repetitions(true));
        let _ = writeln!(
            out,
            "  repetitions: {} forks x ({} warm-up + {} measured) [quick: {} x ({} + {})]",
            full.forks, full.warmup, full.iterations, quick.forks, quick.warmup, quick.iterations
        );
        let _ = writeln!(out, "  parameters:");
        for p in scenario.params() {
            let list = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
            let _ = writeln!(
                out,
                "    --{:<12} {} [default {}; quick {}]{}",
                p.name,
                p.help,
                list(&p.default),
                list(&p.quick),
                if p.sweep { " (sweep)" } else { "" }
            );
        }
        out.push('\n');
    }
    out
}
