//! The memory scenario: how much a waiting unit of each style costs, holding a payload, at 1,000 to 100,000
//! units (each count and payload size a phase).
//!
//! Times (`create_ms`, `release_ms` and per unit) come from timed iterations; memory (`live_heap_bytes_per_unit`,
//! `rss_bytes_per_unit`) from the accounting iteration of each process, read once every unit waits
//! `routine`).
//!
//! The folder has the shape every scenario shares (`docs/adding-a-scenario.md`): this file (parameters, registry,
//! metrics, charts), [`contestants`], [`conformance`] (exact payloads, all waiting, the OS's limits; faults at the
//! first, a middle and the last unit, a clean run after them, the caller's cancel), [`claims`] (the claim table, every
//! claim with an id), `routine` (one trial: conformance, then the harness's loop) and [`report`] (the per-unit
//! regression and the verdicts, rendered into `templates/report.md`).

pub mod claims;
pub mod conformance;
pub mod contestants;
pub mod report;
mod routine;

use measure::question::{Alternatives, Question};
use measure::record::{RunParams, TrialParams};
use measure::scenario::{CalibrationSpec, ChartKind, ChartSpec, ParamSpec, Repetitions, Scenario};

use contestants::Contestant;

/// The memory scenario, as the lab's registry lists it.
#[derive(Debug, Clone, Copy, Default)]
pub struct MemoryScenario;

/// The headline metric: resident bytes per waiting unit.
pub const HEADLINE: &str = "rss_bytes_per_unit";

impl Scenario for MemoryScenario {
    measure::scenario_files! {
        contestants: Contestant::ALL,
        run_trial: routine::run_trial,
        claim_table: claims::table(),
        discussion: report::discussion,
        name: "memory",
        title: "Memory: what a waiting task, future, generator or thread costs",
        question: "How much memory does one waiting unit of each style hold, beyond what it carries? 1,000, 10,000 and \
         100,000 units each own a payload (none, or 1 KiB below 100,000) and wait: tokio tasks on a multi-thread and on a \
         current-thread runtime awaiting a oneshot, futures awaiting a oneshot in one `FuturesUnordered`, \
         `async-stream` generators awaiting a oneshot in one `SelectAll`, OS threads blocked on a channel, with 64 KiB and with default stacks, and `may` \
         coroutines parked on a channel, with 32 KiB and 8 KiB stacks, each on a fresh stack. Then every unit is \
         released and hands back its payload's checksum. Live heap per unit comes from a counting allocator, \
         resident memory per unit from `VmRSS`; a regression over the counts cancels fixed costs and is the \
         headline per unit.",
        params: vec![
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
        ],
        headline_metric: HEADLINE,
        calibration: Some(CalibrationSpec {
            contestants: vec!["stream-tokio-task", "blocking-thread-64k", "coroutine-may"],
            metrics: vec!["live_heap_bytes_per_unit", "rss_bytes_per_unit"],
            params: vec![("count", 10000), ("payload", 0)],
            seconds_per_trial: 0.8,
            why: "one waiting unit per family at 10,000 units without payload, the middle of the sweep",
        }),
        table_metrics: vec![
            "rss_bytes_per_unit",
            "live_heap_bytes_per_unit",
            "create_ns_per_unit",
            "release_ns_per_unit",
            "cpu_ns_per_item",
            "create_ms",
            "release_ms",
            "threads",
            "peak_rss_mib",
        ],
        charts: {
            let bars = |(id, title, metric, unit)| ChartSpec {
                id,
                title,
                metric,
                unit,
                kind: ChartKind::Bars,
                log_scale: true,
                references: &[],
            };
            [
                (
                    "resident",
                    "Resident memory per waiting unit (log scale)",
                    "rss_bytes_per_unit",
                    "bytes per unit (VmRSS)",
                ),
                (
                    "heap",
                    "Live heap per waiting unit (log scale)",
                    "live_heap_bytes_per_unit",
                    "bytes per unit (counting allocator)",
                ),
                (
                    "create",
                    "Time to create one unit and have it waiting (log scale)",
                    "create_ns_per_unit",
                    "ns per unit",
                ),
            ]
            .into_iter()
            .map(bars)
            .collect()
        },
        /// The memory question: what one waiting unit of each kind costs, at every count and payload; the answer
        /// lists each kind against the cheapest. Every unit waits on the same kind of event (its own oneshot or
        /// channel, woken once), so the kinds compare at equal construction, and the same question asked of the
        /// families (`family`) names the best unit of another style beside the pick; `family-cpu` asks it on the CPU
        /// a unit costs to create, wait and release.
        questions: {
            let asked = |id, ask, metric, words| {
                Question::new(id, ask, Alternatives::Candidates, metric, words, false)
            };
            vec![
                asked(
                    "waiting-unit",
                    "What does one waiting unit of each kind cost in resident memory?",
                    HEADLINE,
                    "resident bytes per waiting unit",
                )
                .situation("many units waiting at once: memory per unit"),
                asked(
                    "family",
                    "Which style holds a waiting unit in the least resident memory: a task, future or generator, an \
                     OS thread, or a `may` coroutine, each awaiting its own wake-up?",
                    HEADLINE,
                    "resident bytes per waiting unit",
                )
                .of_families()
                .situation("many units waiting at once, by style: memory per unit"),
                asked(
                    "family-cpu",
                    "Which style creates, holds and releases a waiting unit for the least CPU?",
                    "cpu_ns_per_item",
                    "CPU ns per unit (create, wait, release)",
                )
                .of_families()
                .situation("many units waiting at once, by style: CPU per unit"),
            ]
        },
    }

