//! The interface every scenario implements, so the lab can list, plan, run and report it without knowing it.
//!
//! A scenario declares its parameters and contestants, runs one trial inside a fresh trial process
//! ([`Scenario::run_trial`]), and afterwards declares its claims as data (the harness judges them) and explains its numbers from the
//! [`Summary`] alone, so a report can be re-rendered from raw records.

use std::fmt;

use crate::judge::ClaimSpec;
use crate::record::{IterationRecord, MetricValues, RunParams, TrialParams, TrialRequest};
use crate::summary::{Check, ClaimResult, ContestantInfo, Summary};

/// A scenario parameter, settable as `--<name> V[,V...]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamSpec {
    /// Flag name without dashes, such as `items` or `in-flight` (written `in_flight` in JSON and phases).
    pub name: &'static str,
    /// One line of help.
    pub help: &'static str,
    /// Values of a full run.
    pub default: Vec<u64>,
    /// Values of a `--quick` run.
    pub quick: Vec<u64>,
    /// Whether several values make a sweep, each value its own phase named `<name>_<value>`.
    pub sweep: bool,
    /// Smallest accepted value.
    pub min: u64,
    /// Largest accepted value.
    pub max: u64,
}

impl ParamSpec {
    /// A parameter that takes one value: `default` in a full run, `quick` in a `--quick` run, accepted from
    /// `min` to `max`.
    pub fn single(name: &'static str, help: &'static str, default: u64, quick: u64, min: u64, max: u64) -> ParamSpec {
        ParamSpec { name, help, default: vec![default], quick: vec![quick], sweep: false, min, max }
    }

    /// A parameter whose values make a sweep, each value its own phase: `default` in a full run, `quick` in a
    /// `--quick` run, each value accepted from `min` to `max`.
    pub fn sweep(
        name: &'static str,
        help: &'static str,
        default: &[u64],
        quick: &[u64],
        min: u64,
        max: u64,
    ) -> ParamSpec {
        ParamSpec { name, help, default: default.to_vec(), quick: quick.to_vec(), sweep: true, min, max }
    }

    /// The parameter's key in JSON, trial requests and phase names: the flag name with `-` as `_`.
    pub fn key(&self) -> String {
        self.name.replace('-', "_")
    }
}

/// How a chart plots one metric across contestants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChartKind {
    /// One bar per contestant (median, with min–max whiskers), a group per phase.
    Bars,
    /// One line per contestant over the sweep's phases.
    Sweep,
    /// Like [`ChartKind::Sweep`] (one line per contestant over the sweep's phases, numeric log x axis where the
    /// phase values are positive), plus one reference line drawn in black, dashed, labelled `label`: at each
    /// phase, the median of metric `reference` (without phase prefix; read as `<phase>.<reference>` like the
    /// plotted metric) taken from the first contestant in summary order that has it. An ideal ceiling, for
    /// example.
    SweepWithReference {
        /// Metric of the reference line, without phase prefix, such as `ideal_ops_per_sec`.
        reference: &'static str,
        /// The reference line's name in the legend.
        label: &'static str,
    },
    /// Small multiples of [`ChartKind::Bars`]: one row of panels per phase, each row split in two panels side by
    /// side that share one value axis with every other panel: on the right the contestants whose name contains
    /// one of `right`, on the left the rest; `labels` name the left and right panels.
    BarPanels {
        /// Name fragments (such as `-batched`) that put a contestant in the right-hand panel.
        right: &'static [&'static str],
        /// Headings of the left and right panels, such as `["per item", "batched"]`.
        labels: [&'static str; 2],
    },
    /// The named time series of each contestant's first measured iteration: one panel per contestant (and
    /// phase), each series of the list a line in it (several series share the panel's axis, so give them one
    /// unit), with the series' marks as vertical lines. A panel whose run took too few samples to show it is left
    /// out, and the chart's note says which and why.
    Series {
        /// The series drawn, each with the words its key gives it and its role (which sets how it is drawn).
        series: &'static [SeriesLine],
    },
}

/// One line of a [`ChartKind::Series`] chart: a series of [`IterationRecord::series`] and how a reader knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeriesLine {
    /// Series name in [`IterationRecord::series`] (without phase prefix), such as `p99_latency_us`.
    pub series: &'static str,
    /// The words the chart's key gives it, such as `p99` or `calls outstanding`.
    pub words: &'static str,
    /// What it is: the one thing that sets how it is drawn, the same in every chart of every scenario.
    pub role: SeriesRole,
}

