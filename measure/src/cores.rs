//! Answers across core counts: one scenario run at several `--cores` counts on one testbed, each question's answer
//! and each claim's verdict side by side, and whether the answer survives the change of core count.
//!
//! A figure measured at one core count never stands for another: this module only sets the runs' own answers
//! beside each other. Two answers **agree** when they pick the same alternative, or when either run cannot tell its
//! pick from the other's (the other's pick is practically equal to it, or their processes overlap). The answer
//! **flips** when both runs picked beyond noise (the pick beat the next alternative in every process) and the picks
//! differ. Anything else (a run without an answer, or picks that differ while a run could not separate them) is
//! **open**: this run cannot say whether the answer survives the change.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::question::Answer;
use crate::summary::{Summary, Verdict};

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
    /// The answer at each core count, in ascending core count.
    pub stands: Vec<Stand>,
    /// Whether the answer survives the change of core count.
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

/// How the answers at different core counts compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Across {
    /// Every pair of core counts agrees.
    Holds,
    /// Two core counts picked different alternatives, each beyond noise.
    Flips,
    /// Neither: a core count gave no answer, or picks differ where a run could not separate them.
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
            let stands: Vec<Stand> = runs
                .iter()
                .map(|run| {
                    let found = run
                        .questions
                        .iter()
                        .find(|q| q.id == question.id)
                        .and_then(|q| q.answers.iter().find(|a| a.phase == answer.phase));
                    stand(cores_of(run), found)
                })
                .collect();
            let across = compare(&stands);
            questions.push(QuestionAcross {
                id: question.id.clone(),
                ask: question.ask.clone(),
                phase: answer.phase.clone(),
                stands,
                across,
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
    })
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

/// Whether two stands agree: the same pick, or a pick the other run cannot tell from its own.
fn agree(a: &Stand, b: &Stand) -> bool {
    match (&a.pick, &b.pick) {
        (Some(x), Some(y)) => x == y || a.tied.contains(y) || b.tied.contains(x),
        _ => false,
    }
}

/// How `stands` compare: [`Across::Holds`] when every pair agrees, [`Across::Flips`] when two picked apart and
/// differ, [`Across::Open`] otherwise.
fn compare(stands: &[Stand]) -> Across {
    let mut open = false;
    for (i, a) in stands.iter().enumerate() {
        for b in &stands[i + 1..] {
            if agree(a, b) {
                continue;
            }
            if a.apart && b.apart {
                return Across::Flips;
            }
            open = true;
        }
    }
    if open {
        Across::Open
    } else {
        Across::Holds
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::contestant::Role;
    use crate::question::{answer_all, Alternatives, Question};
    use crate::record::Status;
    use crate::setup::Pin;
    use crate::summary::{ContestantSummary, Family};

    fn contestant(name: &str, medians: &[f64]) -> ContestantSummary {
        let stats = crate::question::tests::stats(medians);
        ContestantSummary {
            name: name.to_string(),
            family: Family::Stream,
            expected_failure: None,
            role: Role::Candidate,
            description: String::new(),
            status: Status::Ok,
            reason: None,
            checks: Vec::new(),
            metrics: BTreeMap::from([("ms".to_string(), stats)]),
            skipped_phases: BTreeMap::new(),
            disturbed: Default::default(),
        }
    }

    /// A run pinned to `cores` where `a` and `b` take these process medians of `ms`, its question answered.
    fn run(cores: u32, a: &[f64], b: &[f64]) -> Summary {
        let mut s = crate::summary::tests::summary(vec![contestant("a", a), contestant("b", b)]);
        s.environment.pin = Some(Pin { cores, cpus: (0..cores as usize).collect() });
        let question = Question::new("which", "Which one?", Alternatives::Candidates, "ms", "time", false);
        s.questions = answer_all(&s, &[question]);
        s
    }

    const FAST: [f64; 5] = [10.0, 10.1, 10.2, 10.3, 10.4];
    const SLOW: [f64; 5] = [20.0, 20.1, 20.2, 20.3, 20.4];

    #[test]
    fn the_pick_that_changes_beyond_noise_between_core_counts_flips() {
        let (one, two) = (run(1, &FAST, &SLOW), run(2, &SLOW, &FAST));
        let across = across(&[&two, &one]).expect("side by side");
        assert_eq!(across.cores, [1, 2], "in ascending core count, whatever the order given");
        let q = &across.questions[0];
        assert_eq!(q.stands.iter().map(|s| s.pick.as_deref()).collect::<Vec<_>>(), [Some("a"), Some("b")]);
        assert!(q.stands.iter().all(|s| s.apart && s.p.is_some()), "{q:?}");
        assert_eq!(q.across, Across::Flips);
    }

    #[test]
    fn the_same_pick_at_every_core_count_holds_across_them() {
        let across = across(&[&run(1, &FAST, &SLOW), &run(2, &FAST, &SLOW)]).expect("side by side");
        assert_eq!(across.questions[0].across, Across::Holds);
    }

    #[test]
    fn runs_that_cannot_stand_side_by_side_are_refused() {
        let one = run(1, &FAST, &SLOW);
        assert_eq!(across(&[&one]), Err(AcrossError::TooFew(1)));
        assert!(matches!(across(&[&one, &one.clone()]), Err(AcrossError::SameCores { cores: 1, .. })));
        let mut other = run(2, &FAST, &SLOW);
        other.environment.kernel = "another".into();
        assert!(matches!(across(&[&one, &other]), Err(AcrossError::Testbed { field: "kernel", .. })));
        let mut later = run(2, &FAST, &SLOW);
        later.git_rev = "another".into();
        assert!(matches!(across(&[&one, &later]), Err(AcrossError::Testbed { field: "code revision", .. })));
        let same = run(2, &FAST, &SLOW);
        let answers = across(&[&one, &same]).expect("one revision");
        assert_eq!(ByCores::new(vec![answers]).git_rev.as_deref(), Some(revision(&one).as_str()));
        let mut elsewhere = run(2, &FAST, &SLOW);
        elsewhere.scenario = "other".into();
        assert!(matches!(across(&[&one, &elsewhere]), Err(AcrossError::Scenarios(..))));
    }

    fn stand(cores: u32, pick: &str, apart: bool, tied: &[&str]) -> Stand {
        Stand {
            cores,
            pick: Some(pick.to_string()),
            apart,
            tied: tied.iter().map(|s| s.to_string()).collect(),
            p: apart.then_some(0.004),
        }
    }

    #[test]
    fn the_same_pick_at_every_core_count_holds() {
        assert_eq!(compare(&[stand(1, "a", true, &[]), stand(2, "a", false, &["b"])]), Across::Holds);
    }

    #[test]
    fn a_pick_the_other_run_cannot_tell_apart_still_agrees() {
        assert_eq!(compare(&[stand(1, "a", false, &["b"]), stand(2, "b", true, &[])]), Across::Holds);
    }

    #[test]
    fn two_picks_each_beyond_noise_flip() {
        assert_eq!(compare(&[stand(1, "a", true, &[]), stand(2, "b", true, &[])]), Across::Flips);
    }

    #[test]
    fn different_picks_that_a_run_could_not_separate_leave_it_open() {
        assert_eq!(compare(&[stand(1, "a", false, &["c"]), stand(2, "b", true, &[])]), Across::Open);
        let none = Stand { cores: 2, pick: None, apart: false, tied: Vec::new(), p: None };
        assert_eq!(compare(&[stand(1, "a", true, &[]), none]), Across::Open, "no answer at a core count");
    }
}
