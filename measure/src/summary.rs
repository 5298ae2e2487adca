//! The summary of a run (`<scenario>.json` in the contract): statistics per contestant and metric, checks and
//! claims, with the provenance needed to trust and regenerate them.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::record::{RunParams, Status};

// The statistics types live below both this summary and `stats`, which computes them.
pub use crate::metric_stats::{MetricStats, Outliers};
pub use crate::verdict::Verdict;

// What a contestant is, a check's outcome and a run's set-up live below both this summary and `record`, which
// carry them.
pub use crate::check::Check;
pub use crate::contestant::{ContestantInfo, Family, Role};
pub use crate::setup::{Environment, Method, Pin, Setting, Testbed};

/// What a run found about one contestant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContestantSummary {
    /// Contestant name.
    pub name: String,
    /// Its family.
    pub family: Family,
    /// What it is for: only candidates are ever picked (runs recorded before roles read as candidates).
    #[serde(default)]
    pub role: Role,
    /// One line saying exactly what it is.
    pub description: String,
    /// Why it is expected to fail its checks, when it is (see [`ContestantInfo::expected_failure`]): its
    /// failure is then a finding with this cause, not a defect of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_failure: Option<String>,
    /// The worst status over its trials.
    pub status: Status,
    /// Why it failed, timed out or was skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Every distinct check, failed ones first within a name; a check passes only if it passed in every trial.
    pub checks: Vec<Check>,
    /// Statistics per metric name (phase-prefixed where the scenario sweeps).
    pub metrics: BTreeMap<String, MetricStats>,
    /// Phases of a sweep this contestant was skipped at while it ran at others (the machine could not run that
    /// level), with the reason; its status then covers the phases it ran. Empty when nothing was skipped this
    /// way (a contestant skipped at every phase has status `skipped` instead).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub skipped_phases: BTreeMap<String, String>,
    /// What the busy-machine guard found over its measured iterations (`disturbed_iterations`,
    /// `disturbed_kept` in the JSON).
    #[serde(flatten, default)]
    pub disturbed: Disturbed,
}

impl ContestantSummary {
    /// A contestant named `name` of `family` that ran cleanly with `metrics`: a candidate with no description,
    /// checks, skipped phases or disturbance (set what a case needs with `ContestantSummary { .., ..ran(..) }`).
    pub fn ran(name: &str, family: Family, metrics: BTreeMap<String, MetricStats>) -> ContestantSummary {
        ContestantSummary {
            name: name.to_string(),
            family,
            role: Role::Candidate,
            description: String::new(),
            expected_failure: None,
            status: Status::Ok,
            reason: None,
            checks: Vec::new(),
            metrics,
            skipped_phases: BTreeMap::new(),
            disturbed: Disturbed::default(),
        }
    }
}

/// Measured iterations of one contestant that other processes disturbed ([`crate::busy`]), over all its trials.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Disturbed {
    /// Measured iterations the guard found disturbed, whether re-run or kept (0 in runs made before the guard).
    #[serde(default)]
    pub disturbed_iterations: u32,
    /// Of those, the ones still in the figures: disturbed again on their last allowed re-run.
    #[serde(default)]
    pub disturbed_kept: u32,
    /// Measured iterations kept in the figures that the guard judged (0 in runs made before the guard, or where
    /// `/proc/stat` could not be read).
    #[serde(default)]
    pub guarded_iterations: u32,
}

impl Disturbed {
    /// Count the measured (not warm-up, not accounting) iterations of `iterations`: each discarded re-run and each
    /// kept iteration that is still disturbed.
    pub fn count<'a>(iterations: impl IntoIterator<Item = &'a crate::record::IterationRecord>) -> Disturbed {
        let mut out = Disturbed::default();
        for it in iterations.into_iter().filter(|i| !i.warmup && !i.accounting) {
            out.disturbed_iterations += it.reruns + u32::from(it.disturbed);
            out.disturbed_kept += u32::from(it.disturbed);
            out.guarded_iterations += u32::from(it.others_cores.is_some());
        }
        out
    }

    /// Whether the guard found nothing.
    pub fn is_none(&self) -> bool {
        self.disturbed_iterations == 0
    }
}

