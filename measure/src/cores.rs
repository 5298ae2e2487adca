//! Answers across core counts: one scenario run at several `--cores` counts on one testbed, each question's answer
//! and each claim's verdict side by side, and whether the answer survives the change of core count.
//!
//! A figure measured at one core count never stands for another: this module only sets the runs' own answers
//! beside each other, and reads each count's pick in every other count's own run. The rule ([`crossing`], then
//! [`judge`]) is strict: an answer **holds** only when, for every pair of core counts (a, b), the pick at a,
//! measured in the run at b, is at worst practically equal to the run at b's own pick on the question's metric
//! (within the run at b's threshold for that metric, [`crate::setup::Method::thresholds`], the lookup the judge
//! uses: the calibrated smallest detectable ratio of the metric's class, else the run's uncalibrated default), and
//! the same the other way round. A pick that is worse beyond that threshold in the other run, or fails one of the
//! question's guards there, means the answer **changes**, and each [`Crossing`] says by how much (the pick's figure
//! over the other run's pick's, in the other run, oriented so that above 1 is worse). An answer is **open** when
//! nothing changes but a pair cannot be read: a run gave no answer, or a pick did not run (was not selected, did
//! not run cleanly, or has no figure at that phase) at the other count, or that run cannot show it meets a guard.
//! That a run could not tell its pick from the other's, by overlapping processes, is no agreement: the rule reads
//! the figures, never the overlap.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::calibration::Threshold;
use crate::compare::practically_equal;
use crate::question::{behind, Answer, QuestionResult};
use crate::record::Status;
use crate::summary::{metric_key, Summary, Verdict};

/// Why a set of summaries cannot be set side by side.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AcrossError {
    /// Fewer than two summaries.
    #[error("answers across core counts need runs at two or more core counts, got {0}")]
    TooFew(usize),
    /// The summaries are of different scenarios.
    #[error("the runs are of different scenarios: `{0}` and `{1}`")]
    Scenarios(String, String),
    /// Two summaries ran at the same core count.
    #[error("two runs of `{scenario}` ran at {cores} core(s): give one run per core count")]
    SameCores {
        /// The scenario.
        scenario: String,
        /// The core count given twice.
        cores: u32,
    },
    /// The summaries came from different testbeds or builds.
    #[error("the runs of `{scenario}` came from different testbeds or builds ({field}: {a:?} vs {b:?}); a figure from one machine never stands beside another's here")]
    Testbed {
        /// The scenario.
        scenario: String,
        /// The field that differs.
        field: &'static str,
        /// Its value in the first run.
        a: String,
        /// Its value in the other.
        b: String,
    },
}

/// The core count a run measured at: its `--cores` pin, or every CPU the lab could use when it was not pinned.
pub fn cores_of(summary: &Summary) -> u32 {
    cores_in(&summary.environment)
}

/// The core count a run on `environment` measured at: its pin's, or every CPU the lab could use.
pub fn cores_in(environment: &crate::summary::Environment) -> u32 {
    environment.pin.as_ref().map_or(environment.cores, |p| p.cores)
}

/// One question's answers (at one phase) at every core count, and how they compare.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionAcross {
    /// The question's id (its anchor in each run's report).
    pub id: String,
    /// The question as a user asks it.
    pub ask: String,
    /// The phase, absent without a sweep.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// The deciding metric's key, without a phase prefix (empty in files written before it was recorded).
    #[serde(default)]
    pub metric: String,
    /// The deciding metric in a reader's words.
    #[serde(default)]
    pub metric_words: String,
    /// Whether a larger value of the metric is better.
    #[serde(default)]
    pub higher_is_better: bool,
    /// The answer at each core count, in ascending core count.
    pub stands: Vec<Stand>,
    /// Each core count's pick read in every other count's own run: for each pair of counts, ascending, the lower
    /// count's pick in the higher count's run, then the other way round (empty in files written before the rule
    /// was strict).
    #[serde(default)]
    pub crossings: Vec<Crossing>,
    /// Whether the answer survives the change of core count ([`judge`] of the crossings).
    pub across: Across,
}

/// A question's answer at one core count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stand {
    /// The core count.
    pub cores: u32,
    /// The pick, absent when no alternative met every guard or none ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pick: Option<String>,
    /// Whether the pick beat the next alternative in every process.
    pub apart: bool,
    /// The alternatives this run cannot tell from the pick (practically equal, or overlapping processes).
    pub tied: Vec<String>,
    /// The p of the pick against the next alternative, when it beat it in every process.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p: Option<f64>,
}

