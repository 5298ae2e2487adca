//! Both network reports render whole from their templates: the ratio table, the wake-up table only when a
//! contestant has its figures, the smoke-run sentence only below 3 processes, and no placeholder left empty.

use std::collections::BTreeMap;

use measure::summary::{Family, Method, MetricStats, Summary};
use testkit::fixture::{self, contestant, method, stats};

/// A summary of `names`, each with every metric at `1.0` (the first at `2.0`), `forks` processes, and context
/// switches only when `switches`.
fn summary(names: &[&str], metrics: &[&str], forks: u32, switches: bool) -> Summary {
    let contestants = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let value = if i == 0 { 2.0 } else { 1.0 };
            let mut figures: BTreeMap<String, MetricStats> =
                metrics.iter().map(|m| (m.to_string(), stats(value))).collect();
            if switches {
                figures.insert("ctx_switches_per_item".into(), stats(0.5));
                figures.insert("wakeup_p50_us".into(), stats(4.0));
            }
            contestant(name, Family::Blocking, figures)
        })
        .collect();
    Summary {
        method: Method { quick: forks < 3, forks, warmup: 1, iterations: 3, ..method() },
        ..fixture::summary("network", contestants)
    }
}

/// A scenario's report function, its baseline and its metrics.
type Report = (fn(&Summary) -> String, &'static str, [&'static str; 3]);

/// Both scenarios' reports.
fn reports() -> [Report; 2] {
    [
        (network::http::report::discussion, network::http::report::BASELINE, network::http::report::METRICS),
        (network::tcp::report::discussion, network::tcp::report::BASELINE, network::tcp::report::METRICS),
    ]
}

#[test]
fn a_smoke_run_says_so_and_the_wake_up_table_needs_its_figures() {
    for (discussion, baseline, metrics) in reports() {
        let text = discussion(&summary(&["other", baseline], &metrics, 1, false));
        assert!(text.starts_with(&format!("Ratios to `{baseline}` in this run")), "{text}");
        assert!(text.contains(&format!("| contestant | {} |\n|---|---|---|---|\n", metrics.join(" | "))), "{text}");
        assert!(text.contains("| `other` | 2.00× | 2.00× | 2.00× |\n"), "{text}");
        assert!(text.contains("This run had 1 process(es) per contestant"), "{text}");
        assert!(!text.contains("Where the blocking time goes"), "{text}");
        assert!(!text.contains("  ") && !text.contains("could not be rendered"), "{text}");
    }
}

#[test]
fn a_full_run_shows_the_wake_up_table_and_no_smoke_sentence() {
    for (discussion, baseline, metrics) in reports() {
        let text = discussion(&summary(&[baseline], &metrics, 5, true));
        assert!(text.contains("Where the blocking time goes"), "{text}");
        assert!(text.contains("| 0.50 | 4.00 | n/a | 2.00 |"), "{text}");
        assert!(!text.contains("process(es) per contestant"), "{text}");
    }
}
