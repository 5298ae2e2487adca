//! The handoff scenario: one producer emits `0..items`, one consumer sums them and checks their order, and the
//! contestants differ only in how an item gets from one to the other — a blocking channel between two threads
//! (crossbeam, flume, std, a hand-written `Condvar` queue), an async channel between two tokio tasks (tokio,
//! flume, futures; on a multi-thread or a current-thread runtime), or a bridge between a thread and a task —
//! one item per message or one batch per message, swept over the channel's capacity.
//!
//! The scenario's folder, in reading order:
//! - this file: [`HandoffScenario`], the lab's view (name, question, parameters, contestants, metrics, charts);
//! - [`mod@contestants`]: the registry and every contestant, one file per construction;
//! - [`conformance`]: checks every contestant must pass (exact sum and order, exactly once, bounded, early
//!   stop, producer error and panic), generic over contestants;
//! - [`claims`]: the claim table the harness judges, every claim with an id;
//! - [`findings`]: the rows behind the report's conditional sentences, judged the same way;
//! - [`advice`]: how it answers a user's shape of work in `lab advise`;
//! - `routine`: one trial in its own process (conformance, then the harness's timed loop, every run verified);
//! - [`figures`]: the numbers the report prints, computed before it is rendered;
//! - [`report`]: the figures and verdicts of a run, rendered with `templates/report.md` (every word of the
//!   discussion).

pub mod advice;
pub mod calibration;
pub mod claims;
pub mod conformance;
pub mod contestants;
pub mod figures;
pub mod findings;
pub mod floors;
pub mod report;
mod routine;

use measure::external::ExternalProgram;
use measure::question::{Alternatives, Question};
use measure::record::TrialRequest;
use measure::scenario::{
    CalibrationSpec, ChartKind, ChartReference, ChartSpec, ParamSpec, ReferenceValue, Repetitions, Scenario, TrialError,
};
use measure::summary::ContestantInfo;
use pipelines::conformance::{batch_param, messages_param, outstanding_chart};

pub use contestants::{
    ab_variants, bare_pairs, contestants, find, standalone_pairs, AbVariant, HandoffContestant, PreparedHandoff,
};

/// The handoff scenario, as the lab's registry lists it.
#[derive(Debug, Clone, Copy, Default)]
pub struct HandoffScenario;

/// The headline metric: milliseconds per million items handed off.
pub const HEADLINE: &str = "ms_per_million";

/// The plain loop's figure, the floor every other contestant's wall time is read against, as the charts draw it.
const FLOOR: ChartReference = ChartReference {
    words: "floor: baseline-loop",
    value: ReferenceValue::Median { contestant: claims::LOOP, metric: HEADLINE },
};

/// Name fragments of the contestants that put several items in one message (the batched and one-message
/// variants): the bar charts show them in a panel beside the per-item ones.
const BATCHED_NAMES: &[&str] = &["-batched", "-one-message"];

/// Headings of the bar charts' two panels per capacity.
const PANEL_LABELS: [&str; 2] = ["per item", "several items per message"];

/// The capacity whose phase records the outstanding-work series for the chart (the default capacity).
pub const SERIES_CAPACITY: usize = 256;

/// In phases whose capacity is below this, every contestant that hands items off (one item per message, batched
/// or one message, all of which carry fewer than this many items per message there) hands off `small-items` items
/// per iteration instead of `items`: there a hand-off can cost a wake-up per message (microseconds), so `items`
/// would take seconds per iteration and the full run would not fit its budget. The loop, which hands nothing off,
/// runs `items` everywhere. `ms_per_million` and every per-item metric are normalised, so the rows stay
/// comparable; the report states the counts.
pub const SMALL_CAPACITY_BELOW: u64 = 256;

/// Items one iteration hands off at `capacity` for a contestant whose messages carry `items_per_message` items
/// (`None`: no hand-off): `small_items` for a contestant that hands off below [`SMALL_CAPACITY_BELOW`], else
/// `items`.
pub fn items_at(items: u64, small_items: u64, capacity: u64, items_per_message: Option<usize>) -> u64 {
    if capacity < SMALL_CAPACITY_BELOW && items_per_message.is_some() {
        small_items
    } else {
        items
    }
}

/// CPU time per item handed off, the scenario's CPU-per-unit metric.
pub const CPU_PER_ITEM: &str = "cpu_ns_per_item";

/// Why the capacities below `2 × messages` (1 and 16 at the defaults: 16 messages) are controls of every question
/// that asks about batching: there a batch is `capacity / messages` items, at least 1, so the "batched" rows carry
/// one item per message (in a `Vec`) and batching is not tested.
const NOT_BATCHED: &str = "at this capacity a batch is capacity / 16 messages, at least 1 item, so the batched rows \
                           carry one item per message and batching is not tested; which channel moves one item at a \
                           time is the per-item family question";

