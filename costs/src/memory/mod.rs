//! The memory scenario: how much a waiting unit of each style costs, holding a payload, at 1,000 to 100,000
//! units (each count and payload size a phase).
//!
//! Times (`create_ms`, `release_ms` and per unit) come from timed iterations; memory (`live_heap_bytes_per_unit`,
//! `rss_bytes_per_unit`) from the accounting iteration of each process, read once every unit waits
//! ([`trial`]).

pub mod conformance;
pub mod contestants;
mod trial;

use std::fmt::Write as _;

use measure::compare::verdict_range_at_least;
use measure::record::TrialRequest;
use measure::scenario::{ChartKind, ChartSpec, ParamSpec, Repetitions, Scenario, TrialError, TrialSink};
use measure::summary::{ClaimResult, ContestantInfo, MetricStats, Summary, Verdict};

use contestants::Contestant;

/// The memory scenario, as the lab's registry lists it.
#[derive(Debug, Clone, Copy, Default)]
pub struct MemoryScenario;

/// The headline metric: resident bytes per waiting unit.
pub const HEADLINE: &str = "rss_bytes_per_unit";

/// Processes a claim needs before it can hold or fail.
const MIN_PROCESSES: usize = 3;

impl Scenario for MemoryScenario {
    fn name(&self) -> &'static str {
        "memory"
    }

    fn title(&self) -> &'static str {
        "Memory: what a waiting task, future, generator or thread costs"
    }

    fn question(&self) -> &'static str {
        "How much memory does one waiting unit of each style hold, beyond what it carries? 1,000, 10,000 and \
         100,000 units each own a payload (none, or 1 KiB) and wait: tokio tasks on a multi-thread and on a \
         current-thread runtime awaiting a oneshot, futures in one `FuturesUnordered`, `async-stream` generators \
         suspended mid-stream, and OS threads blocked on a channel, with 64 KiB and with default stacks. Then \
         every unit is released and hands back its payload's checksum. Live heap per unit comes from a counting \
         allocator, resident memory per unit from `VmRSS`; a regression over the counts cancels fixed costs."
    }

    fn params(&self) -> Vec<ParamSpec> {
        vec![
            ParamSpec::sweep(
                "count",
                "Units waiting at once; each value is a phase.",
                &[1_000, 10_000, 100_000],
                &[1_000, 10_000],
                1,
                10_000_000,
            ),
            ParamSpec::sweep(
                "payload",
                "Bytes each unit owns while it waits; each value is a phase.",
                &[0, 1024],
                &[0, 1024],
                0,
                1 << 20,
            ),
        ]
    }

    fn contestants(&self) -> Vec<ContestantInfo> {
        Contestant::ALL.iter().map(Contestant::info).collect()
    }

    fn headline_metric(&self) -> &'static str {
        HEADLINE
    }

    /// Three processes of one warm-up, two timed iterations and the accounting one: memory is read once per
    /// process, and creating 100,000 units takes a fraction of a second.
    fn repetitions(&self, quick: bool) -> Repetitions {
        if quick {
            Repetitions { forks: 1, warmup: 0, iterations: 1, accounting: 1 }
        } else {
            Repetitions { forks: 3, warmup: 1, iterations: 2, accounting: 1 }
        }
    }

    fn table_metrics(&self) -> Vec<&'static str> {
        vec![
            "rss_bytes_per_unit",
            "live_heap_bytes_per_unit",
            "create_ns_per_unit",
            "release_ns_per_unit",
            "cpu_ns_per_item",
            "create_ms",
            "release_ms",
            "threads",
            "peak_rss_mib",
        ]
    }

    fn charts(&self) -> Vec<ChartSpec> {
        vec![
            ChartSpec {
                id: "resident",
                title: "Resident memory per waiting unit (log scale)",
                metric: "rss_bytes_per_unit",
                unit: "bytes per unit (VmRSS)",
                kind: ChartKind::Bars,
                log_scale: true,
            },
            ChartSpec {
                id: "heap",
                title: "Live heap per waiting unit (log scale)",
                metric: "live_heap_bytes_per_unit",
                unit: "bytes per unit (counting allocator)",
                kind: ChartKind::Bars,
                log_scale: true,
            },
            ChartSpec {
                id: "create",
                title: "Time to create one unit and have it waiting (log scale)",
                metric: "create_ns_per_unit",
                unit: "ns per unit",
                kind: ChartKind::Bars,
                log_scale: true,
            },
        ]
    }

    fn run_trial(&self, request: &TrialRequest, sink: &mut dyn TrialSink) -> Result<(), TrialError> {
        trial::run_trial(request, sink)
    }

    fn claims(&self, summary: &Summary) -> Vec<ClaimResult> {
        vec![task_against_thread(summary), payload_dominates(summary)]
    }

    fn discussion(&self, summary: &Summary) -> String {
        discussion(summary)
    }
}