/// A falsifiable statement a scenario makes about its results, and whether it held.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimResult {
    /// The claim's id within its scenario ([`crate::judge::ClaimSpec::id`]); empty for a record written before
    /// claims had ids.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub id: String,
    /// The statement.
    pub text: String,
    /// True only when the verdict is `holds`.
    pub holds: bool,
    /// Holds, fails or inconclusive.
    pub verdict: Verdict,
    /// The numbers behind the verdict.
    pub detail: String,
    /// The metric the claim compares, without phase prefix (empty for a claim not judged by the harness).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub metric: String,
    /// What that metric measures and over which window (steady window or whole run, for example).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub metric_definition: String,
    /// What the verdict was drawn from: process medians, the ranges of samples, or the worst sample.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub judged_on: String,
    /// The rule in words: relation, factor and basis (empty for a claim not judged by the harness).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub rule: String,
    /// The exact one-sided p of the verdict (Mann–Whitney at U = 0 over process medians, or a sign test against
    /// a fixed value; the largest of a claim's deciding comparisons); absent when inconclusive or judged on the
    /// worst sample.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p: Option<f64>,
    /// The claim guards the lab itself ([`crate::judge::ClaimSpec::guard`]): when it fails, the report is flagged
    /// at the top. Absent (false) for every claim about the contestants, and in runs judged before guards.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub guard: bool,
}

impl ClaimResult {
    /// A claim with its verdict and the numbers behind it.
    pub fn new(text: impl Into<String>, verdict: Verdict, detail: impl Into<String>) -> Self {
        ClaimResult {
            id: String::new(),
            text: text.into(),
            holds: verdict == Verdict::Holds,
            verdict,
            detail: detail.into(),
            metric: String::new(),
            metric_definition: String::new(),
            judged_on: String::new(),
            rule: String::new(),
            p: None,
            guard: false,
        }
    }

    /// A claim that must hold for every one of several comparisons: [`Verdict::combine`] of their verdicts (so
    /// no comparison at all is inconclusive), with each comparison's verdict and numbers as
    /// `<verdict> — <detail>`, joined by `; `.
    pub fn all_of(text: impl Into<String>, parts: impl IntoIterator<Item = (Verdict, String)>) -> Self {
        let mut verdicts = Vec::new();
        let mut details = Vec::new();
        for (verdict, detail) in parts {
            verdicts.push(verdict);
            details.push(format!("{} — {detail}", verdict.as_str()));
        }
        let detail = if details.is_empty() { "nothing to compare".to_string() } else { details.join("; ") };
        ClaimResult::new(text, Verdict::combine(verdicts), detail)
    }
}

/// The version of the summary JSON's shape, written in every summary (`schema_version`); raised when a field
/// changes meaning or goes away, never when one is added.
pub const SCHEMA_VERSION: u32 = 1;