/// What a line of a [`ChartKind::Series`] chart is, which sets how it is drawn: every chart draws a role alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeriesRole {
    /// A median of latencies (p50): a thin line in the p50 colour.
    P50,
    /// A 99th percentile of latencies (p99): a thick line in the p99 colour, drawn over the p50.
    P99,
    /// A measured quantity (calls outstanding, calls answered): a solid line, drawn over every limit.
    Measured,
    /// A limit or capacity the run set or a limiter chose: a wide dashed line, drawn under the measured lines so
    /// that a measured line running along it stays visible.
    Limit,
}

/// A value a chart draws as a labelled reference line (a bound, a ceiling, a deadline, a floor), read from the
/// run, so that a chart never names a reference it does not draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChartReference {
    /// Its words on the chart, such as `bound` or `ceiling: bound ÷ service time`; the value follows them.
    pub words: &'static str,
    /// Where its value comes from.
    pub value: ReferenceValue,
}

/// Where the value of a [`ChartReference`] comes from, in the chart's unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReferenceValue {
    /// Run parameter `key` (its JSON key; in a sweep over it, the level the phase names) times `times`.
    Param {
        /// The parameter's JSON key, such as `limit`.
        key: &'static str,
        /// The factor into the chart's unit (1000 for milliseconds on a µs axis).
        times: u64,
    },
    /// Run parameter `numerator` over run parameter `denominator`, times `times`: a ceiling such as a bound of
    /// calls over their service time.
    Quotient {
        /// JSON key of the parameter divided.
        numerator: &'static str,
        /// JSON key of the parameter it is divided by.
        denominator: &'static str,
        /// The factor into the chart's unit (1,000,000 for calls per µs as calls per second).
        times: u64,
    },
    /// The median of the process medians of `metric` (without phase prefix) for `contestant`, such as the
    /// plain loop's floor.
    Median {
        /// The contestant, such as `baseline-loop`.
        contestant: &'static str,
        /// The metric, without phase prefix.
        metric: &'static str,
    },
}

impl ReferenceValue {
    /// The value in `summary` at `phase` (`None` without a sweep): `None` when a parameter is missing, a divisor
    /// is zero, or the contestant did not pass or measure the metric.
    pub fn value(&self, summary: &Summary, phase: Option<&str>) -> Option<f64> {
        let value = match *self {
            ReferenceValue::Param { key, times } => summary.param_in(phase, key)? * times as f64,
            ReferenceValue::Quotient { numerator, denominator, times } => {
                let below = summary.param_in(phase, denominator).filter(|d| *d != 0.0)?;
                summary.param_in(phase, numerator)? / below * times as f64
            }
            ReferenceValue::Median { contestant, metric } => {
                let stats = summary.metric(contestant, &crate::summary::metric_key(phase, metric))?;
                crate::stats::median(&stats.fork_medians).unwrap_or(stats.median)
            }
        };
        value.is_finite().then_some(value)
    }
}

/// A chart the report embeds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChartSpec {
    /// File stem: the chart is written to `img/<scenario>-<id>.svg`.
    pub id: &'static str,
    /// Title above the chart.
    pub title: &'static str,
    /// Metric plotted (without phase prefix), such as `ms_per_million`.
    pub metric: &'static str,
    /// Axis label with the unit.
    pub unit: &'static str,
    /// What kind of chart.
    pub kind: ChartKind,
    /// Whether the value axis is logarithmic.
    pub log_scale: bool,
    /// The reference lines it draws, each labelled with its value: every bound, ceiling, deadline or floor its
    /// title names is one of these.
    pub references: &'static [ChartReference],
}