/// The phase of `count` units with `payload` bytes each.
fn phase(count: u64, payload: u64) -> String {
    format!("count_{count}-payload_{payload}")
}

/// `metric` of `contestant` at `phase`, when it ran in enough processes to judge.
fn judged<'a>(summary: &'a Summary, contestant: &str, phase: &str, metric: &str) -> Result<&'a MetricStats, String> {
    let stats = summary.stats(contestant, &format!("{phase}.{metric}"))?;
    if stats.fork_medians.len() < MIN_PROCESSES {
        return Err(format!(
            "`{contestant}` at `{phase}` ran in {} process(es); a claim needs {MIN_PROCESSES}",
            stats.fork_medians.len()
        ));
    }
    Ok(stats)
}

/// A waiting task costs at least 10× less resident memory than a waiting thread (either stack), at 10,000 units
/// without payload.
fn task_against_thread(summary: &Summary) -> ClaimResult {
    let text = "At 10,000 units without payload, a waiting thread (64 KiB or default stack) holds at least 10× the \
                resident memory of a waiting tokio task (judged over every pairing of processes' samples).";
    let at = phase(10_000, 0);
    let parts = ["blocking-thread-64k", "blocking-thread"].map(|thread| {
        match (judged(summary, thread, &at, HEADLINE), judged(summary, "stream-tokio-task", &at, HEADLINE)) {
            (Ok(t), Ok(task)) => {
                let (verdict, detail) = verdict_range_at_least(t, task, 10.0);
                (verdict, format!("`{thread}` ÷ `stream-tokio-task`: {detail}"))
            }
            (Err(e), _) | (_, Err(e)) => (Verdict::Inconclusive, e),
        }
    });
    ClaimResult::all_of(text, parts)
}

/// At 1 KiB the payload is more than half of a task's resident memory per unit, and less than half of a
/// thread's.
fn payload_dominates(summary: &Summary) -> ClaimResult {
    let text = "At 10,000 units of 1 KiB, the payload is more than half of a waiting tokio task's resident memory \
                per unit, and less than half of a waiting thread's (64 KiB stack).";
    let at = phase(10_000, 1024);
    let payload = 1024.0;
    let task = match judged(summary, "stream-tokio-task", &at, HEADLINE) {
        Ok(s) if s.max < 2.0 * payload => {
            (Verdict::Holds, format!("task: {} to {} B per unit, all under 2 × 1,024", s.min.round(), s.max.round()))
        }
        Ok(s) if s.min >= 2.0 * payload => {
            (Verdict::Fails, format!("task: {} to {} B per unit, none under 2 × 1,024", s.min.round(), s.max.round()))
        }
        Ok(s) => (Verdict::Inconclusive, format!("task: {} to {} B per unit, straddling 2,048", s.min, s.max)),
        Err(e) => (Verdict::Inconclusive, e),
    };
    let thread = match judged(summary, "blocking-thread-64k", &at, HEADLINE) {
        Ok(s) if s.min > 2.0 * payload => {
            (Verdict::Holds, format!("thread: {} to {} B per unit, all over 2 × 1,024", s.min.round(), s.max.round()))
        }
        Ok(s) if s.max <= 2.0 * payload => {
            (Verdict::Fails, format!("thread: {} to {} B per unit, none over 2 × 1,024", s.min.round(), s.max.round()))
        }
        Ok(s) => (Verdict::Inconclusive, format!("thread: {} to {} B per unit, straddling 2,048", s.min, s.max)),
        Err(e) => (Verdict::Inconclusive, e),
    };
    ClaimResult::all_of(text, [task, thread])
}