/// The summary of one scenario run: `<scenario>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// The version of this file's shape ([`SCHEMA_VERSION`]; 0 in runs written before it was recorded).
    #[serde(default)]
    pub schema_version: u32,
    /// Scenario name.
    pub scenario: String,
    /// Version of the lab that ran.
    pub lab_version: String,
    /// Short git revision the binary that ran the run was built from, or `unknown`.
    pub git_rev: String,
    /// Whether that build's source had uncommitted changes.
    pub git_dirty: bool,
    /// Short git revision the binary that judged the claims and rendered this report was built from (differs
    /// from `git_rev` when `lab report` re-renders an older run), or `unknown`.
    #[serde(default)]
    pub render_git_rev: String,
    /// Whether the source of the rendering binary had uncommitted changes.
    #[serde(default)]
    pub render_git_dirty: bool,
    /// Start time, RFC 3339 UTC.
    pub started_utc: String,
    /// End time, RFC 3339 UTC; empty if the run was interrupted.
    pub finished_utc: String,
    /// The machine and toolchain.
    pub environment: Environment,
    /// Repetitions and noise threshold.
    pub method: Method,
    /// Parameters: a single value as a number, a sweep as a list.
    pub params: BTreeMap<String, serde_json::Value>,
    /// One entry per selected contestant, in registry order.
    pub contestants: Vec<ContestantSummary>,
    /// The scenario's claims and their verdicts.
    pub claims: Vec<ClaimResult>,
    /// The questions the scenario answers, each with its answer at every phase it applies to (empty for a
    /// scenario that declares none, and in runs recorded before questions existed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub questions: Vec<crate::answers::QuestionResult>,
    /// The scenario's findings and their verdicts: the sentences its report prints where a judged verdict
    /// backs them ([`crate::scenario::Scenario::finding_table`]), judged by the same judge as the claims but not
    /// listed among them (empty for a scenario that declares none, and in runs judged before findings were
    /// rows).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<ClaimResult>,
    /// The command that reproduces this run.
    pub command: String,
    /// The raw file, relative to the output folder.
    pub raw_file: String,
    /// Phases (sweep levels) in order, such as `["work_0", "work_64"]`; empty without a sweep.
    #[serde(default)]
    pub phases: Vec<String>,
    /// A paired run's answer (`--paired A,B`): A against B with its interval and the smallest ratio this pairing
    /// can tell ([`crate::calibration::paired`]); absent in any other run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paired: Option<crate::calibration::paired_answer::Paired>,
}

/// The key of `metric` in a phase: `<phase>.<metric>`, or `<metric>` without phases.
pub fn metric_key(phase: Option<&str>, metric: &str) -> String {
    match phase {
        Some(phase) => format!("{phase}.{metric}"),
        None => metric.to_string(),
    }
}

impl Summary {
    /// The phases to report: the run's, or one unnamed phase (`None`) when the scenario has no sweep.
    pub fn phase_keys(&self) -> Vec<Option<&str>> {
        if self.phases.is_empty() {
            vec![None]
        } else {
            self.phases.iter().map(|p| Some(p.as_str())).collect()
        }
    }

    /// The contestant named `name`, if it was selected.
    pub fn contestant(&self, name: &str) -> Option<&ContestantSummary> {
        self.contestants.iter().find(|c| c.name == name)
    }

    /// Statistics of `metric` for `contestant`, if that contestant ran ok and measured it.
    pub fn metric(&self, contestant: &str, metric: &str) -> Option<&MetricStats> {
        self.contestant(contestant).filter(|c| c.status == Status::Ok).and_then(|c| c.metrics.get(metric))
    }

    /// The median of `metric` for `contestant`, if that contestant ran ok and measured it: the figures accessor
    /// every report reads instead of a helper of its own.
    pub fn median(&self, contestant: &str, metric: &str) -> Option<f64> {
        self.metric(contestant, metric).map(|s| s.median)
    }

    /// The median of `metric` in sweep phase `phase` (such as `capacity_256`) for `contestant`, as
    /// [`Summary::median`] finds it under the phase's key `<phase>.<metric>`.
    pub fn median_in(&self, contestant: &str, phase: &str, metric: &str) -> Option<f64> {
        self.median(contestant, &metric_key(Some(phase), metric))
    }

    /// The run's parameter `key` (its JSON key, such as `service_ms`) when it took a single value.
    pub fn param(&self, key: &str) -> Option<f64> {
        self.params.get(key).and_then(serde_json::Value::as_f64)
    }

    /// The run's parameter `key` at `phase`: the level the phase's name gives it (`rate` is 30000 in
    /// `rate_30000`, `payload` 1024 in `count_1000-payload_1024`), else its single value ([`Summary::param`]).
    pub fn param_in(&self, phase: Option<&str>, key: &str) -> Option<f64> {
        let level = phase.and_then(|phase| crate::phase::PhaseKey::parse(phase)?.level(key));
        level.map(|level| level as f64).or_else(|| self.param(key))
    }