/// What a scenario offers `lab calibrate`: a few contestants whose processes stand for classes of metric
/// ([`crate::calibration::MetricClass`]), run at fixed parameters in twice the lab's process count, so that their
/// A/A pairs measure the smallest ratio the judge can tell on this testbed.
#[derive(Debug, Clone, PartialEq)]
pub struct CalibrationSpec {
    /// The contestants, each run in `2F` fresh processes under the rotation of a real run.
    pub contestants: Vec<&'static str>,
    /// The metrics (without phase prefix) they stand for; each must be in a class of
    /// [`crate::calibration::class::CLASSES`].
    pub metrics: Vec<&'static str>,
    /// Parameters fixed for the calibration (one level of a sweep, a smaller size), by key; the others take the
    /// run's values (the full run's defaults, or `--quick`'s).
    pub params: Vec<(&'static str, u64)>,
    /// Seconds one trial process takes at these parameters in a full run on the 2-core testbed of the committed
    /// reports: what the estimate printed before anything runs counts.
    pub seconds_per_trial: f64,
    /// Why these contestants and sizes, in one sentence `calibration.md` prints.
    pub why: &'static str,
}

/// How many times a scenario's trials repeat unless the command line says otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Repetitions {
    /// Fresh processes per contestant and phase.
    pub forks: u32,
    /// Warm-up iterations per process, discarded.
    pub warmup: u32,
    /// Measured (timed) iterations per process.
    pub iterations: u32,
    /// Accounting iterations per process, after the timed ones: untimed, every instrument on (at least 1).
    pub accounting: u32,
}

impl Repetitions {
    /// The lab's default for a full run: 5 forks of 1 warm-up, 3 measured iterations and 1 accounting iteration.
    /// Five processes a side let a separation reach p = 0.004 (3 give 0.05); iterations within a process agree
    /// closely, so three of them are enough for its median.
    pub const STANDARD: Repetitions = Repetitions { forks: 5, warmup: 1, iterations: 3, accounting: 1 };
    /// The lab's default for `--quick`: 1 fork of 1 warm-up, 2 measured iterations and 1 accounting iteration.
    pub const QUICK: Repetitions = Repetitions { forks: 1, warmup: 1, iterations: 2, accounting: 1 };
}

/// Where a trial process sends what it measured; the lab's implementation writes each message at once.
pub trait TrialSink {
    /// One iteration finished.
    fn iteration(&mut self, record: IterationRecord);
    /// One correctness check ran.
    fn check(&mut self, check: Check);
    /// The trial cannot run on this machine; the reason is what the OS or library said.
    fn skipped(&mut self, reason: &str);
}

/// A [`TrialSink`] that keeps everything a trial reports, in order: for tests that run a trial in-process.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CollectingSink {
    /// Every iteration reported.
    pub iterations: Vec<IterationRecord>,
    /// Every check reported.
    pub checks: Vec<Check>,
    /// The reason given, if the trial was skipped.
    pub skipped: Option<String>,
}

impl TrialSink for CollectingSink {
    fn iteration(&mut self, record: IterationRecord) {
        self.iterations.push(record);
    }

    fn check(&mut self, check: Check) {
        self.checks.push(check);
    }

    fn skipped(&mut self, reason: &str) {
        self.skipped = Some(reason.to_string());
    }
}

/// Why a trial could not run at all.
#[derive(Debug, thiserror::Error)]
pub enum TrialError {
    /// The request named a contestant the scenario does not have.
    #[error("unknown contestant `{0}`")]
    UnknownContestant(String),
    /// A parameter the scenario needs is missing or out of range.
    #[error("bad parameter: {0}")]
    BadParam(String),
}

impl TrialRequest {
    /// The value of parameter `key` (its [`ParamSpec::key`]), or [`TrialError::BadParam`] saying it is missing.
    pub fn param(&self, key: &str) -> Result<u64, TrialError> {
        self.params.get(key).copied().ok_or_else(|| TrialError::BadParam(format!("`{key}` is missing")))
    }

    /// The value of parameter `key` as a `usize`, or [`TrialError::BadParam`] saying it is missing or does not
    /// fit.
    pub fn param_usize(&self, key: &str) -> Result<usize, TrialError> {
        let value = self.param(key)?;
        usize::try_from(value).map_err(|_| TrialError::BadParam(format!("`{key}` = {value} does not fit in usize")))
    }
}

