//! The chain scenario: `items` values through map1 (`x·3+1` plus `work` mixing rounds), keep evens, map2
//! (`x ^ (x >> 7)`) and a wrapping sum, written as a loop, an iterator, rayon, thread-per-stage pipelines over
//! three channel crates, single-task streams and task-per-stage streams.
//!
//! The folder has the shape every scenario shares (`docs/adding-a-scenario.md`):
//! - this file: [`ChainScenario`], the lab's view (parameters, registry, metrics, charts);
//! - [`contestants`]: the registry and every contestant;
//! - [`conformance`]: checks every contestant must pass (same result, exactly once, bounded, early stop,
//!   stage errors and panics), generic over contestants;
//! - [`claims`]: the claim table, every claim with an id;
//! - [`findings`]: the sentences the report states as findings, as rows the harness judges;
//! - [`advice`]: how it answers a user's shape of work in `lab advise`, and how CPU work maps onto `work`;
//! - `routine`: one trial in its own process, conformance then the harness's loop, every run verified;
//! - [`report`]: the discussion's context of figures and verdicts, rendered into `templates/report.md`.
//!
//! The chain's own building blocks (`ops`, `job`, `sink`) live beside this folder in the crate; the building
//! blocks the families share (`blocking`, `stream`, `coroutine`, …) come from `pipelines`.

pub mod advice;
pub mod claims;
pub mod conformance;
pub mod contestants;
pub mod findings;
pub mod report;
mod routine;

use std::sync::Arc;

use measure::external::ExternalProgram;
use measure::question::{Alternatives, Question};
use measure::record::TrialRequest;
use measure::scenario::{
    CalibrationSpec, ChartKind, ChartReference, ChartSpec, ParamSpec, ReferenceValue, Scenario, TrialError,
};
use measure::summary::ContestantInfo;
use pipelines::conformance::{batch_param, messages_param, outstanding_chart};

pub use contestants::{contestants, find, standalone_pairs, ChainContestant, Layout, PreparedChain};

/// The chain scenario, as the lab's registry lists it.
#[derive(Debug, Clone, Copy, Default)]
pub struct ChainScenario;

/// The headline metric: milliseconds per million input items.
pub const HEADLINE: &str = "ms_per_million";

/// CPU time per item through the chain, the scenario's CPU-per-unit metric.
pub const CPU_PER_ITEM: &str = "cpu_ns_per_item";

/// The family question — threads, tasks or coroutines per stage? — at equal construction: the staged layout (a
/// thread, task or coroutine per stage and one for the consumer, 4 bounded channels of `capacity` items each, in
/// order), one question per item and one batched (`min(batch, capacity / messages)` items per `Vec`), each decided
/// on wall time per million items and on CPU per item. Every family's every staged construction is an
/// alternative (blocking: crossbeam, flume, std; stream: tokio tasks; coroutine: `may`).
///
/// Left out: the fused layout (two parties and one channel, which `may` has no contestant of, so it would give two
/// families a construction the third lacks) and the single-thread, pool and single-task contestants (no
/// concurrent stages: the `collection` question's). One difference stays, stated: batched `may` bounds the whole
/// chain by one semaphore of the permits its 4 channels would hold (the same total, taken at the source), where
/// the others bound each channel.
pub fn family_questions() -> Vec<Question> {
    let of = |batched: bool| -> Vec<String> {
        contestants().iter().filter(|c| c.layout() == Some((Layout::Staged, batched))).map(|c| c.info().name).collect()
    };
    let ask = |id, ask, names: &[String], metric, words| {
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        Question::new(id, ask, Alternatives::named(&names), metric, words, false).of_families()
    };
    let per_item = "Concurrent stages, one item per message: blocking threads, async tasks or coroutines?";
    let batched = "Concurrent stages, batched messages: blocking threads, async tasks or coroutines?";
    let (one, many) = (of(false), of(true));
    vec![
        ask("family-per-item", per_item, &one, HEADLINE, "ms per million items")
            .situation("concurrent stages one item per message, by family"),
        ask("family-per-item-cpu", per_item, &one, CPU_PER_ITEM, "CPU ns per item")
            .situation("concurrent stages one item per message, by family, on CPU"),
        ask("family-batched", batched, &many, HEADLINE, "ms per million items")
            .situation("concurrent stages batched, by family"),
        ask("family-batched-cpu", batched, &many, CPU_PER_ITEM, "CPU ns per item")
            .situation("concurrent stages batched, by family, on CPU"),
    ]
}

/// The plain loop's figure, the floor every other contestant's wall time is read against, as the charts draw it.
const FLOOR: ChartReference = ChartReference {
    words: "floor: baseline-loop",
    value: ReferenceValue::Median { contestant: claims::LOOP, metric: HEADLINE },
};