/// One core count's pick read in another core count's own run: one step of the rule across core counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Crossing {
    /// The core count whose run picked [`pick`](Self::pick).
    pub pick_cores: u32,
    /// The core count whose run it is read in.
    pub run_cores: u32,
    /// The pick at `pick_cores`, absent when that run gave no answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pick: Option<String>,
    /// The run at `run_cores`'s own pick, absent when it gave no answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_pick: Option<String>,
    /// `pick`'s median on the deciding metric in the run at `run_cores`, absent where it has none there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// `own_pick`'s median on the deciding metric in the same run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_value: Option<f64>,
    /// How many times worse `pick` is than `own_pick` in the run at `run_cores`, whichever way the metric points
    /// (`value / own_value`, or `own_value / value` when higher is better): above 1 worse, 1 the same pick.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub factor: Option<f64>,
    /// The threshold the run at `run_cores` judges the deciding metric with at this phase: within its ratio
    /// is practically equal.
    pub threshold: Threshold,
    /// What the rule reads from this pair.
    pub outcome: Outcome,
    /// The guard `pick` does not meet, or is not shown to meet, in the run at `run_cores` (its metric in words).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard: Option<String>,
}

/// What one [`Crossing`] reads: whether a pick stands in another core count's run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The run picked the same alternative.
    Same,
    /// The pick is within the run's threshold of the run's own pick, or better: practically equal at worst.
    Equal,
    /// The pick is worse than the run's own pick beyond the run's threshold: the answer changes.
    Loses,
    /// The pick fails one of the question's guards in the run, so it could not be the answer there: it changes.
    FailsGuard,
    /// The run cannot show that the pick meets one of the question's guards.
    GuardNotShown,
    /// One of the two runs gave no answer (no alternative met every guard, or none ran).
    NoAnswer,
    /// The pick was not among the run's alternatives (not selected there).
    NotInRun,
    /// The pick did not run cleanly in the run.
    DidNotRun,
    /// The pick ran cleanly but has no figure of the deciding metric at this phase in the run.
    NoFigure,
}

impl Outcome {
    /// What this pair alone says of the answer across core counts.
    pub fn across(self) -> Across {
        match self {
            Outcome::Same | Outcome::Equal => Across::Holds,
            Outcome::Loses | Outcome::FailsGuard => Across::Changes,
            Outcome::GuardNotShown | Outcome::NoAnswer | Outcome::NotInRun | Outcome::DidNotRun | Outcome::NoFigure => {
                Across::Open
            }
        }
    }
}

/// How the answers at different core counts compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Across {
    /// Every core count's pick is, in every other count's own run, at worst practically equal to that run's pick.
    Holds,
    /// Some core count's pick, in another count's own run, is worse than that run's pick beyond its threshold, or
    /// fails a guard there. `by-cores.json` spells it `flips`, the name it had before the rule was strict.
    #[serde(rename = "flips")]
    Changes,
    /// Nothing changes, but a pair cannot be read: a run gave no answer, or a pick did not run at another count.
    Open,
}

/// One claim's verdict at every core count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimAcross {
    /// The claim's id.
    pub id: String,
    /// Its text.
    pub text: String,
    /// Its verdict at each core count, in ascending core count (`None` where the run did not judge it).
    pub verdicts: Vec<(u32, Option<Verdict>)>,
    /// Whether it holds at one core count and fails at another.
    pub flips: bool,
}

/// A scenario's answers and claims across core counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AcrossCores {
    /// The scenario.
    pub scenario: String,
    /// The core counts, ascending.
    pub cores: Vec<u32>,
    /// Every question at every phase, in the first run's order.
    pub questions: Vec<QuestionAcross>,
    /// Every claim, in the first run's order.
    pub claims: Vec<ClaimAcross>,
    /// The revision of the code every run measured with (`<rev>`, or `<rev> (dirty)`): the runs share it.
    pub git_rev: String,
    /// Each run's raw file as its summary names it (`raw/<scenario>-<stamp>.jsonl`), in ascending core count: with
    /// the core count, the runs these answers come from, so that a report re-rendered with them is known to be one
    /// of them (the runs of one `--cores` list share a file name, each in its own folder).
    #[serde(default)]
    pub runs: Vec<String>,
    /// The cost model's term that changed most between the fewest and the most cores, for every contestant both
    /// runs modelled at a phase ([`crate::cost_model`]); empty for a scenario not modelled or a run without a floor.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cost_changes: Vec<CostChange>,
}

/// How one contestant's cost per item changed between two core counts, and the cost model's term that changed most.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostChange {
    /// The phase; `None` for a run without phases.
    pub phase: Option<String>,
    /// The contestant.
    pub contestant: String,
    /// The fewer and the more cores.
    pub cores: (u32, u32),
    /// Its measured nanoseconds per item at each.
    pub measured: (f64, f64),
    /// The model's prediction at each.
    pub predicted: (f64, f64),
    /// The term whose prediction changed most.
    pub term: crate::cost_model::Term,
    /// That term's change in nanoseconds per item, from the fewer cores to the more.
    pub term_change: f64,
}