/// Least-squares slope of `y` over `x`: the per-unit cost with fixed costs cancelled. `None` with fewer than two
/// distinct `x`.
pub fn slope(points: &[(f64, f64)]) -> Option<f64> {
    let n = points.len() as f64;
    if points.len() < 2 {
        return None;
    }
    let (sx, sy) = points.iter().fold((0.0, 0.0), |(sx, sy), (x, y)| (sx + x, sy + y));
    let (mx, my) = (sx / n, sy / n);
    let (num, den) =
        points.iter().fold((0.0, 0.0), |(num, den), (x, y)| (num + (x - mx) * (y - my), den + (x - mx) * (x - mx)));
    (den > 0.0).then(|| num / den)
}

/// The regression table: per contestant and payload, resident and heap bytes per unit from the slope of the total
/// over the counts that ran.
fn discussion(summary: &Summary) -> String {
    let counts: Vec<u64> = summary
        .phases
        .iter()
        .filter_map(|p| p.strip_prefix("count_")?.split('-').next()?.parse().ok())
        .collect::<std::collections::BTreeSet<u64>>()
        .into_iter()
        .collect();
    let payloads: Vec<u64> = summary
        .phases
        .iter()
        .filter_map(|p| p.split("payload_").nth(1)?.parse().ok())
        .collect::<std::collections::BTreeSet<u64>>()
        .into_iter()
        .collect();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "**Per unit with fixed costs cancelled.** For each payload, the total memory the units added (per-unit \
         median × count) regressed over the counts that ran; the slope is the cost of one more unit, whatever the \
         runtime, the sampler or the allocator's arenas cost once. A count whose units could not be held is left \
         out.\n"
    );
    let _ =
        writeln!(out, "| contestant | payload (B) | resident B per unit (slope) | heap B per unit (slope) | counts |");
    let _ = writeln!(out, "|---|---:|---:|---:|---|");
    let mut rows = 0;
    for c in &summary.contestants {
        for &payload in &payloads {
            let points = |metric: &str| -> Vec<(f64, f64)> {
                counts
                    .iter()
                    .filter_map(|&count| {
                        let s = summary.metric(&c.name, &format!("{}.{metric}", phase(count, payload)))?;
                        Some((count as f64, s.median * count as f64))
                    })
                    .collect()
            };
            let (rss, heap) = (points(HEADLINE), points("live_heap_bytes_per_unit"));
            let fmt = |v: Option<f64>| v.map_or_else(|| "—".to_string(), |v| format!("{v:.0}"));
            if rss.len() < 2 && heap.len() < 2 {
                continue;
            }
            let used: Vec<String> = rss.iter().map(|(x, _)| format!("{x:.0}")).collect();
            let _ = writeln!(
                out,
                "| `{}` | {payload} | {} | {} | {} |",
                c.name,
                fmt(slope(&rss)),
                fmt(slope(&heap)),
                used.join(", ")
            );
            rows += 1;
        }
    }
    if rows == 0 {
        return "_Fewer than two counts ran: no regression over the counts._".to_string();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slope_cancels_a_fixed_cost() {
        let points = [(1_000.0, 5_000_000.0 + 1_000.0 * 300.0), (10_000.0, 5_000_000.0 + 10_000.0 * 300.0)];
        assert!((slope(&points).unwrap_or(0.0) - 300.0).abs() < 1e-9);
        assert_eq!(slope(&points[..1]), None);
        assert_eq!(slope(&[(5.0, 1.0), (5.0, 2.0)]), None, "one distinct count has no slope");
    }
}