impl Scenario for ChainScenario {
    measure::scenario_files! {
        run_trial: routine::run_trial,
        claim_table: claims::table,
        finding_table: findings::table,
        discussion: report::discussion,
        advise: advice::advise,
        cpu_work: Some(advice::CPU_WORK),
        name: "chain",
        title: "Map / filter / map / sum: streams, threads behind channels, and a plain loop",
        question: "How much does each style cost for a CPU-bound map → filter → map → sum over a vector of integers: a \
                   plain loop, an iterator, rayon, one OS thread per stage behind bounded channels (crossbeam, flume, \
                   std), single-task async streams (futures, tokio-stream, async-stream) and one tokio task per stage \
                   behind bounded channels, each with one item or one batch per message? And does the order change \
                   once each element carries some work (the `work` sweep adds mixing rounds to the first map)? On the \
                   JVM, the well-known reference point is Reactor against a plain loop (the published reference below \
                   compares the two ratios); this scenario asks what the Rust equivalents cost, and where the time \
                   goes.",
        params: vec![
            ParamSpec::single(
                "items",
                "Input values per iteration (0..items as u64).",
                1_000_000,
                100_000,
                1,
                100_000_000,
            ),
            ParamSpec::sweep("work", "Mixing rounds map1 applies to each value.", &[0, 64], &[0, 64], 0, 1_000_000),
            batch_param(),
            ParamSpec::single(
                "capacity",
                "Items each channel holds, batched or not (batched: `messages` messages of capacity/messages items).",
                1024,
                1024,
                1,
                100_000_000,
            ),
            messages_param(),
        ],
        headline_metric: HEADLINE,
        calibration: Some(CalibrationSpec {
            contestants: vec!["baseline-loop", "blocking-rayon", "blocking-crossbeam", "stream-tokio-tasks"],
            metrics: vec!["ms_per_million", "cpu_ns_per_item"],
            params: vec![("work", 0)],
            seconds_per_trial: 0.8,
            why: "a loop (whose processes spread most), a pool, threads behind a channel and tasks behind one, at \
                  work 0 where the cost per item is smallest and so its noise largest",
        }),
        table_metrics: vec![
            "ms_per_million",
            "cpu_ns_per_item",
            "cores_used",
            "threads",
            "allocs_per_item",
            "ctx_switches_per_item",
            "max_outstanding",
            "max_outstanding_sampled",
            "items_per_message",
            "messages_per_channel",
            "heap_peak_mib",
            "peak_rss_mib",
        ],
        charts: vec![
            ChartSpec {
                id: "ms-per-million",
                title: "Wall time per million items (log scale; dashed: the plain loop's floor)",
                metric: "ms_per_million",
                unit: "ms per million items",
                kind: ChartKind::Bars,
                log_scale: true,
                references: &[FLOOR],
            },
            ChartSpec {
                id: "cpu-per-item",
                title: "CPU time per item, all threads",
                metric: "cpu_ns_per_item",
                unit: "ns of CPU per item",
                kind: ChartKind::Bars,
                log_scale: false,
                references: &[],
            },
            outstanding_chart("Items in flight in the channel pipelines over time (first accounting iteration)"),
        ],
        /// Two questions: how to run the work over a collection at all (a loop and an iterator are alternatives a
        /// user can adopt, so they may be the answer), and, where the stages must run concurrently, which family
        /// and packing.
        // The contestants that hand items off through channels are the concurrent stages; the others run the
        // work over the collection on the calling thread or a pool. Both lists keep the registry's order.
        questions: {
            let (staged, whole): (Vec<_>, Vec<_>) = contestants().into_iter().partition(|c| c.layout().is_some());
            let on_time = |id, ask, of: Vec<Arc<dyn ChainContestant>>| {
                let names: Vec<String> = of.iter().map(|c| c.info().name).collect();
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                Question::new(id, ask, Alternatives::named(&names), HEADLINE, "ms per million items", false)
            };
            vec![
                on_time(
                    "collection",
                    "CPU-bound work over a collection: a loop, an iterator, rayon, or a chain of stream adapters?",
                    whole,
                )
                .situation("CPU-bound work over a collection"),
                on_time(
                    "stages",
                    "If the stages must run concurrently, one per thread, task or coroutine: which family, and should \
                     I batch?",
                    staged,
                )
                .situation("the same work as concurrent stages"),
            ]
            .into_iter()
            .chain(family_questions())
            .collect()
        },
    }

    /// The registry's contestants, then the standalone program ([`contestants::listed`]).
    fn contestants(&self) -> Vec<ContestantInfo> {
        contestants::listed()
    }

    /// The standalone program runs as a program of its own ([`contestants::external`]).
    fn external(&self, request: &TrialRequest) -> Result<Option<ExternalProgram>, TrialError> {
        contestants::external(request)
    }

    /// tokio's runtime (the families' toolkit), rayon's pool and `may`'s carriers, each one per CPU.
    fn runtime_sizes(&self) -> Vec<measure::runtime_size::RuntimeSize> {
        use measure::runtime_size::{Code, RuntimeSize};
        vec![
            RuntimeSize::tokio(Code::new("pipelines/src/stream/runtime.rs", "Builder::new_multi_thread()")),
            RuntimeSize::rayon("chain/src/chain/contestants/rayon.rs"),
            RuntimeSize::may_per_core(Code::new(
                "chain/src/chain/contestants/may_coroutines.rs",
                "CoroutineConfig::per_core()",
            )),
        ]
    }
}