/// [`CostChange`]s between `few` and `many`, for every contestant both modelled at a phase both ran.
fn cost_changes(few: &Summary, many: &Summary) -> Vec<CostChange> {
    let (Ok(from), Ok(to)) = (crate::cost_model::of_summary(few), crate::cost_model::of_summary(many)) else {
        return Vec::new();
    };
    let mut changes = Vec::new();
    for a in &from {
        let Some(b) = to.iter().find(|b| b.phase == a.phase) else { continue };
        for x in &a.fit.rows {
            let Some(y) = b.fit.rows.iter().find(|y| y.contestant == x.contestant) else { continue };
            let (term, term_change) = crate::cost_model::changed_most(&x.predicted, &y.predicted);
            changes.push(CostChange {
                phase: a.phase.clone(),
                contestant: x.contestant.clone(),
                cores: (cores_of(few), cores_of(many)),
                measured: (x.measured, y.measured),
                predicted: (x.predicted.total, y.predicted.total),
                term,
                term_change,
            });
        }
    }
    changes
}

impl AcrossCores {
    /// Whether the run with `raw_file` at `cores` is one of the runs set side by side.
    pub fn has_run(&self, raw_file: &str, cores: u32) -> bool {
        self.runs.iter().zip(&self.cores).any(|(r, &c)| r == raw_file && c == cores)
    }
}

/// `by-cores.json`: every scenario's answers across core counts, as `by-cores.md` shows them; `lab report
/// --by-cores` reads it to give each run's report its one line on whether its answers hold at the other counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ByCores {
    /// The file's schema version ([`BY_CORES_SCHEMA`]).
    pub schema_version: u32,
    /// The revision of the code every run here measured with, when they all share one (one sitting gives one);
    /// `None` when the scenarios' runs come from different revisions (each scenario's own is in it).
    pub git_rev: Option<String>,
    /// Each scenario set side by side, in the registry's order.
    pub scenarios: Vec<AcrossCores>,
}

/// The schema version of [`ByCores`].
pub const BY_CORES_SCHEMA: u32 = 1;

impl ByCores {
    /// The file for `scenarios`.
    pub fn new(scenarios: Vec<AcrossCores>) -> Self {
        let first = scenarios.first().map(|s| s.git_rev.clone());
        let git_rev = first.filter(|rev| scenarios.iter().all(|s| &s.git_rev == rev));
        ByCores { schema_version: BY_CORES_SCHEMA, git_rev, scenarios }
    }

    /// The answers of `scenario` whose runs include the one with `raw_file` at `cores`.
    pub fn of_run(&self, scenario: &str, raw_file: &str, cores: u32) -> Option<&AcrossCores> {
        self.scenarios.iter().find(|s| s.scenario == scenario && s.has_run(raw_file, cores))
    }
}

/// The revision of the code a run measured with: `<rev>`, or `<rev> (dirty)`.
fn revision(s: &Summary) -> String {
    format!("{}{}", s.git_rev, if s.git_dirty { " (dirty)" } else { "" })
}

/// The testbed and build fields two runs must share to be set side by side (the pin aside).
fn testbed_fields(s: &Summary) -> [(&'static str, String); 7] {
    let e = &s.environment;
    [
        ("code revision", revision(s)),
        ("cpu model", e.cpu_model.clone()),
        ("memory", format!("{} GiB", e.memory_gib)),
        ("kernel", e.kernel.clone()),
        ("rustc", e.rustc.clone()),
        ("build profile", e.build_profile.clone()),
        ("quick", s.method.quick.to_string()),
    ]
}

/// Set `runs` (one scenario at two or more core counts, on one testbed and build) side by side.
pub fn across(runs: &[&Summary]) -> Result<AcrossCores, AcrossError> {
    if runs.len() < 2 {
        return Err(AcrossError::TooFew(runs.len()));
    }
    let mut runs: Vec<&Summary> = runs.to_vec();
    runs.sort_by_key(|s| cores_of(s));
    let first = runs[0];
    for pair in runs.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if a.scenario != b.scenario {
            return Err(AcrossError::Scenarios(a.scenario.clone(), b.scenario.clone()));
        }
        if cores_of(a) == cores_of(b) {
            return Err(AcrossError::SameCores { scenario: a.scenario.clone(), cores: cores_of(a) });
        }
        for ((field, x), (_, y)) in testbed_fields(a).into_iter().zip(testbed_fields(b)) {
            if x != y {
                return Err(AcrossError::Testbed { scenario: a.scenario.clone(), field, a: x, b: y });
            }
        }
    }
    let mut questions = Vec::new();
    for question in &first.questions {
        for answer in &question.answers {
            let phase = answer.phase.as_deref();
            let answers: Vec<Option<&Answer>> = runs.iter().map(|run| answer_of(run, &question.id, phase)).collect();
            let stands: Vec<Stand> =
                runs.iter().zip(&answers).map(|(run, found)| stand(cores_of(run), *found)).collect();
            let mut crossings = Vec::new();
            for (i, a) in runs.iter().enumerate() {
                for (j, b) in runs.iter().enumerate().skip(i + 1) {
                    let pick = |k: usize| answers[k].and_then(|x| x.pick.as_deref());
                    crossings.push(crossing(question, phase, cores_of(a), pick(i), b));
                    crossings.push(crossing(question, phase, cores_of(b), pick(j), a));
                }
            }
            questions.push(QuestionAcross {
                id: question.id.clone(),
                ask: question.ask.clone(),
                phase: answer.phase.clone(),
                metric: question.metric.clone(),
                metric_words: question.metric_words.clone(),
                higher_is_better: question.higher_is_better,
                stands,
                across: judge(&crossings),
                crossings,
            });
        }
    }
    let claims = first
        .claims
        .iter()
        .map(|claim| {
            let verdicts: Vec<(u32, Option<Verdict>)> = runs
                .iter()
                .map(|run| (cores_of(run), run.claims.iter().find(|c| c.id == claim.id).map(|c| c.verdict)))
                .collect();
            let has = |v: Verdict| verdicts.iter().any(|(_, x)| *x == Some(v));
            ClaimAcross {
                id: claim.id.clone(),
                text: claim.text.clone(),
                flips: has(Verdict::Holds) && has(Verdict::Fails),
                verdicts,
            }
        })
        .collect();
    Ok(AcrossCores {
        scenario: first.scenario.clone(),
        cores: runs.iter().map(|s| cores_of(s)).collect(),
        questions,
        claims,
        runs: runs.iter().map(|s| s.raw_file.clone()).collect(),
        git_rev: revision(first),
        cost_changes: runs.last().map_or_else(Vec::new, |last| cost_changes(first, last)),
    })
}