/// The per-item expert constructions of each family at equal construction: library channels whose two ends are
/// in the family's own style on two threads of execution that may run on different CPUs (two threads; two tasks
/// on a multi-thread runtime; two coroutines on one carrier per CPU), the channel holding `capacity` items, one
/// item per message, the consumer taking one message per receive.
///
/// Left out, and why: the hand-written `Mutex` + `Condvar` queues (no library channel, and no counterpart in the
/// other families); `stream-tokio-recv-many` (its consumer drains up to `batch` messages per receive, which no
/// blocking or coroutine consumer here does); `baseline-tokio-current-thread` (both ends on one thread: no
/// hand-off between CPUs); the bridges (one end of each family: they answer a different question, crossing
/// styles); the one-message variants (pathologies).
pub const PER_ITEM: &[&str] = &[
    "blocking-crossbeam",
    "blocking-flume",
    "blocking-std",
    "stream-tokio",
    "stream-flume",
    "stream-futures",
    "coroutine-may",
];

/// The batched twins of [`PER_ITEM`], at equal construction the same way: each message one `Vec` of
/// `capacity / messages` items (at most `batch`), the channel holding `capacity` items in `messages` messages.
pub const BATCHED: &[&str] = &[
    "blocking-crossbeam-batched",
    "blocking-flume-batched",
    "blocking-std-batched",
    "stream-tokio-batched",
    "stream-flume-batched",
    "stream-futures-batched",
    "coroutine-may-batched",
];

/// The family question — blocking threads, async tasks or coroutines? — per item ([`PER_ITEM`]) and batched
/// ([`BATCHED`]) apart, each decided on wall time per million items and on CPU per item. The batched questions
/// take capacities 1 and 16 as controls ([`NOT_BATCHED`]).
pub fn family_questions() -> Vec<Question> {
    let ask = |id, ask, names: &[&str], metric, words| {
        Question::new(id, ask, Alternatives::named(names), metric, words, false).of_families()
    };
    let per_item = "Handing items one per message from a producer to a consumer: blocking threads, async tasks or \
                    coroutines?";
    let batched = "Handing items in batches from a producer to a consumer: blocking threads, async tasks or \
                   coroutines?";
    vec![
        ask("family-per-item", per_item, PER_ITEM, HEADLINE, "ms per million items")
            .situation("hand-off one item per message, by family"),
        ask("family-per-item-cpu", per_item, PER_ITEM, CPU_PER_ITEM, "CPU ns per item")
            .situation("hand-off one item per message, by family, on CPU"),
        ask("family-batched", batched, BATCHED, HEADLINE, "ms per million items")
            .situation("batched hand-off, by family")
            .control("capacity_1", NOT_BATCHED)
            .control("capacity_16", NOT_BATCHED),
        ask("family-batched-cpu", batched, BATCHED, CPU_PER_ITEM, "CPU ns per item")
            .situation("batched hand-off, by family, on CPU")
            .control("capacity_1", NOT_BATCHED)
            .control("capacity_16", NOT_BATCHED),
    ]
}