    /// Every count without payload, the payload only below the largest of three or more counts: what a payload
    /// adds per unit does not depend on how many units wait (each owns its own), so the smaller counts measure it,
    /// and the phase left out, 100,000 units of 1 KiB, was the longest of the run (memory's pools, read for bytes per
    /// unit, were told apart within 1.02× in the calibration at `6cb905a` and 1.01× at `275a2ee`, so a shorter run
    /// costs them least).
    fn keeps_phase(&self, phase: &TrialParams, params: &RunParams) -> bool {
        let level = |key: &str| phase.get(key).copied().unwrap_or(0);
        let counts = params.get("count").map_or(0, |levels| levels.len());
        let largest = params.get("count").and_then(|levels| levels.iter().max()).copied().unwrap_or(0);
        level("payload") == 0 || counts < 3 || level("count") < largest
    }

    /// Five processes of two timed iterations and the accounting one, no warm-up: memory is read once per
    /// process, after two runs have put pools and caches in the state a warm-up would, and creating 100,000 units
    /// takes a fraction of a second. The committed full run took 3.0 minutes at 3 processes of 4 iterations; 5
    /// processes of 3 take about 5 × 3 / (3 × 4) of that plus start-ups, under 4 minutes (with
    /// `vm.max_map_count` raised, 100,000 coroutines add about 40 s), inside the 6-minute budget.
    fn repetitions(&self, quick: bool) -> Repetitions {
        if quick {
            Repetitions { forks: 1, warmup: 0, iterations: 1, accounting: 1 }
        } else {
            Repetitions { forks: 5, warmup: 0, iterations: 2, accounting: 1 }
        }
    }

    /// tokio's runtime and `may`'s carriers, each one per CPU.
    fn runtime_sizes(&self) -> Vec<measure::runtime_size::RuntimeSize> {
        use measure::runtime_size::{Code, RuntimeSize};
        vec![
            RuntimeSize::tokio(Code::new("costs/src/memory/contestants/mod.rs", "Builder::new_multi_thread()")),
            RuntimeSize::may_per_core(Code::new("costs/src/memory/contestants/mod.rs", "CoroutineConfig::per_core()")),
        ]
    }
}

/// The phase of `count` units with `payload` bytes each.
pub fn phase(count: u64, payload: u64) -> String {
    format!("count_{count}-payload_{payload}")
}