/// The answer of `run` to the question `id` at `phase`, if it answered it.
fn answer_of<'s>(run: &'s Summary, id: &str, phase: Option<&str>) -> Option<&'s Answer> {
    run.questions.iter().find(|q| q.id == id).and_then(|q| q.answers.iter().find(|a| a.phase.as_deref() == phase))
}

/// A question's answer at `cores`, from the run's answer (absent when the run did not answer it).
fn stand(cores: u32, answer: Option<&Answer>) -> Stand {
    let Some(answer) = answer else {
        return Stand { cores, pick: None, apart: false, tied: Vec::new(), p: None };
    };
    let beaten = answer.beats.as_ref().filter(|b| b.verdict == Verdict::Holds);
    Stand {
        cores,
        pick: answer.pick.clone(),
        apart: answer.pick.is_some() && answer.equal.is_empty() && answer.cannot_tell.is_empty() && beaten.is_some(),
        tied: answer.equal.iter().chain(&answer.cannot_tell).cloned().collect(),
        p: beaten.and_then(|b| b.p),
    }
}

/// The rule's one step: `pick` (the answer to `question` at `phase` at `pick_cores`, absent when that run gave
/// none) read in `run`'s own answer. The pick stands when it is `run`'s own pick, or when its median there is at
/// worst practically equal to the own pick's: [`practically_equal`] under `run`'s threshold for the metric
/// ([`crate::setup::Method::thresholds`]), the very test by which `run` counts an alternative practically equal
/// to its pick (`|value ÷ own value − 1|` below the ratio less 1), or better. It loses beyond that threshold, and fails where `run`
/// excluded it on a guard; when either run gave no answer or the pick has no figure in `run`, the pair is open.
pub fn crossing(
    question: &QuestionResult,
    phase: Option<&str>,
    pick_cores: u32,
    pick: Option<&str>,
    run: &Summary,
) -> Crossing {
    let key = metric_key(phase, &question.metric);
    let threshold = run.method.thresholds().for_metric(&key);
    let asked = run.questions.iter().find(|q| q.id == question.id);
    let own = asked.and_then(|q| q.answers.iter().find(|a| a.phase.as_deref() == phase));
    let own_pick = own.and_then(|a| a.pick.as_deref());
    let figure = |name: &str| run.metric(name, &key).map(|s| s.median).filter(|m| m.is_finite());
    let (value, own_value) = (pick.and_then(figure), own_pick.and_then(figure));
    let factor = value.zip(own_value).map(|(v, o)| if v == o { 1.0 } else { behind(v, o, question.higher_is_better) });
    let mut guard = None;
    let outcome = match (pick, own_pick, own) {
        (Some(pick), Some(own_pick), Some(own)) => {
            let contestant = run.contestant(pick);
            let excluded = own.excluded.iter().find(|e| e.name == pick);
            if pick == own_pick {
                Outcome::Same
            } else if contestant.is_none() || asked.is_some_and(|q| !q.alternatives.iter().any(|a| a == pick)) {
                Outcome::NotInRun
            } else if contestant.is_some_and(|c| c.status != Status::Ok) {
                Outcome::DidNotRun
            } else if let Some(excluded) = excluded {
                guard = Some(excluded.guard.clone());
                if excluded.verdict == Verdict::Fails {
                    Outcome::FailsGuard
                } else {
                    Outcome::GuardNotShown
                }
            } else {
                match (value, own_value, factor) {
                    (Some(v), Some(o), Some(f)) if f <= 1.0 || practically_equal(v / o, threshold.fraction()) => {
                        Outcome::Equal
                    }
                    (Some(_), Some(_), Some(_)) => Outcome::Loses,
                    _ => Outcome::NoFigure,
                }
            }
        }
        _ => Outcome::NoAnswer,
    };
    Crossing {
        pick_cores,
        run_cores: cores_of(run),
        pick: pick.map(str::to_string),
        own_pick: own_pick.map(str::to_string),
        value,
        own_value,
        factor,
        threshold,
        outcome,
        guard,
    }
}