    /// The levels parameter `key` takes across the run's phases ([`crate::phase::PhaseKey::level`]), each once, in
    /// phase order: the capacities of `capacity_1`, `capacity_16`, …; empty when no phase sweeps `key`.
    pub fn levels(&self, key: &str) -> Vec<u64> {
        let mut levels = Vec::new();
        for level in self.phases.iter().filter_map(|p| crate::phase::PhaseKey::parse(p)?.level(key)) {
            if !levels.contains(&level) {
                levels.push(level);
            }
        }
        levels
    }

    /// The finding `id` of this run ([`Summary::findings`]), if the scenario declared it and the run judged it.
    pub fn finding(&self, id: &str) -> Option<&ClaimResult> {
        self.findings.iter().find(|f| f.id == id)
    }

    /// Whether the finding `id` holds: a report prints the sentence it backs only then.
    pub fn finding_holds(&self, id: &str) -> bool {
        self.finding(id).is_some_and(|f| f.verdict == Verdict::Holds)
    }

    /// Statistics of `metric` for `contestant` as [`Summary::metric`] finds them, or why there are none, in words
    /// a claim's detail can show: `<contestant> did not run`, `<contestant> did not run cleanly (<status>)` or
    /// `<contestant> has no <metric>`.
    pub fn stats(&self, contestant: &str, metric: &str) -> Result<&MetricStats, String> {
        match self.contestant(contestant) {
            None => Err(format!("{contestant} did not run")),
            Some(c) if c.status != Status::Ok => {
                Err(format!("{contestant} did not run cleanly ({})", c.status.as_str()))
            }
            Some(_) => self.metric(contestant, metric).ok_or_else(|| format!("{contestant} has no {metric}")),
        }
    }
}

