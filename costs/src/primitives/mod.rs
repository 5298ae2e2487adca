//! The primitives scenario: what one spawn + join, one uncontended permit or lock, and one oneshot hand-off cost
//! in each style, per operation, each in its own iteration of many operations.
//!
//! `ns_per_op` and CPU per operation come from timed iterations; allocations per operation
//! (`allocs_per_item`) from the accounting iteration.
//!
//! The folder has the shape every scenario shares (`docs/adding-a-scenario.md`): this file (parameters, registry,
//! metrics, charts), [`contestants`], [`conformance`] (every operation done once; faults at the first, a middle and the
//! last operation, a clean run after them, the caller's cancel), [`claims`] (the claim table, every claim with an id),
//! `routine` (one trial: the conformance checks, then the harness's loop) and [`report`] (the side-by-side table of
//! each primitive in the three styles, rendered into `templates/report.md`).

pub mod claims;
pub mod conformance;
pub mod contestants;
pub mod report;
mod routine;

use measure::question::{Alternatives, Question};
use measure::scenario::{CalibrationSpec, ChartKind, ChartSpec, ParamSpec, Repetitions, Scenario};

use contestants::Contestant;

/// The primitives scenario, as the lab's registry lists it.
#[derive(Debug, Clone, Copy, Default)]
pub struct PrimitivesScenario;

/// The headline metric: wall-clock nanoseconds per operation.
pub const HEADLINE: &str = "ns_per_op";

/// CPU per operation: the trial process's CPU time (every thread) over the operations.
pub const CPU: &str = "cpu_ns_per_item";