impl Scenario for HandoffScenario {
    measure::scenario_files! {
        /// The per-cause A/B variants of the bare pairs ([`contestants::on_request`]).
        contestants_on_request: contestants::on_request(),
        run_trial: routine::run_trial,
        claim_table: claims::table,
        finding_table: findings::table,
        discussion: report::report,
        headline_notes: floors::headline_notes,
        details_discussion: calibration::details,
        advise: advice::advise,
        name: "handoff",
        title: "Producer → consumer hand-off: channels, streams and the bridge between them",
        question: "What does it cost to pass a million items from one thread or task to another, in each style, and \
                   what does batching buy? One producer emits 0..items, one consumer sums them and checks their order; \
                   in between is a bounded channel: crossbeam, flume, std's `sync_channel` or a hand-written `Mutex` + \
                   `Condvar` queue between two threads; tokio, flume or futures channels between two tokio tasks (and \
                   the tokio pair on a current-thread runtime, where both ends share one thread); or a bridge from a \
                   thread into a task and back. Each passes one item or one batch of items per message, and the \
                   channel's capacity is swept. The JVM reference points (Reactor's `publishOn`, a stream library's \
                   `buffer` and a blocking queue between virtual threads) are in the published reference below, as \
                   ratios.",
        params: vec![
            ParamSpec::single(
                "items",
                "Items the producer emits per iteration (0..items as u64).",
                1_000_000,
                100_000,
                1,
                100_000_000,
            ),
            ParamSpec::single(
                "small-items",
                "Items per iteration of every contestant that hands items off, in phases of capacity under 256.",
                10_000,
                10_000,
                1,
                100_000_000,
            ),
            ParamSpec::sweep(
                "capacity",
                "Items the channel holds, whatever the packing; each value is a phase.",
                &[1, 16, 256, 4096],
                &[1, 256],
                1,
                10_000_000,
            ),
            batch_param(),
            messages_param(),
        ],
        headline_metric: HEADLINE,
        calibration: Some(CalibrationSpec {
            contestants: vec!["blocking-crossbeam", "blocking-flume", "stream-tokio"],
            metrics: vec!["ms_per_million", "cpu_ns_per_item"],
            params: vec![("capacity", 256)],
            seconds_per_trial: 1.0,
            why: "a hand-off between two threads over two channel crates and between two tokio tasks, at capacity 256 \
                  where the question's pairs are closest",
        }),
        table_metrics: vec![
            "ms_per_million",
            "cpu_ns_per_item",
            "cores_used",
            "ctx_switches_per_item",
            "cpu_system_ns_per_item",
            "allocs_per_item",
            "max_outstanding",
            "max_outstanding_sampled",
            "items_per_message",
            "messages_per_channel",
            "threads",
            "peak_rss_mib",
        ],
        charts: vec![
            ChartSpec {
                id: "ms-per-million",
                title: "Wall time per million items, per item beside batched (log scale; dashed: the plain loop's \
                        floor)",
                metric: "ms_per_million",
                unit: "ms per million items",
                kind: ChartKind::BarPanels { right: BATCHED_NAMES, labels: PANEL_LABELS },
                log_scale: true,
                references: &[FLOOR],
            },
            ChartSpec {
                id: "capacity",
                title: "Wall time per million items against channel capacity (log-log)",
                metric: "ms_per_million",
                unit: "ms per million items",
                kind: ChartKind::Sweep,
                log_scale: true,
                references: &[],
            },
            ChartSpec {
                id: "cores-used",
                title: "Cores kept busy (CPU time / wall time)",
                metric: "cores_used",
                unit: "cores",
                kind: ChartKind::BarPanels { right: BATCHED_NAMES, labels: PANEL_LABELS },
                log_scale: false,
                references: &[],
            },
            outstanding_chart("Items in flight over time at capacity 256 (first accounting iteration)"),
        ],
        /// The hand-off question, per channel capacity: which channel and packing moves items from a producer to a
        /// consumer fastest; pathologies are shown as what they cost.
        /// Then the family question at equal construction, per item and batched apart, each on the headline
        /// metric and on CPU per item ([`family_questions`]).
        questions: {
            let mut questions = vec![Question::new(
                "channel",
                "Handing items from a producer to a consumer across threads or tasks: which channel, and should I \
                 batch?",
                Alternatives::Candidates,
                HEADLINE,
                "ms per million items",
                false,
            )
            .situation("producer → consumer hand-off")
            .control("capacity_1", NOT_BATCHED)
            .control("capacity_16", NOT_BATCHED)];
            questions.extend(family_questions());
            questions
        },
    }

    /// The registry's contestants, then the standalone programs ([`contestants::listed`]).
    fn contestants(&self) -> Vec<ContestantInfo> {
        contestants::listed()
    }

    /// The standalone programs run as programs of their own ([`contestants::external`]).
    fn external(&self, request: &TrialRequest) -> Result<Option<ExternalProgram>, TrialError> {
        contestants::external(request)
    }

    /// The lab's standard of five fresh processes per contestant and phase, each of one warm-up, three measured
    /// iterations and one accounting iteration. What fits the run into about seven minutes on two cores is the
    /// item counts: 33 contestants × 4 capacities × 5 processes make 660 trial processes, so every hand-off below
    /// capacity 256 runs `small-items` (10,000). `items` is the million the question names, not fewer: on the
    /// 2-vCPU lab VM a pair's two threads share one CPU's worth of time (1.00 cores used) for the first
    /// milliseconds of a hand-off before the scheduler spreads them, so at 250,000 items (about 13 ms) most
    /// iterations measured that start alone (lab and standalone pairs alike), while at a million most use 1.5 to
    /// 1.9 cores, as a standalone program timed by hand over a million items does.
    fn repetitions(&self, quick: bool) -> Repetitions {
        if quick {
            Repetitions::QUICK
        } else {
            Repetitions { forks: 5, warmup: 1, iterations: 3, accounting: 1 }
        }
    }

    /// tokio's runtime (the families' toolkit) and `may`'s carriers, each one per CPU.
    fn runtime_sizes(&self) -> Vec<measure::runtime_size::RuntimeSize> {
        use measure::runtime_size::{Code, RuntimeSize};
        vec![
            RuntimeSize::tokio(Code::new("pipelines/src/stream/runtime.rs", "Builder::new_multi_thread()")),
            RuntimeSize::may_per_core(Code::new(
                "handoff/src/handoff/contestants/may_mpsc.rs",
                "CoroutineConfig::per_core()",
            )),
        ]
    }
}