/// How the answers compare across core counts, from every [`Crossing`] of them: [`Across::Changes`] when any
/// pick loses or fails a guard at another count, else [`Across::Open`] when any pair cannot be read, else
/// [`Across::Holds`].
pub fn judge(crossings: &[Crossing]) -> Across {
    let states: Vec<Across> = crossings.iter().map(|c| c.outcome.across()).collect();
    if states.contains(&Across::Changes) {
        Across::Changes
    } else if states.contains(&Across::Open) {
        Across::Open
    } else {
        Across::Holds
    }
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::compare::Relation;
    use crate::question::{answer_all, Alternatives, Guard, Limit, Question};
    use crate::setup::Pin;
    use crate::summary::{ContestantSummary, Family};

    /// The deciding metric of the fixtures: a cost per item, lower is better, of the calibrated class `per_item`.
    const MS: &str = "ms_per_million";
    /// The deciding metric of the fixtures where higher is better: calls per second.
    const OPS: &str = "ops_per_sec";

    /// Five process medians around `value` (its median), 0.2% apart: each run's processes are tight.
    fn around(value: f64) -> Vec<f64> {
        (0..5).map(|i| value * (1.0 + 0.002 * (i as f64 - 2.0))).collect()
    }

    fn contestant(name: &str, metrics: &[(&str, f64)]) -> ContestantSummary {
        let stats = |value: f64| crate::question::tests::stats(&around(value));
        let metrics = metrics.iter().map(|(key, value)| (key.to_string(), stats(*value))).collect();
        ContestantSummary::ran(name, Family::Stream, metrics)
    }

    fn which(metric: &'static str, higher_is_better: bool) -> Question {
        Question::new("which", "Which one?", Alternatives::Candidates, metric, "time", higher_is_better)
    }

    /// A run pinned to `cores` of `contestants`, with `question` answered.
    fn run_of(cores: u32, contestants: Vec<ContestantSummary>, question: &Question) -> Summary {
        let mut s = crate::summary::tests::summary(contestants);
        s.environment.pin = Some(Pin { cores, cpus: (0..cores as usize).collect() });
        s.questions = answer_all(&s, std::slice::from_ref(question));
        s
    }

    /// A run pinned to `cores` where `a` and `b` take these medians of `ms_per_million`, its question answered.
    fn run(cores: u32, a: f64, b: f64) -> Summary {
        run_of(cores, vec![contestant("a", &[(MS, a)]), contestant("b", &[(MS, b)])], &which(MS, false))
    }

    /// The one question's comparison across `runs`.
    fn question(runs: &[&Summary]) -> QuestionAcross {
        across(runs).expect("side by side").questions.remove(0)
    }

    /// The crossing of the pick at `pick_cores` into the run at `run_cores`.
    fn crossed(q: &QuestionAcross, pick_cores: u32, run_cores: u32) -> &Crossing {
        q.crossings.iter().find(|c| c.pick_cores == pick_cores && c.run_cores == run_cores).expect("crossed")
    }

    fn close(a: Option<f64>, b: f64) -> bool {
        a.is_some_and(|a| (a - b).abs() < 1e-3 * b)
    }

    #[test]
    fn the_same_pick_at_every_core_count_holds() {
        let q = question(&[&run(1, 10.0, 20.0), &run(2, 10.0, 20.0)]);
        assert_eq!(q.across, Across::Holds);
        assert_eq!(q.crossings.len(), 2, "each count's pick in the other's run");
        assert!(q.crossings.iter().all(|c| c.outcome == Outcome::Same && c.factor == Some(1.0)), "{q:?}");
    }

    #[test]
    fn different_picks_each_practically_equal_in_the_other_run_hold() {
        // 1 core picks `a`, 2 cores pick `b`; each is 5% behind the other's pick in the other's run, within 1.2×.
        let q = question(&[&run(1, 10.0, 10.5), &run(2, 10.5, 10.0)]);
        assert_eq!(q.stands.iter().map(|s| s.pick.as_deref()).collect::<Vec<_>>(), [Some("a"), Some("b")]);
        assert_eq!(q.across, Across::Holds, "{q:?}");
        for c in &q.crossings {
            assert_eq!(c.outcome, Outcome::Equal, "{c:?}");
            assert!(close(c.factor, 1.05), "{c:?}");
            assert!(!c.threshold.calibrated() && (c.threshold.ratio - 1.2).abs() < 1e-12, "{c:?}");
        }
    }

    #[test]
    fn a_pick_five_times_worse_in_the_other_run_changes_though_the_other_run_could_not_tell_them_apart() {
        // The device at 10k in flight: calls per second, higher is better. On 1 core the unconstrained shape serves
        // 792,586 calls/s and the per-worker one 157,362; on 2 cores the per-worker one leads, 947,359 against
        // 828,130, within 1.2×.
        let q = which(OPS, true);
        let two_shapes = |cores: u32, unconstrained: f64, per_worker: f64| {
            let shapes = vec![
                contestant("unconstrained", &[(OPS, unconstrained)]),
                contestant("per-worker", &[(OPS, per_worker)]),
            ];
            run_of(cores, shapes, &q)
        };
        let (one, two) = (two_shapes(1, 792_585.6, 157_361.7), two_shapes(2, 828_129.8, 947_359.2));
        let q = question(&[&one, &two]);
        assert_eq!(q.stands[0].pick.as_deref(), Some("unconstrained"));
        assert_eq!(q.stands[1].pick.as_deref(), Some("per-worker"));
        assert_eq!(
            q.stands[1].tied,
            ["unconstrained"],
            "the lax rule agreed: 2 cores cannot tell its pick from 1 core's"
        );
        assert_eq!(q.across, Across::Changes, "{q:?}");
        let at_one = crossed(&q, 2, 1);
        assert_eq!(at_one.outcome, Outcome::Loses);
        assert_eq!(at_one.pick.as_deref(), Some("per-worker"));
        assert_eq!(at_one.own_pick.as_deref(), Some("unconstrained"));
        assert!(close(at_one.factor, 5.037), "792,586 ÷ 157,362, higher is better: {at_one:?}");
        assert!(close(at_one.value, 157_361.7) && close(at_one.own_value, 792_585.6), "both figures: {at_one:?}");
        let at_two = crossed(&q, 1, 2);
        assert_eq!(at_two.outcome, Outcome::Equal);
        assert!(close(at_two.factor, 947_359.2 / 828_129.8), "{at_two:?}");
    }

    #[test]
    fn a_gain_at_two_cores_that_vanishes_at_one_changes() {
        // The chain at work 64: on 1 core the loop (61.18 ms/M) and rayon (62.25) are practically equal; on 2 cores
        // rayon takes 27.78 and the loop 54.46, 1.96× behind.
        let q = which(MS, false);
        let two = |cores: u32, looped: f64, rayon: f64| {
            run_of(cores, vec![contestant("loop", &[(MS, looped)]), contestant("rayon", &[(MS, rayon)])], &q)
        };
        let q = question(&[&two(2, 54.46, 27.78), &two(1, 61.18, 62.25)]);
        assert_eq!(q.stands.iter().map(|s| s.pick.as_deref()).collect::<Vec<_>>(), [Some("loop"), Some("rayon")]);
        let at_one = crossed(&q, 2, 1);
        assert_eq!(at_one.outcome, Outcome::Equal, "rayon is within 1.2× of the loop on 1 core: {at_one:?}");
        assert!(close(at_one.factor, 62.25 / 61.18), "{at_one:?}");
        let at_two = crossed(&q, 1, 2);
        assert_eq!(at_two.outcome, Outcome::Loses, "{at_two:?}");
        assert!(close(at_two.factor, 54.46 / 27.78) && close(at_two.value, 54.46) && close(at_two.own_value, 27.78));
        assert_eq!(q.across, Across::Changes);
    }

    #[test]
    fn practically_equal_reads_the_calibration_of_the_run_the_pick_is_read_in() {
        let (mut one, mut two) = (run(1, 10.0, 10.5), run(2, 10.5, 10.0));
        assert_eq!(question(&[&one, &two]).across, Across::Holds, "5% apart, within the default 1.2×");
        // Calibrated on this testbed, a cost per item tells 1.02× apart: 5% is beyond it, in either run.
        one.method.sdr.insert("per_item".to_string(), 1.02);
        let q = question(&[&one, &two]);
        let at_one = crossed(&q, 2, 1);
        assert_eq!(
            (at_one.outcome, at_one.threshold.ratio, at_one.threshold.calibrated()),
            (Outcome::Loses, 1.02, true)
        );
        let at_two = crossed(&q, 1, 2);
        assert_eq!(
            (at_two.outcome, at_two.threshold.calibrated()),
            (Outcome::Equal, false),
            "the 2-core run's own default"
        );
        assert_eq!(q.across, Across::Changes);
        two.method.sdr.insert("per_item".to_string(), 1.10);
        let q = question(&[&one, &two]);
        assert_eq!((crossed(&q, 1, 2).outcome, crossed(&q, 1, 2).threshold.ratio), (Outcome::Equal, 1.10));
    }

    #[test]
    fn a_pick_that_fails_a_guard_at_the_other_count_changes() {
        let q = which(MS, false).guarded(Guard {
            metric: "mb",
            words: "memory",
            relation: Relation::AtMost,
            limit: Limit::Value(100.0),
            why: "it must fit",
        });
        let one = run_of(
            1,
            vec![contestant("a", &[(MS, 10.0), ("mb", 50.0)]), contestant("b", &[(MS, 11.0), ("mb", 50.0)])],
            &q,
        );
        let two = run_of(
            2,
            vec![contestant("a", &[(MS, 5.0), ("mb", 500.0)]), contestant("b", &[(MS, 10.0), ("mb", 50.0)])],
            &q,
        );
        let q = question(&[&one, &two]);
        let at_two = crossed(&q, 1, 2);
        assert_eq!((at_two.outcome, at_two.guard.as_deref()), (Outcome::FailsGuard, Some("memory")), "{at_two:?}");
        assert!(close(at_two.factor, 0.5), "faster, but never the answer there: {at_two:?}");
        assert_eq!(q.across, Across::Changes);
    }

    #[test]
    fn a_run_without_an_answer_or_a_pick_that_did_not_run_leaves_it_open_and_says_which() {
        let mut failed = run(2, 10.0, 20.0);
        for c in &mut failed.contestants {
            c.status = Status::Failed;
        }
        failed.questions = answer_all(&failed, &[which(MS, false)]);
        let q = question(&[&run(1, 10.0, 20.0), &failed]);
        assert_eq!(q.across, Across::Open);
        assert!(q.crossings.iter().all(|c| c.outcome == Outcome::NoAnswer), "{q:?}");

        // 2 cores ran `b` only: 1 core's pick `a` did not run there, and `b` is within 1.2× of `a` on 1 core.
        let only_b = run_of(2, vec![contestant("b", &[(MS, 10.0)])], &which(MS, false));
        let q = question(&[&run(1, 10.0, 11.0), &only_b]);
        assert_eq!((crossed(&q, 1, 2).outcome, crossed(&q, 2, 1).outcome), (Outcome::NotInRun, Outcome::Equal));
        assert_eq!(q.across, Across::Open);

        // Where another pair changes, the answer changes, whatever is open.
        let q = question(&[&run(1, 10.0, 20.0), &only_b]);
        assert_eq!((crossed(&q, 2, 1).outcome, q.across), (Outcome::Loses, Across::Changes));
    }

    #[test]
    fn three_core_counts_read_every_pair_both_ways() {
        let q = question(&[&run(4, 10.0, 10.5), &run(1, 10.0, 10.5), &run(2, 10.0, 10.5)]);
        let pairs: Vec<(u32, u32)> = q.crossings.iter().map(|c| (c.pick_cores, c.run_cores)).collect();
        assert_eq!(pairs, [(1, 2), (2, 1), (1, 4), (4, 1), (2, 4), (4, 2)]);
        assert_eq!(q.across, Across::Holds);
    }

    #[test]
    fn the_changed_answer_keeps_its_old_spelling_in_the_file() {
        assert_eq!(serde_json::to_value(Across::Changes).ok(), Some(serde_json::Value::from("flips")));
        let old: Across = serde_json::from_str("\"flips\"").expect("read");
        assert_eq!(old, Across::Changes);
    }

    #[test]
    fn a_file_written_before_the_strict_rule_still_reads() {
        // A question as `by-cores.json` carried it before: no metric, no crossings, `flips` for a changed answer.
        let old = r#"{"schema_version": 1, "git_rev": "abc", "scenarios": [{"scenario": "chain", "cores": [1, 2],
            "questions": [{"id": "collection", "ask": "Which?", "phase": "work_64", "stands": [
                {"cores": 1, "pick": "a", "apart": true, "tied": [], "p": 0.004},
                {"cores": 2, "pick": "b", "apart": true, "tied": [], "p": 0.004}], "across": "flips"}],
            "claims": [], "git_rev": "abc", "runs": ["raw/chain-1.jsonl", "raw/chain-1.jsonl"]}]}"#;
        let file: ByCores = serde_json::from_str(old).expect("an older by-cores.json reads");
        let q = &file.scenarios[0].questions[0];
        assert_eq!((q.across, q.crossings.len(), q.metric.as_str()), (Across::Changes, 0, ""));
    }

    #[test]
    fn runs_that_cannot_stand_side_by_side_are_refused() {
        let one = run(1, 10.0, 20.0);
        assert_eq!(across(&[&one]), Err(AcrossError::TooFew(1)));
        assert!(matches!(across(&[&one, &one.clone()]), Err(AcrossError::SameCores { cores: 1, .. })));
        let mut other = run(2, 10.0, 20.0);
        other.environment.kernel = "another".into();
        assert!(matches!(across(&[&one, &other]), Err(AcrossError::Testbed { field: "kernel", .. })));
        let mut later = run(2, 10.0, 20.0);
        later.git_rev = "another".into();
        assert!(matches!(across(&[&one, &later]), Err(AcrossError::Testbed { field: "code revision", .. })));
        let same = run(2, 10.0, 20.0);
        let answers = across(&[&one, &same]).expect("one revision");
        assert_eq!(ByCores::new(vec![answers]).git_rev.as_deref(), Some(revision(&one).as_str()));
        let mut elsewhere = run(2, 10.0, 20.0);
        elsewhere.scenario = "other".into();
        assert!(matches!(across(&[&one, &elsewhere]), Err(AcrossError::Scenarios(..))));
    }

    #[test]
    fn the_pick_that_changes_beyond_noise_between_core_counts_changes() {
        let (one, two) = (run(1, 10.0, 20.0), run(2, 20.0, 10.0));
        let across = across(&[&two, &one]).expect("side by side");
        assert_eq!(across.cores, [1, 2], "in ascending core count, whatever the order given");
        let q = &across.questions[0];
        assert_eq!(q.stands.iter().map(|s| s.pick.as_deref()).collect::<Vec<_>>(), [Some("a"), Some("b")]);
        assert!(q.stands.iter().all(|s| s.apart && s.p.is_some()), "{q:?}");
        assert_eq!(q.across, Across::Changes);
        assert!(q.crossings.iter().all(|c| c.outcome == Outcome::Loses && close(c.factor, 2.0)), "{q:?}");
    }

    #[test]
    fn the_cost_model_names_the_term_that_changed_between_core_counts() {
        use crate::cost_model::{Term, HAND_OFFS_METRIC};
        let figure = |key: &str, ns: f64| crate::setup::FloorFigure::of_processes(key, "", vec![ns], &[]);
        let floor = crate::setup::FloorUse {
            file: "floor.json".to_string(),
            figures: [("loop_item", 1.0), ("spsc_ring_item", 5.0), ("wake_same_cpu", 800.0)]
                .into_iter()
                .chain([("wake_across_cpus", 20_000.0), ("alloc_free", 20.0)])
                .map(|(k, ns)| figure(k, ns))
                .collect(),
            ..Default::default()
        };
        // `a` hands one item per message at both counts; on two cores it switches context every 40 items.
        let modelled = |cores: u32, ns: f64, switches: f64| {
            let metrics =
                [(MS, ns), (HAND_OFFS_METRIC, 1.0), ("ctx_switches_per_item", switches), ("allocs_per_item", 0.0)];
            let mut run = run_of(cores, vec![contestant("a", &metrics)], &which(MS, false));
            run.environment.floor = Some(floor.clone());
            run
        };
        let (one, two) = (modelled(1, 35.0, 0.0001), modelled(2, 69.0, 0.025));
        let both = across(&[&two, &one]).expect("side by side");
        let [change] = both.cost_changes.as_slice() else { panic!("{:?}", both.cost_changes) };
        assert_eq!((change.contestant.as_str(), change.cores), ("a", (1, 2)));
        assert_eq!(change.measured, (35.0, 69.0));
        assert_eq!(change.term, Term::WakeUps);
        assert!((change.term_change - (0.025 * 20_000.0 - 0.0001 * 800.0)).abs() < 1e-6, "{change:?}");
        let unmodelled = across(&[&run(1, 1.0, 2.0), &run(2, 1.0, 2.0)]).expect("side by side");
        assert!(unmodelled.cost_changes.is_empty());
    }

    /// The committed runs of `scenario` at 1 core (`reports/cores-1`) and 2 cores (`reports`), side by side.
    fn committed(scenario: &str) -> AcrossCores {
        let reports = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports");
        let read = |path: std::path::PathBuf| -> Summary {
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        };
        let one = read(reports.join("cores-1").join(format!("{scenario}.json")));
        let two = read(reports.join(format!("{scenario}.json")));
        across(&[&one, &two]).expect("side by side")
    }

    /// Every committed answer across core counts follows the rule from its own crossings, whatever the sitting
    /// measured: it changes exactly when some count's pick loses beyond the other run's threshold or fails a guard
    /// there, a pick that loses is worse by more than that threshold, and one read as equal by no more.
    #[test]
    fn the_committed_answers_across_core_counts_follow_the_rule_from_their_crossings() {
        for scenario in ["chain", "handoff", "device", "tcp", "service"] {
            let across = committed(scenario);
            assert!(!across.questions.is_empty(), "{scenario}: answers side by side");
            for q in &across.questions {
                let changes = q.crossings.iter().any(|c| c.outcome.across() == Across::Changes);
                assert_eq!(q.across == Across::Changes, changes, "{scenario}: {q:?}");
                for c in &q.crossings {
                    let factor = c.factor.unwrap_or(f64::INFINITY);
                    match c.outcome {
                        Outcome::Loses => assert!(factor > c.threshold.ratio, "{scenario}: {c:?}"),
                        Outcome::Equal => assert!(factor <= c.threshold.ratio + 1e-9, "{scenario}: {c:?}"),
                        _ => {}
                    }
                }
            }
        }
    }
}