impl Scenario for PrimitivesScenario {
    measure::scenario_files! {
        contestants: Contestant::ALL,
        run_trial: routine::run_trial,
        claim_table: claims::table(),
        discussion: report::discussion,
        name: "primitives",
        title: "Primitives: spawn and join, an uncontended permit, a oneshot",
        question: "What does one operation of each style's building blocks cost? Spawning and joining a tokio task, an \
                   OS thread, a rayon job (entered from outside its pool, and from a worker inside it) and a `may` \
                   coroutine; acquiring and releasing an uncontended tokio `Semaphore` permit and a `may` `Semphore` \
                   permit against locking and unlocking a `std::sync::Mutex`; and one value through a channel made \
                   for it and received on another unit of the style: a tokio `oneshot` between two tasks, a std \
                   `sync_channel` between two threads, a `may` channel between two coroutines. Tasks and coroutines start their loop from \
                   inside their runtime, as an application would. Each is repeated many times in one iteration and \
                   reported per operation; each also has a criterion bench (`cargo bench -p costs`).",
        params: vec![ParamSpec::single(
            "ops",
            "Operations per iteration (spawning a thread does 20× fewer).",
            100_000,
            20_000,
            20,
            100_000_000,
        )],
        headline_metric: HEADLINE,
        calibration: Some(CalibrationSpec {
            contestants: vec![
                "stream-tokio-spawn-join",
                "blocking-rayon-spawn-join-inside",
                "blocking-std-mutex",
                "stream-tokio-oneshot",
            ],
            metrics: vec!["ns_per_op"],
            params: Vec::new(),
            seconds_per_trial: 1.5,
            why: "a spawn and join of each runtime (rayon's has two modes), a lock and a one-shot hand-off: the \
                  operations from the shortest to the longest",
        }),
        table_metrics: vec![
            "ns_per_op", "cpu_ns_per_item", "allocs_per_item", "alloc_bytes_per_item", "ctx_switches_per_item", "ops",
        ],
        charts: vec![ChartSpec {
            id: "ns-per-op",
            title: "Nanoseconds per operation (log scale)",
            metric: HEADLINE,
            unit: "ns per operation",
            kind: ChartKind::Bars,
            log_scale: true,
            references: &[],
        }],
        /// One question per operation: the operations are unrelated, so no answer ranks one against another.
        /// Each compares one unit of each style at equal construction (started and awaited from where that
        /// style's code runs; the permit or lock each style takes; a channel made per value and received on
        /// another unit), so each is a family question ([`Question::of_families`]), asked on wall time per
        /// operation and, as its `-cpu` twin, on CPU per operation.
        ///
        /// Spawn compares what a program of each style starts to run one piece of work beside its own code and
        /// waits for: a tokio task from a task, an OS thread from a thread, a `may` coroutine from a coroutine,
        /// and a job handed to an existing rayon pool from the program's thread (`blocking-rayon-spawn-join`).
        /// `blocking-rayon-spawn-join-inside`, a `rayon::scope` opened on one of the pool's own workers, is left
        /// out: it is fork-join inside a parallel computation already running on the pool, whose worker runs the
        /// job itself unless an idle one steals it; no blocking program's thread is a rayon worker, so it is not
        /// what such a program starts for the job. It stays as a reference row beside the answer.
        questions: {
            // One operation's question on wall time, and its `-cpu` twin on CPU.
            let asked = |(id, cpu_id): (&'static str, &'static str),
                         (ask, cpu_ask): (&'static str, &'static str),
                         situation: &'static str,
                         names: &[&str]| {
                let question = |id, ask, metric, words| {
                    Question::new(id, ask, Alternatives::named(names), metric, words, false)
                        .of_families()
                        .situation(situation)
                };
                [question(id, ask, HEADLINE, "ns per operation"), question(cpu_id, cpu_ask, CPU, "CPU ns per operation")]
            };
            [
                asked(
                    ("spawn-join", "spawn-join-cpu"),
                    (
                        "What does starting one unit of concurrent work and waiting for it cost: a tokio task from a \
                         task, an OS thread, a job handed to an existing rayon pool, or a `may` coroutine from a \
                         coroutine?",
                        "What CPU does starting one unit of concurrent work and waiting for it cost in each style?",
                    ),
                    "starting and joining a unit of work",
                    &[
                        "stream-tokio-spawn-join",
                        "blocking-thread-spawn-join",
                        "blocking-rayon-spawn-join",
                        "coroutine-may-spawn-join",
                    ],
                ),
                asked(
                    ("permit", "permit-cpu"),
                    (
                        "What does taking and giving back an uncontended permit cost in each style: a tokio \
                         `Semaphore`, a `std::sync::Mutex`, a `may` semaphore?",
                        "What CPU does taking and giving back an uncontended permit cost in each style?",
                    ),
                    "an uncontended permit",
                    &["stream-tokio-semaphore", "blocking-std-mutex", "coroutine-may-semaphore"],
                ),
                asked(
                    ("oneshot", "oneshot-cpu"),
                    (
                        "What does handing one value to a receiver waiting on another unit cost in each style, the \
                         channel made for it: a tokio `oneshot` between tasks, a std `sync_channel` between \
                         threads, a `may` channel between coroutines?",
                        "What CPU does handing one value to a receiver waiting on another unit cost in each style?",
                    ),
                    "handing one value to a waiting receiver",
                    &["stream-tokio-oneshot", "blocking-std-channel", "coroutine-may-oneshot"],
                ),
            ]
            .into_iter()
            .flatten()
            .collect()
        },
    }

    /// The standard five processes of one warm-up, three timed and one accounting iteration (five timed took 3.8
    /// minutes in the sitting at `6cb905a`, over the share of the 45 minutes of `lab all` a scenario of nanosecond
    /// figures needs: the verdicts use the median of process medians, which three iterations a process give).
    fn repetitions(&self, quick: bool) -> Repetitions {
        if quick {
            Repetitions { forks: 1, warmup: 1, iterations: 2, accounting: 1 }
        } else {
            Repetitions::STANDARD
        }
    }

    /// tokio's runtime, rayon's pool and `may`'s carriers, each one per CPU.
    fn runtime_sizes(&self) -> Vec<measure::runtime_size::RuntimeSize> {
        use measure::runtime_size::{Code, RuntimeSize};
        vec![
            RuntimeSize::tokio(Code::new("costs/src/primitives/contestants/mod.rs", "Builder::new_multi_thread()")),
            RuntimeSize::rayon("costs/src/primitives/contestants/rayon_spawn.rs"),
            RuntimeSize::may_per_core(Code::new(
                "costs/src/primitives/contestants/mod.rs",
                "CoroutineConfig::per_core()",
            )),
        ]
    }
}