/// A scenario of the lab: the same work written in each style, measured and judged.
pub trait Scenario: Send + Sync {
    /// Name on the command line, such as `chain`.
    fn name(&self) -> &'static str;
    /// Title of the report.
    fn title(&self) -> &'static str;
    /// The question the scenario answers, as a markdown paragraph.
    fn question(&self) -> &'static str;
    /// Its parameters.
    fn params(&self) -> Vec<ParamSpec>;
    /// Check constraints between parameters that each parameter's own range cannot express (such as a start
    /// value above a ceiling), on the run's resolved values; the error names the flags. The lab calls it before
    /// running anything and turns an error into a usage error (exit 2, nothing written).
    fn check_params(&self, params: &RunParams) -> Result<(), String> {
        let _ = params;
        Ok(())
    }
    /// Whether the sweeps' combination `phase` is one of the run's phases: a scenario whose sweeps do not all
    /// cross (a level that only makes sense beside certain others) drops the rest here, from the run's resolved
    /// values `params`. Every combination by default.
    fn keeps_phase(&self, phase: &TrialParams, params: &RunParams) -> bool {
        let _ = (phase, params);
        true
    }
    /// Every contestant, in the order reports list them.
    fn contestants(&self) -> Vec<ContestantInfo>;
    /// Contestants that run only when `--only` names them, never in a default run or `lab all`: variants kept to
    /// explain a measured gap (an A/B per suspected cause), which would lengthen the default run and clutter its
    /// report. `lab list` shows them apart. None by default.
    fn contestants_on_request(&self) -> Vec<ContestantInfo> {
        Vec::new()
    }
    /// The metric the headline and ratios use, such as `ms_per_million` (lower is better unless
    /// [`Scenario::higher_is_better`]).
    fn headline_metric(&self) -> &'static str;
    /// Whether a larger headline metric is better (`ops_per_sec`) rather than worse (`ms_per_million`).
    fn higher_is_better(&self) -> bool {
        false
    }
    /// Default repetitions of a full (`quick == false`) or `--quick` run. A scenario whose iterations last seconds
    /// (a dependency with a fixed service time) overrides this to stay within its run-time budget; `--forks`,
    /// `--warmup` and `--iterations` still win.
    fn repetitions(&self, quick: bool) -> Repetitions {
        if quick {
            Repetitions::QUICK
        } else {
            Repetitions::STANDARD
        }
    }
    /// The sizes of the runtimes and pools inside this scenario's trial processes (tokio's workers, rayon's pool,
    /// `may`'s carriers, its own placement of client and server), each with the code that decides it
    /// ([`crate::runtime_size`]), for every run's testbed to record. None by default.
    fn runtime_sizes(&self) -> Vec<crate::runtime_size::RuntimeSize> {
        Vec::new()
    }
    /// Metrics shown in the results table, in order.
    fn table_metrics(&self) -> Vec<&'static str>;
    /// Charts the report embeds.
    fn charts(&self) -> Vec<ChartSpec>;
    /// Run one trial in this (fresh) process: warm-ups, then measured iterations, reporting to `sink`.
    fn run_trial(&self, request: &TrialRequest, sink: &mut dyn TrialSink) -> Result<(), TrialError>;
    /// The program that runs `request`'s trial instead of the lab's trial process, for a contestant that runs as
    /// a program of its own (a standalone program that calibrates the lab's harness,
    /// [`crate::external`]); `None` for every contestant the lab runs itself (the default). The error says which
    /// parameter the program cannot be given.
    fn external(&self, request: &TrialRequest) -> Result<Option<crate::external::ExternalProgram>, TrialError> {
        let _ = request;
        Ok(None)
    }
    /// The scenario's claims as data, one row each, for the harness to judge ([`crate::judge::judge_all`]). The
    /// summary is given so that a claim's text and comparisons can name the run's parameters and phases; it
    /// must not be used to decide a verdict.
    fn claim_table(&self, summary: &Summary) -> Vec<ClaimSpec> {
        let _ = summary;
        Vec::new()
    }
    /// The verdicts of [`Scenario::claim_table`], judged by the harness's one judge. Scenarios declare their
    /// table and leave this as it is; a test double may return fixed verdicts.
    fn claims(&self, summary: &Summary) -> Vec<ClaimResult> {
        crate::judge::judge_all(summary, &self.claim_table(summary))
    }
    /// The scenario's findings as data: one row per sentence its report prints only where a verdict backs it
    /// (a batch that beats its per-item twin, a lab pair slower than its bare pair), judged by the harness's one
    /// judge into [`Summary::findings`] before anything renders, so that `lab compare`, the index and tests see
    /// them and a template only prints. The summary is given, as to [`Scenario::claim_table`], to name the run's
    /// phases and read its noise thresholds ([`crate::judge::beyond_noise`]); it must not decide a verdict.
    fn finding_table(&self, summary: &Summary) -> Vec<ClaimSpec> {
        let _ = summary;
        Vec::new()
    }
    /// The verdicts of [`Scenario::finding_table`], judged by the harness's one judge.
    fn findings(&self, summary: &Summary) -> Vec<ClaimResult> {
        crate::judge::judge_all(summary, &self.finding_table(summary))
    }
    /// The questions a practitioner brings to this scenario, each decided on its own metric with its guards
    /// ([`crate::question`]). Empty by default: the report then answers the one generic question, the best
    /// [`Scenario::headline_metric`] among the candidates.
    fn questions(&self) -> Vec<crate::question::Question> {
        Vec::new()
    }
    /// Markdown explaining what the numbers mean and what a reader should pick, given this summary.
    fn discussion(&self, summary: &Summary) -> String;
    /// The scenario's own sections of the appendix (`<scenario>-details.md`, markdown with `##` headings), placed
    /// before its harness cost: long tables a reader looks up rather than reads. Empty by default.
    fn details_discussion(&self, summary: &Summary) -> String {
        let _ = summary;
        String::new()
    }
    /// Further metrics a reader weighs beside the headline (overload's throughput after the drop beside its
    /// tail latency), each with whether higher is better: `lab compare` reads their direction, and the report's
    /// "Judged with" line states their noise thresholds.
    fn trade_off_metrics(&self) -> Vec<(&'static str, bool)> {
        Vec::new()
    }
    /// The contestants and metrics `lab calibrate` runs to measure this testbed's smallest detectable ratios,
    /// when the scenario offers some ([`CalibrationSpec`]). None by default.
    fn calibration(&self) -> Option<CalibrationSpec> {
        None
    }
    /// How this scenario answers a user's shape of work in `lab advise` (`rounds`: the shape's CPU work per item
    /// in rounds of the lab's [`CpuWork`](crate::advice::CpuWork)), or `None` where it does not: the default.
    fn advise(&self, shape: &crate::advice::Shape, rounds: u64) -> Option<crate::advice::Advice> {
        let _ = (shape, rounds);
        None
    }
    /// How CPU work per item maps onto this scenario's parameters, if `lab advise` may time it to express a
    /// user's CPU work. None by default.
    fn cpu_work(&self) -> Option<crate::advice::CpuWork> {
        None
    }
    /// Findings the generic headline (best contestant per phase on the headline metric) cannot see, one markdown
    /// sentence each, computed from the summary; the report's headline and the index show them after it.
    fn headline_notes(&self, summary: &Summary) -> Vec<String> {
        let _ = summary;
        Vec::new()
    }
}

