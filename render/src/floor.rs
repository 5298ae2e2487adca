//! `floor.md` and the terminal table of `lab floor`: the machine's own floor, for a person. Every figure is
//! measured by the floor probes of the `pipelines` crate and summarised in [`measure::floor`]; this module formats it and
//! computes the ratios a reader compares (a wake-up across CPUs against one on a CPU, a ring item against the loop);
//! `templates/floor.md` holds the words.

use measure::floor::{Floor, FloorFigure, FloorUse};
use serde_json::{json, Value};

use crate::format;

/// The ratios `floor.md` states, each as (what, numerator key, denominator key).
const RATIOS: [(&str, &str, &str); 4] = [
    ("a wake-up across CPUs against one on a CPU", "wake_across_cpus", "wake_same_cpu"),
    (
        "a tokio task woken across workers against on its own worker",
        "task_wake_across_workers",
        "task_wake_same_worker",
    ),
    ("a ring item across CPUs against a loop item", "spsc_ring_item", "loop_item"),
    ("a wake-up across CPUs against a cache line across CPUs", "wake_across_cpus", "cache_line_across_cpus"),
];

/// One figure as `floor.md`, the terminal and a report's testbed show it.
pub(crate) fn view(f: &FloorFigure) -> Value {
    json!({
        "key": f.key,
        "what": f.what,
        "ns": f.ns_per_op.map(format::number),
        "range": f.range().map(|(lo, hi)| format!("{}–{}", format::number(lo), format::number(hi))),
        "medians": f.process_medians.iter().map(|m| format::number(*m)).collect::<Vec<_>>().join(", "),
        "cpu": f.cpu_ns_per_op.map(format::number),
        "cores": f.ns_per_op.zip(f.cpu_ns_per_op).filter(|(w, _)| *w > 0.0).map(|(w, c)| format!("{:.2}", c / w)),
        "not_applicable": f.not_applicable,
    })
}

/// The floor a run cites (`method.floor`), as a report's testbed shows it: its figures, or why it cites none.
pub(crate) fn cited_view(cited: &FloorUse) -> Value {
    json!({
        "file": cited.file,
        "measured": cited.measured_utc,
        "git_rev": cited.git_rev,
        "git_dirty": cited.git_dirty,
        "quick": cited.quick,
        "processes": cited.processes,
        "figures": cited.figures.iter().map(view).collect::<Vec<_>>(),
        "not_cited": cited.not_cited,
    })
}

/// `floor.md` of `floor`.
pub fn render(floor: &Floor) -> String {
    let e = &floor.environment;
    let ratios: Vec<Value> = RATIOS
        .iter()
        .filter_map(|(what, a, b)| {
            let (a, b) = (floor.ns_per_op(a)?, floor.ns_per_op(b)?);
            (b > 0.0).then(|| json!({ "what": what, "ratio": format::ratio(a / b) }))
        })
        .collect();
    let context = json!({
        "git_rev": floor.provenance.git_rev,
        "git_dirty": floor.provenance.git_dirty,
        "started": floor.provenance.started_utc,
        "finished": floor.provenance.finished_utc,
        "quick": floor.quick,
        "processes": floor.processes,
        "samples": floor.samples,
        "cpu": e.cpu_model,
        "cores": e.cores,
        "kernel": e.kernel,
        "rustc": e.rustc,
        "build_profile": e.build_profile,
        "figures": floor.figures.iter().map(view).collect::<Vec<_>>(),
        "ratios": ratios,
    });
    let mut text = template!("floor.md", context);
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// The table `lab floor` prints at the end of its run.
pub fn terminal(floor: &Floor) -> String {
    let width = floor.figures.iter().map(|f| f.key.len()).max().unwrap_or(0);
    let mut out = String::from("\nThe floor of this machine (median of process medians; range of process medians):\n");
    for f in &floor.figures {
        let line = match (f.ns_per_op, f.range()) {
            (Some(ns), Some((lo, hi))) => format!(
                "{ns} ns  ({lo}–{hi})",
                ns = format::number(ns),
                lo = format::number(lo),
                hi = format::number(hi)
            ),
            _ => format!("not applicable: {}", f.not_applicable.as_deref().unwrap_or("no sample")),
        };
        out.push_str(&format!("  {:<width$}  {line}\n", f.key));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn floor() -> Floor {
        let figure = |key: &str, medians: &[f64]| {
            let cpu: Vec<f64> = medians.iter().map(|m| m * 2.0).collect();
            FloorFigure::of_processes(key, &format!("what {key} is"), medians.to_vec(), &cpu)
        };
        let mut across = figure("wake_across_cpus", &[]);
        across.not_applicable = Some("needs 2 CPUs; this process may use 1".to_string());
        Floor {
            schema_version: measure::floor::FLOOR_SCHEMA,
            provenance: testkit::fixture::provenance("2026-12-07T03:00:00Z", "2026-12-07T03:00:40Z"),
            quick: false,
            processes: 3,
            samples: 5,
            environment: Default::default(),
            figures: vec![
                figure("loop_item", &[0.3, 0.31, 0.32]),
                figure("wake_same_cpu", &[900.0, 1000.0, 1100.0]),
                across,
            ],
        }
    }

    #[test]
    fn the_page_gives_each_figure_with_its_process_medians_and_says_what_did_not_run() {
        let text = render(&floor());
        assert!(text.contains("| `wake_same_cpu` |"), "{text}");
        assert!(text.contains("900–1,100") || text.contains("900–1100"), "{text}");
        assert!(text.contains("needs 2 CPUs"), "{text}");
        assert!(
            !text.contains("across CPUs against one on a CPU"),
            "a ratio whose figure is missing is left out: {text}"
        );
        let table = terminal(&floor());
        assert!(table.contains("not applicable: needs 2 CPUs"), "{table}");
    }
}
