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
//! - `routine`: one trial in its own process (conformance, then the harness's timed loop, every run verified);
//! - [`report`]: the figures and verdicts of a run, rendered with `templates/report.md` (every word of the
//!   discussion).

pub mod claims;
pub mod conformance;
pub mod contestants;
pub mod report;
mod routine;

use measure::external::ExternalProgram;
use measure::question::{Alternatives, Question};
use measure::record::TrialRequest;
use measure::scenario::{
    CalibrationSpec, ChartKind, ChartReference, ChartSpec, Dimension, ParamSpec, ReferenceValue, Repetitions, Scenario,
    SeriesLine, SeriesRole, TrialError,
};
use measure::summary::ContestantInfo;

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

impl Scenario for HandoffScenario {
    measure::scenario_files! {
        /// The per-cause A/B variants of the bare pairs ([`contestants::on_request`]).
        contestants_on_request: contestants::on_request(),
        run_trial: routine::run_trial,
        claim_table: claims::table,
        discussion: report::report,
        details_discussion: report::details,
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
            ParamSpec::single("batch", "Most items per message for the batched contestants.", 256, 256, 1, 1_000_000),
            ParamSpec::single(
                "messages",
                "Messages a batched channel holds, room to run ahead: a batch is capacity/messages items (at most \
                 `batch`).",
                16,
                16,
                1,
                1_000_000,
            ),
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
            ChartSpec {
                id: "outstanding",
                title: "Items in flight over time at capacity 256 (first accounting iteration)",
                metric: "max_outstanding",
                unit: "items",
                kind: ChartKind::Series {
                    series: &[SeriesLine {
                        series: "outstanding",
                        words: "items in flight",
                        role: SeriesRole::Measured,
                    }],
                },
                log_scale: false,
                references: &[],
            },
        ],
        /// The hand-off question, per channel capacity: which channel and packing moves items from a producer to a
        /// consumer fastest; pathologies are shown as what they cost.
        questions: vec![Question::new(
            "channel",
            "Handing items from a producer to a consumer across threads or tasks: which channel, and should I batch?",
            Alternatives::Candidates,
            HEADLINE,
            "ms per million items",
            false,
        )
        .situation("producer → consumer hand-off")],
    }

    /// The registry's contestants, then the standalone programs ([`contestants::listed`]).
    fn contestants(&self) -> Vec<ContestantInfo> {
        contestants::listed()
    }

    /// The standalone programs run as programs of their own ([`contestants::external`]).
    fn external(&self, request: &TrialRequest) -> Result<Option<ExternalProgram>, TrialError> {
        contestants::external(request)
    }

    fn dimensions(&self) -> Vec<Dimension> {
        let contestants = self.contestants();
        let packing = Dimension::from_fn("packing", &contestants, |c| {
            let packing = if c.name.ends_with("-batched") {
                "batched"
            } else if c.name.ends_with("-one-message") {
                "one message"
            } else {
                "per item"
            };
            Some(packing.to_string())
        });
        vec![Dimension::family(&contestants), packing]
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
}