/// `summary` judged by `scenario` as the harness judges every run before anything renders: its claims, its
/// findings and its questions' answers, each by the one judge. `lab` calls it on every summary it builds; a test
/// that renders a fixture summary calls it to see what a reader would.
pub fn judged(scenario: &dyn Scenario, mut summary: Summary) -> Summary {
    summary.claims = scenario.claims(&summary);
    summary.findings = scenario.findings(&summary);
    summary.questions = crate::question::answer_all(&summary, &scenario.questions());
    summary
}

/// Whether a trial process runs its contestant's conformance checks: only the first process (fork 0) of each
/// contestant and phase does. The checks' outcome does not depend on the process, and the other processes then
/// carry none of their threads, allocations or warmed pools; a `--quick` run has one process, so it checks too.
pub fn runs_conformance(request: &TrialRequest) -> bool {
    request.fork == 0
}

/// One trial's two parts, in this order: `measure` (the harness's loop: warm-ups, measured and accounting
/// iterations, and the checks made from them, such as every answer and the bound), then, in the process that
/// [`runs_conformance`], the contestant's conformance `checks`. Measuring first keeps every process's timed
/// iterations the first thing its contestant runs, untouched by what the checks leave behind (their threads,
/// allocations, a warmed pool); the checks still run when measuring reported a failure or a skip, as they did
/// when they came first. An error in `measure` (a bad parameter) ends the trial at once.
pub fn measure_then_check<I: IntoIterator<Item = Check>>(
    request: &TrialRequest,
    sink: &mut dyn TrialSink,
    measure: impl FnOnce(&mut dyn TrialSink) -> Result<(), TrialError>,
    checks: impl FnOnce() -> I,
) -> Result<(), TrialError> {
    measure(sink)?;
    if runs_conformance(request) {
        for check in checks() {
            sink.check(check);
        }
    }
    Ok(())
}