/// Turn run parameters into the contract's JSON shape: one value as a number, several as a list.
pub fn params_json(params: &RunParams) -> BTreeMap<String, serde_json::Value> {
    params
        .iter()
        .map(|(k, v)| {
            let value = if v.len() == 1 { serde_json::Value::from(v[0]) } else { serde_json::Value::from(v.clone()) };
            (k.clone(), value)
        })
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    use Verdict::{Fails, Holds, Inconclusive};

    #[test]
    fn verdicts_are_spelt_as_in_the_contract() {
        for verdict in [Holds, Fails, Inconclusive] {
            assert_eq!(serde_json::to_value(verdict).ok(), Some(serde_json::Value::from(verdict.as_str())));
        }
    }

    #[test]
    fn the_worse_verdict_is_fails_then_inconclusive_then_holds() {
        assert_eq!(Holds.worse(Holds), Holds);
        assert_eq!(Holds.worse(Inconclusive), Inconclusive);
        assert_eq!(Inconclusive.worse(Fails), Fails);
        assert_eq!(Fails.worse(Holds), Fails);
        assert_eq!([].into_iter().fold(Holds, Verdict::worse), Holds, "folded from holds, no parts hold");
    }

    #[test]
    fn combined_verdicts_fail_first_and_need_every_part_to_hold() {
        assert_eq!(Verdict::combine([Holds, Fails, Inconclusive]), Fails);
        assert_eq!(Verdict::combine([Holds, Holds]), Holds);
        assert_eq!(Verdict::combine([Holds, Inconclusive]), Inconclusive);
        assert_eq!(Verdict::combine([]), Inconclusive, "no parts is no evidence");
    }

    #[test]
    fn a_claim_over_comparisons_takes_the_worst_and_lists_each() {
        let claim = ClaimResult::all_of(
            "every pair",
            [(Holds, "a 1.00".to_string()), (Inconclusive, "b did not run".to_string()), (Holds, "c 2.00".to_string())],
        );
        assert_eq!((claim.verdict, claim.holds), (Inconclusive, false));
        assert_eq!(claim.detail, "holds — a 1.00; inconclusive — b did not run; holds — c 2.00");
        let empty = ClaimResult::all_of("nothing to compare", []);
        assert_eq!((empty.verdict, empty.holds), (Inconclusive, false), "a claim with no parts does not hold");
    }

    /// A summary of a run of `contestants`, without parameters or phases.
    pub(crate) fn summary(contestants: Vec<ContestantSummary>) -> Summary {
        Summary {
            schema_version: crate::summary::SCHEMA_VERSION,
            scenario: "test".into(),
            lab_version: "test".into(),
            git_rev: "unknown".into(),
            git_dirty: false,
            render_git_rev: "unknown".into(),
            render_git_dirty: false,
            started_utc: String::new(),
            finished_utc: String::new(),
            environment: Environment::default(),
            method: Method {
                quick: true,
                forks: 1,
                warmup: 0,
                iterations: 1,
                accounting: 1,
                noise_threshold: 0.2,
                sdr: Default::default(),
                calibration: None,
                paired: Vec::new(),
                seed: 0,
                trial_timeout_s: 1.0,
            },
            params: BTreeMap::new(),
            contestants,
            claims: vec![],
            questions: vec![],
            findings: vec![],
            command: String::new(),
            raw_file: String::new(),
            phases: vec![],
            paired: None,
        }
    }

    fn contestant(name: &str, status: Status) -> ContestantSummary {
        let stats = MetricStats {
            median: 1.0,
            min: 1.0,
            max: 1.0,
            ci999: 0.0,
            ci95_low: None,
            ci95_high: None,
            samples: Vec::new(),
            n: 1,
            mean: 1.0,
            fork_medians: vec![],
            processes: 0,
            outliers: Default::default(),
        };
        let metrics = BTreeMap::from([("ms_per_million".to_string(), stats)]);
        ContestantSummary { status, ..ContestantSummary::ran(name, Family::Baseline, metrics) }
    }

    #[test]
    fn stats_say_why_there_are_none() {
        let summary = summary(vec![contestant("ok", Status::Ok), contestant("slow", Status::Timeout)]);
        assert_eq!(summary.stats("ok", "ms_per_million").map(|s| s.median), Ok(1.0));
        assert_eq!(summary.stats("ok", "threads").err().as_deref(), Some("ok has no threads"));
        assert_eq!(
            summary.stats("slow", "ms_per_million").err().as_deref(),
            Some("slow did not run cleanly (timeout)")
        );
        assert_eq!(summary.stats("gone", "ms_per_million").err().as_deref(), Some("gone did not run"));
    }

    #[test]
    fn a_parameter_at_a_phase_is_the_level_the_phase_names_else_the_runs_one_value() {
        let mut summary = summary(Vec::new());
        summary.params.insert("rate".into(), serde_json::json!([15000, 30000]));
        summary.params.insert("deadline_ms".into(), serde_json::json!(20));
        assert_eq!(summary.param_in(Some("rate_30000"), "rate"), Some(30000.0));
        assert_eq!(summary.param_in(Some("count_1000-rate_15000"), "rate"), Some(15000.0));
        assert_eq!(summary.param_in(None, "rate"), None, "a swept parameter has no single value");
        assert_eq!(summary.param_in(Some("rate_30000"), "deadline_ms"), Some(20.0));
        assert_eq!(summary.param_in(Some("rate_30000"), "missing"), None);
    }

    #[test]
    fn a_parameters_levels_are_read_from_the_phases_each_once_in_phase_order() {
        let mut summary = summary(Vec::new());
        let phases = ["count_1000-payload_64", "count_1000-payload_0", "count_10-payload_64"];
        summary.phases = phases.iter().map(|p| p.to_string()).collect();
        assert_eq!(summary.levels("count"), [1000, 10]);
        assert_eq!(summary.levels("payload"), [64, 0]);
        assert!(summary.levels("pay").is_empty(), "a key is matched whole");
    }
}