/// Prefix of per-process metrics that describe the harness, not the contestant: reports use them to state what
/// measuring cost, and leave them out of the contestant's results.
pub const HARNESS_METRIC_PREFIX: &str = "harness_";

/// Per-process metrics every trial reports when it ends: `peak_rss_mib`, from `VmHWM` (see [`crate::memory`]),
/// which the harness reset before the first measured iteration and held when its loop ended
/// ([`crate::harness::run`]), so it is the peak of the measured and accounting iterations, not of the conformance
/// checks after them ([`measure_then_check`]).
pub fn process_metrics() -> MetricValues {
    let mut metrics = MetricValues::new();
    if let Some(peak) = crate::memory::measured_peak_rss_mib() {
        metrics.insert("peak_rss_mib".to_string(), peak);
    }
    metrics
}

impl fmt::Debug for dyn Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scenario").field("name", &self.name()).finish_non_exhaustive()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A request for one quick trial of `baseline-loop` (no warm-up, one measured iteration) with `params`.
    pub(crate) fn request(params: &[(&str, u64)]) -> TrialRequest {
        TrialRequest {
            scenario: "test".to_string(),
            contestant: "baseline-loop".to_string(),
            phase: None,
            params: params.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            fork: 0,
            warmup: 0,
            iterations: 1,
            seed: 0,
            quick: true,
            accounting: 1,
        }
    }

    #[test]
    fn a_parameter_is_read_by_its_key() {
        let request = request(&[("items", 1_000), ("in_flight", 8)]);
        assert_eq!(request.param("items").ok(), Some(1_000));
        assert_eq!(request.param_usize("in_flight").ok(), Some(8));
    }

    #[test]
    fn a_missing_parameter_is_a_bad_parameter_naming_it() {
        let err = request(&[]).param_usize("batch").err().map(|e| e.to_string());
        assert_eq!(err.as_deref(), Some("bad parameter: `batch` is missing"));
    }

    #[test]
    fn a_value_beyond_usize_is_a_bad_parameter_naming_it() {
        let result = request(&[("capacity", u64::MAX)]).param_usize("capacity");
        if usize::BITS < u64::BITS {
            let err = result.err().map(|e| e.to_string());
            assert_eq!(err.as_deref(), Some("bad parameter: `capacity` = 18446744073709551615 does not fit in usize"));
        } else {
            assert_eq!(result.ok(), Some(usize::MAX));
        }
    }

    #[test]
    fn single_and_sweep_parameters_carry_their_values() {
        let single = ParamSpec::single("small-items", "Items.", 25_000, 10_000, 1, 100);
        assert_eq!(
            single,
            ParamSpec {
                name: "small-items",
                help: "Items.",
                default: vec![25_000],
                quick: vec![10_000],
                sweep: false,
                min: 1,
                max: 100
            }
        );
        assert_eq!(single.key(), "small_items");
        let sweep = ParamSpec::sweep("work", "Rounds.", &[0, 64], &[0], 0, 1_000);
        assert_eq!((sweep.default, sweep.quick, sweep.sweep), (vec![0, 64], vec![0], true));
    }

    #[test]
    fn a_reference_reads_its_value_from_the_run_at_the_phase() {
        let mut summary = crate::summary::tests::summary(Vec::new());
        summary.params.insert("limit".into(), serde_json::json!(16));
        summary.params.insert("service_us".into(), serde_json::json!(1000));
        summary.params.insert("rate".into(), serde_json::json!([15000, 30000]));
        summary.params.insert("zero".into(), serde_json::json!(0));
        let bound = ReferenceValue::Param { key: "limit", times: 1 };
        assert_eq!(bound.value(&summary, None), Some(16.0));
        let ceiling = ReferenceValue::Quotient { numerator: "limit", denominator: "service_us", times: 1_000_000 };
        assert_eq!(ceiling.value(&summary, None), Some(16_000.0));
        let rate = ReferenceValue::Param { key: "rate", times: 1 };
        assert_eq!(rate.value(&summary, Some("rate_30000")), Some(30_000.0));
        assert_eq!(rate.value(&summary, None), None, "no level without a phase");
        let by_zero = ReferenceValue::Quotient { numerator: "limit", denominator: "zero", times: 1 };
        assert_eq!(by_zero.value(&summary, None), None);
        let floor = ReferenceValue::Median { contestant: "baseline-loop", metric: "ms_per_million" };
        assert_eq!(floor.value(&summary, None), None, "a contestant that did not run has no floor");
    }
}
