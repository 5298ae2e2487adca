//! The questions a practitioner brings to a scenario, and their answers computed from a run's summary.
//!
//! A scenario declares its questions as data ([`Question`]): the sentence a user asks, the alternatives it
//! compares, the metric that decides it (with the words a reader sees), guards with stated limits, and the
//! phases it applies to. [`answer`] decides each on the lab's one rule ([`crate::compare`]): at every phase the
//! pick is the alternative with the best process median among those that meet every guard; every other
//! eligible alternative is either beaten beyond noise, *practically equal* (within the noise threshold of the
//! pick), or *not told apart* by this run (beyond the threshold, but the process-median ranges overlap). A guard
//! is met only when its verdict holds on process medians; an alternative that fails it, or that the run
//! cannot show meets it, is never the pick, and the answer says which guard and why. Pathologies and traps
//! among the alternatives are never picked: they are shown as what they cost against the pick.
//!
//! The results ([`QuestionResult`]) travel in the summary JSON, so the report and the index read the same
//! answer, and a re-render computes it again from the raw records.

use crate::compare::{self, Basis, Operand, Relation};
use crate::contestant::Role;
use crate::record::Status;
use crate::summary::{metric_key as key, ContestantSummary, Family, MetricStats, Summary, Verdict};

use std::borrow::Cow;

pub use crate::answers::{
    Answer, Beaten, Behind, Cost, Excluded, GuardRule, QuestionResult, Rival, Standing, TwoModes,
};

/// A contestant's statistics for one metric key.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'s> {
    /// The contestant.
    pub contestant: &'s ContestantSummary,
    /// Its statistics on the key.
    pub stats: &'s MetricStats,
}

/// The best ok contestant on `key` (lowest median, or highest when `higher_is_better`), optionally within one
/// family; ties go to the first in registry order.
pub fn best<'s>(summary: &'s Summary, family: Option<Family>, key: &str, higher_is_better: bool) -> Option<Entry<'s>> {
    best_where(summary, key, higher_is_better, |c| family.is_none_or(|f| f == c.family))
}

/// The best ok [`Role::Candidate`] on `key` (lowest median, or highest when `higher_is_better`), optionally
/// within one family: the only rows a report may recommend; ties go to the first in registry order.
pub fn best_candidate<'s>(
    summary: &'s Summary,
    family: Option<Family>,
    key: &str,
    higher_is_better: bool,
) -> Option<Entry<'s>> {
    best_where(summary, key, higher_is_better, |c| c.role == Role::Candidate && family.is_none_or(|f| f == c.family))
}

/// The best ok contestant on `key` among those `keep` accepts; ties go to the first in registry order.
fn best_where<'s>(
    summary: &'s Summary,
    key: &str,
    higher_is_better: bool,
    keep: impl Fn(&ContestantSummary) -> bool,
) -> Option<Entry<'s>> {
    let mut best: Option<Entry<'s>> = None;
    for contestant in summary.contestants.iter().filter(|c| c.status == Status::Ok && keep(c)) {
        let Some(stats) = contestant.metrics.get(key) else { continue };
        if stats.median.is_finite()
            && best.is_none_or(|b| compare::better(stats.median, b.stats.median, higher_is_better))
        {
            best = Some(Entry { contestant, stats });
        }
    }
    best
}

/// Families in the order reports discuss them: the floor first, then streams, then blocking, then coroutines.
pub const FAMILY_ORDER: [Family; 4] = [Family::Baseline, Family::Stream, Family::Blocking, Family::Coroutine];

/// Each family's best on `key` in [`FAMILY_ORDER`]: the best baseline ([`best`], whatever its role: what ratios
/// are taken against) and every other family's [`best_candidate`]; a family none of whose rows measured `key`
/// is absent.
pub fn family_bests<'s>(summary: &'s Summary, key: &str, higher_is_better: bool) -> Vec<Entry<'s>> {
    FAMILY_ORDER
        .into_iter()
        .filter_map(|family| match family {
            Family::Baseline => best(summary, Some(family), key, higher_is_better),
            _ => best_candidate(summary, Some(family), key, higher_is_better),
        })
        .collect()
}

/// What ratios are taken against in a phase: the best baseline, or the best candidate on the metric when no
/// baseline ran (a reference, whether or not a question guarded it out; never a pick).
#[derive(Debug, Clone, Copy)]
pub struct Reference<'s> {
    /// The reference's statistics.
    pub entry: Entry<'s>,
    /// Whether `entry` is a baseline (otherwise the best candidate overall).
    pub is_baseline: bool,
}

/// The reference for ratios on `key`.
pub fn reference<'s>(summary: &'s Summary, key: &str, higher_is_better: bool) -> Option<Reference<'s>> {
    if let Some(entry) = best(summary, Some(Family::Baseline), key, higher_is_better) {
        return Some(Reference { entry, is_baseline: true });
    }
    best_candidate(summary, None, key, higher_is_better).map(|entry| Reference { entry, is_baseline: false })
}

/// One question a practitioner asks of a scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// Unique within its scenario; the report and the index link to it.
    pub id: Cow<'static, str>,
    /// The sentence a user would ask.
    pub ask: Cow<'static, str>,
    /// The situation in a few words, as the index's bottom line names it ("a batch job whose dependency loses
    /// capacity: its tail"); empty: the index uses [`ask`](Self::ask).
    pub situation: Cow<'static, str>,
    /// What it compares.
    pub alternatives: Alternatives,
    /// The deciding metric's key, without a phase prefix.
    pub metric: &'static str,
    /// The deciding metric in a reader's words, such as "CPU per call".
    pub metric_words: &'static str,
    /// Whether a larger value of the metric is better.
    pub higher_is_better: bool,
    /// Limits an alternative must meet to be the answer.
    pub guards: Vec<Guard>,
    /// The phases it applies to (empty: every phase of the run).
    pub phases: Vec<&'static str>,
    /// Whether it is a family question (stream, blocking or coroutine, each family's expert constructions at
    /// equal construction): its answers then carry the best alternative of another family as the
    /// [`Rival`](crate::answers::Rival), and the index's family matrix reads them.
    pub family: bool,
    /// Phases that are controls, not answers, each with why (a level below the point where the question can
    /// matter): at these the answer has no pick and says why.
    pub controls: Vec<(Cow<'static, str>, Cow<'static, str>)>,
}

/// The alternatives a question compares.
#[derive(Debug, Clone, PartialEq)]
pub enum Alternatives {
    /// Every candidate of the run, with its pathologies and traps shown as what they cost (floors and
    /// references are left out).
    Candidates,
    /// These contestants, in this order. Any of them may be the pick unless its role is pathology, trap or
    /// reference: a question names a floor among its alternatives only where a user could adopt it (a plain
    /// loop over a collection).
    Named(Vec<String>),
}

impl Alternatives {
    /// These contestants, by name.
    pub fn named(names: &[&str]) -> Alternatives {
        Alternatives::Named(names.iter().map(|n| n.to_string()).collect())
    }
}

/// A limit an alternative must meet on another metric to be the answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Guard {
    /// The metric's key, without a phase prefix.
    pub metric: &'static str,
    /// The metric in a reader's words.
    pub words: &'static str,
    /// Which side of the limit passes.
    pub relation: Relation,
    /// The limit.
    pub limit: Limit,
    /// Why the limit matters to a user, in one clause.
    pub why: &'static str,
}

/// What a guard compares an alternative's metric with.
#[derive(Debug, Clone, PartialEq)]
pub enum Limit {
    /// A value known exactly.
    Value(f64),
    /// A multiple of one of the run's parameters (`--limit 16`: a bound the user set).
    Param {
        /// The parameter's key, as the summary's `params` spell it (`limit`, `capacity_after`).
        param: &'static str,
        /// The multiple.
        factor: f64,
    },
    /// A multiple of another contestant's median on the same metric (`factor ×` its process medians).
    Of {
        /// The contestant.
        contestant: &'static str,
        /// The multiple.
        factor: f64,
    },
    /// A multiple of the same family's counterpart on the same metric: the contestant named
    /// `<family>-<suffix>`, the family being the first part of the alternative's own name (`stream-vegas`
    /// against `stream-fixed` for the suffix `fixed`).
    Counterpart {
        /// The counterpart's name after its family.
        suffix: &'static str,
        /// The multiple.
        factor: f64,
    },
}

impl Question {
    /// A question decided on `metric` (`metric_words` as a reader sees it) among `alternatives`, with no guard,
    /// at every phase of the run.
    pub fn new(
        id: impl Into<Cow<'static, str>>,
        ask: impl Into<Cow<'static, str>>,
        alternatives: Alternatives,
        metric: &'static str,
        metric_words: &'static str,
        higher_is_better: bool,
    ) -> Question {
        Question {
            id: id.into(),
            ask: ask.into(),
            situation: Cow::Borrowed(""),
            alternatives,
            metric,
            metric_words,
            higher_is_better,
            guards: Vec::new(),
            phases: Vec::new(),
            family: false,
            controls: Vec::new(),
        }
    }

    /// The same question asked as the family question: its answers name the best alternative of another family
    /// beside the pick ([`crate::answers::Answer::rival`]).
    pub fn of_families(mut self) -> Question {
        self.family = true;
        self
    }

    /// The same question, with `phase` a control (`why`: the level is below the point where the question can
    /// matter): answered with no pick, and the reason.
    pub fn control(mut self, phase: impl Into<Cow<'static, str>>, why: impl Into<Cow<'static, str>>) -> Question {
        self.controls.push((phase.into(), why.into()));
        self
    }

    /// The same question, its situation named `situation` in the index's bottom line.
    pub fn situation(mut self, situation: impl Into<Cow<'static, str>>) -> Question {
        self.situation = situation.into();
        self
    }

    /// The same question with `guard` as well.
    pub fn guarded(mut self, guard: Guard) -> Question {
        self.guards.push(guard);
        self
    }

    /// The guards' rules in words.
    fn guard_rules(&self) -> Vec<GuardRule> {
        self.guards
            .iter()
            .map(|g| {
                let op = match g.relation {
                    Relation::AtLeast => "at least",
                    Relation::AtMost => "at most",
                };
                let rule = match &g.limit {
                    Limit::Value(v) => format!("{op} {v}"),
                    Limit::Param { param, factor } if *factor == 1.0 => format!("{op} `{param}`"),
                    Limit::Param { param, factor } => format!("{op} {factor}× `{param}`"),
                    Limit::Of { contestant, factor } => format!("{op} {factor}× `{contestant}`'s"),
                    Limit::Counterpart { suffix, factor } => {
                        format!("{op} {factor}× the same family's `{suffix}`'s")
                    }
                };
                GuardRule { metric: g.metric.to_string(), words: g.words.to_string(), rule, why: g.why.to_string() }
            })
            .collect()
    }
}

/// How far `a` is behind `b` (≥ 1 when `a` is worse), whichever way the metric points.
pub(crate) fn behind(a: f64, b: f64, higher_is_better: bool) -> f64 {
    if higher_is_better {
        b / a
    } else {
        a / b
    }
}

/// Answer every question of `questions` from `summary`.
pub fn answer_all(summary: &Summary, questions: &[Question]) -> Vec<QuestionResult> {
    questions.iter().map(|q| answer(summary, q)).collect()
}

/// Answer `question` from `summary` at every phase it applies to.
pub fn answer(summary: &Summary, question: &Question) -> QuestionResult {
    let alternatives: Vec<&ContestantSummary> = match &question.alternatives {
        Alternatives::Candidates => summary
            .contestants
            .iter()
            .filter(|c| matches!(c.role, Role::Candidate | Role::Pathology | Role::Trap))
            .collect(),
        Alternatives::Named(names) => names.iter().filter_map(|n| summary.contestant(n)).collect(),
    };
    let phases = summary
        .phase_keys()
        .into_iter()
        .filter(|p| p.is_none_or(|p| question.phases.is_empty() || question.phases.contains(&p)));
    QuestionResult {
        id: question.id.to_string(),
        ask: question.ask.to_string(),
        situation: question.situation.to_string(),
        alternatives: alternatives.iter().map(|c| c.name.clone()).collect(),
        metric: question.metric.to_string(),
        metric_words: question.metric_words.to_string(),
        higher_is_better: question.higher_is_better,
        guards: question.guard_rules(),
        threshold: Some(summary.method.thresholds().for_metric(question.metric)),
        family: question.family,
        answers: phases.map(|phase| answer_at(summary, question, &alternatives, phase)).collect(),
    }
}

/// The answer at one phase.
fn answer_at(
    summary: &Summary,
    question: &Question,
    alternatives: &[&ContestantSummary],
    phase: Option<&str>,
) -> Answer {
    let higher = question.higher_is_better;
    let deciding = key(phase, question.metric);
    let threshold = summary.method.threshold(&deciding);
    let mut excluded = Vec::new();
    let mut eligible: Vec<(&ContestantSummary, &MetricStats)> = Vec::new();
    let mut shown: Vec<(&ContestantSummary, &MetricStats)> = Vec::new();
    for &c in alternatives {
        if c.status != Status::Ok {
            excluded.push(Excluded {
                name: c.name.clone(),
                guard: "did not run cleanly".to_string(),
                value: None,
                verdict: Verdict::Fails,
                p: None,
            });
            continue;
        }
        let Some(stats) = c.metrics.get(&deciding).filter(|s| s.median.is_finite()) else { continue };
        if matches!(c.role, Role::Pathology | Role::Trap | Role::Reference) {
            shown.push((c, stats));
            continue;
        }
        match unmet_guard(summary, question, c, phase) {
            Some(why) => excluded.push(why),
            None => eligible.push((c, stats)),
        }
    }
    eligible.sort_by(|a, b| {
        let order = a.1.median.total_cmp(&b.1.median);
        if higher {
            order.reverse()
        } else {
            order
        }
    });
    let mut answer = Answer {
        phase: phase.map(str::to_string),
        pick: None,
        value: None,
        equal: Vec::new(),
        cannot_tell: Vec::new(),
        beats: None,
        further: Vec::new(),
        excluded,
        pick_guards: Vec::new(),
        costs: Vec::new(),
        modes: Vec::new(),
        control: None,
        rival: None,
    };
    if let Some((_, why)) = question.controls.iter().find(|(p, _)| phase == Some(p.as_ref())) {
        answer.control = Some(why.to_string());
        return answer;
    }
    let Some(&(pick, best)) = eligible.first() else { return answer };
    answer.pick = Some(pick.name.clone());
    answer.value = Some(best.median);
    answer.pick_guards =
        question.guards.iter().map(|g| pick.metrics.get(&key(phase, g.metric)).map(|s| s.median)).collect();
    for &(other, stats) in &eligible[1..] {
        match standing(stats, best, threshold) {
            Standing::Beaten if answer.beats.is_none() => {
                let judged = pick_better(best, stats, higher);
                answer.beats = Some(Beaten {
                    name: other.name.clone(),
                    value: stats.median,
                    factor: behind(stats.median, best.median, higher),
                    verdict: judged.verdict,
                    p: judged.p,
                });
            }
            Standing::Beaten => answer
                .further
                .push(Behind { name: other.name.clone(), factor: behind(stats.median, best.median, higher) }),
            Standing::Equal => answer.equal.push(other.name.clone()),
            Standing::CannotTell => answer.cannot_tell.push(other.name.clone()),
        }
    }
    if question.family {
        answer.rival = eligible[1..].iter().find(|(c, _)| c.family != pick.family).map(|&(other, stats)| Rival {
            name: other.name.clone(),
            family: other.family.as_str().to_string(),
            value: stats.median,
            factor: behind(stats.median, best.median, higher),
            standing: standing(stats, best, threshold),
            p: pick_better(best, stats, higher).p,
        });
    }
    answer.costs = shown
        .into_iter()
        .map(|(c, stats)| Cost {
            name: c.name.clone(),
            role: c.role,
            factor: behind(stats.median, best.median, higher),
            beyond_noise: !compare::compare(stats, best, threshold).noise,
        })
        .collect();
    // The pick and every eligible alternative it was compared with: where one is two populations, say so.
    answer.modes = eligible
        .iter()
        .filter_map(|(c, stats)| {
            crate::calibration::modes::describe(stats).map(|groups| TwoModes { name: c.name.clone(), groups })
        })
        .collect();
    answer
}

/// How an eligible alternative's `stats` stand against the pick's `best`: beaten beyond noise, practically equal
/// (within `threshold`), or not told apart (beyond it, process medians overlapping).
fn standing(stats: &MetricStats, best: &MetricStats, threshold: f64) -> Standing {
    let comparison = compare::compare(stats, best, threshold);
    if !comparison.noise {
        Standing::Beaten
    } else if compare::practically_equal(comparison.ratio, threshold) {
        Standing::Equal
    } else {
        Standing::CannotTell
    }
}

/// The verdict, on process medians, that the pick (`best`) is better than `stats`.
fn pick_better(best: &MetricStats, stats: &MetricStats, higher: bool) -> compare::Judged {
    let relation = if higher { Relation::AtLeast } else { Relation::AtMost };
    compare::verdict(Operand::Measured(best), Operand::Measured(stats), relation, 1.0, Basis::ProcessMedians)
}

/// The first guard `contestant` does not meet at `phase`, if any.
fn unmet_guard(
    summary: &Summary,
    question: &Question,
    contestant: &ContestantSummary,
    phase: Option<&str>,
) -> Option<Excluded> {
    for guard in &question.guards {
        let metric = key(phase, guard.metric);
        let excluded = |value: Option<f64>, verdict: Verdict, p: Option<f64>| Excluded {
            name: contestant.name.clone(),
            guard: guard.words.to_string(),
            value,
            verdict,
            p,
        };
        let Some(stats) = contestant.metrics.get(&metric) else {
            return Some(excluded(None, Verdict::Inconclusive, None));
        };
        let measured = |other: &str, factor: f64| {
            summary
                .contestant(other)
                .filter(|o| o.status == Status::Ok)
                .and_then(|o| o.metrics.get(&metric))
                .map(|theirs| (Operand::Measured(theirs), factor))
        };
        let other = match &guard.limit {
            Limit::Of { contestant: other, factor } => Some((other.to_string(), *factor)),
            Limit::Counterpart { suffix, factor } => {
                contestant.name.split_once('-').map(|(family, _)| (format!("{family}-{suffix}"), *factor))
            }
            Limit::Value(_) | Limit::Param { .. } => None,
        };
        // Against itself a guard is met by construction when its factor allows equality (at least 0.5× its own
        // figure): a check that cannot fail, so it is not judged, and too few processes cannot exclude it.
        if let Some((other, factor)) = &other {
            let met = match guard.relation {
                Relation::AtLeast => *factor <= 1.0,
                Relation::AtMost => *factor >= 1.0,
            };
            if *other == contestant.name && met {
                continue;
            }
        }
        let limit = match &guard.limit {
            Limit::Value(v) => Some((Operand::Fixed(*v), 1.0)),
            Limit::Param { param, factor } => summary.param(param).map(|v| (Operand::Fixed(v), *factor)),
            Limit::Of { .. } | Limit::Counterpart { .. } => {
                other.as_ref().and_then(|(other, factor)| measured(other, *factor))
            }
        };
        let Some((limit, factor)) = limit else {
            return Some(excluded(Some(stats.median), Verdict::Inconclusive, None));
        };
        let judged = compare::verdict(Operand::Measured(stats), limit, guard.relation, factor, Basis::ProcessMedians);
        if judged.verdict != Verdict::Holds {
            return Some(excluded(Some(stats.median), judged.verdict, judged.p));
        }
    }
    None
}

#[cfg(test)]
pub(crate) mod tests {

    use super::*;
    use crate::contestant::Family;
    use crate::summary::tests::summary;

    /// Statistics whose process medians are `medians` (shared with the core-count tests).
    pub(crate) fn stats(medians: &[f64]) -> MetricStats {
        let mut sorted = medians.to_vec();
        sorted.sort_by(f64::total_cmp);
        MetricStats {
            median: sorted[sorted.len() / 2],
            min: sorted[0],
            max: sorted[sorted.len() - 1],
            ci999: 0.0,
            ci95_low: None,
            ci95_high: None,
            n: medians.len(),
            mean: medians.iter().sum::<f64>() / medians.len() as f64,
            fork_medians: medians.to_vec(),
            processes: medians.len(),
            outliers: Default::default(),
            samples: Vec::new(),
        }
    }

    pub(crate) fn contestant(name: &str, role: Role, metrics: &[(&str, &[f64])]) -> ContestantSummary {
        let metrics = metrics.iter().map(|(k, v)| (k.to_string(), stats(v))).collect();
        ContestantSummary { role, ..ContestantSummary::ran(name, Family::Stream, metrics) }
    }

    fn question(guards: Vec<Guard>) -> Question {
        guards.into_iter().fold(
            Question::new("which", "Which one?", Alternatives::Candidates, "ms", "time", false),
            Question::guarded,
        )
    }

    const FIVE: usize = 5;

    fn around(value: f64) -> Vec<f64> {
        (0..FIVE).map(|i| value * (1.0 + 0.01 * i as f64)).collect()
    }

    #[test]
    fn the_pick_is_the_best_and_beats_the_next_with_its_p() {
        let s = summary(vec![
            contestant("slow", Role::Candidate, &[("ms", &around(20.0))]),
            contestant("fast", Role::Candidate, &[("ms", &around(10.0))]),
            contestant("slowest", Role::Candidate, &[("ms", &around(100.0))]),
        ]);
        let a = &answer(&s, &question(Vec::new())).answers[0];
        assert_eq!(a.pick.as_deref(), Some("fast"));
        assert_eq!(a.further.len(), 1);
        assert_eq!(a.further[0].name, "slowest");
        assert!((a.further[0].factor - 10.0).abs() < 1e-9);
        let beats = a.beats.as_ref().expect("beats slow");
        assert_eq!((beats.name.as_str(), beats.verdict), ("slow", Verdict::Holds));
        assert!((beats.factor - 2.0).abs() < 1e-9 && beats.p.is_some_and(|p| p < 0.01), "{beats:?}");
    }

    #[test]
    fn within_the_threshold_is_equal_and_overlapping_beyond_it_cannot_be_told() {
        let s = summary(vec![
            contestant("a", Role::Candidate, &[("ms", &around(10.0))]),
            contestant("b", Role::Candidate, &[("ms", &around(10.5))]),
            contestant("c", Role::Candidate, &[("ms", &[9.0, 13.0, 14.0, 15.0, 30.0])]),
        ]);
        let a = &answer(&s, &question(Vec::new())).answers[0];
        assert_eq!(a.pick.as_deref(), Some("a"));
        assert_eq!(a.equal, ["b"]);
        assert_eq!(a.cannot_tell, ["c"]);
        assert!(a.beats.is_none());
    }

    #[test]
    fn practically_equal_means_within_the_calibrated_ratio_of_the_metric_s_class() {
        let mut s = summary(vec![
            contestant("a", Role::Candidate, &[("ms_per_million", &around(10.0))]),
            contestant("b", Role::Candidate, &[("ms_per_million", &around(10.5))]),
        ]);
        let q = Question::new("which", "Which one?", Alternatives::Candidates, "ms_per_million", "time", false);
        let uncalibrated = answer(&s, &q);
        assert_eq!(uncalibrated.answers[0].equal, ["b"], "5% apart is within the default 20%");
        let threshold = uncalibrated.threshold.expect("stated");
        assert!(!threshold.calibrated() && (threshold.ratio - 1.2).abs() < 1e-12);
        s.method.sdr.insert("per_item".to_string(), 1.02);
        let calibrated = answer(&s, &q);
        assert!(calibrated.answers[0].equal.is_empty());
        assert_eq!(calibrated.answers[0].beats.as_ref().map(|b| b.name.as_str()), Some("b"), "beyond 1.02×");
        assert_eq!(calibrated.threshold.map(|t| (t.ratio, t.calibrated())), Some((1.02, true)));
    }

    #[test]
    fn an_alternative_of_two_populations_is_named_with_its_modes() {
        let mut s = summary(vec![
            contestant("a", Role::Candidate, &[("ns_per_op", &around(10.0))]),
            contestant("spawn", Role::Candidate, &[("ns_per_op", &[216.0, 79.0, 220.0, 83.0, 218.0])]),
        ]);
        crate::calibration::mark_modes(&mut s);
        let q = Question::new("which", "Which one?", Alternatives::Candidates, "ns_per_op", "time", false);
        let a = &answer(&s, &q).answers[0];
        assert_eq!(a.pick.as_deref(), Some("a"));
        assert_eq!(
            a.modes,
            [TwoModes {
                name: "spawn".to_string(),
                groups: "processes 2, 4 at 79.0–83.0 and 1, 3, 5 at 216–220".into()
            }]
        );
    }

    #[test]
    fn a_candidate_that_fails_a_guard_is_never_the_pick_and_says_which() {
        let s = summary(vec![
            contestant("fixed", Role::Candidate, &[("ms", &around(20.0)), ("ops", &around(100.0))]),
            contestant("idle", Role::Candidate, &[("ms", &around(5.0)), ("ops", &around(10.0))]),
        ]);
        let guard = Guard {
            metric: "ops",
            words: "throughput",
            relation: Relation::AtLeast,
            limit: Limit::Of { contestant: "fixed", factor: 0.5 },
            why: "a limiter that never fills the dependency",
        };
        let result = answer(&s, &question(vec![guard]));
        let a = &result.answers[0];
        assert_eq!(a.pick.as_deref(), Some("fixed"));
        assert_eq!(a.excluded.len(), 1);
        assert_eq!((a.excluded[0].name.as_str(), a.excluded[0].verdict), ("idle", Verdict::Fails));
        assert_eq!(a.pick_guards, [Some(100.0 * 1.02)]);
        assert_eq!(result.guards[0].rule, "at least 0.5× `fixed`'s");
    }

    #[test]
    fn a_guard_may_be_a_parameter_or_the_same_familys_counterpart() {
        let mut s = summary(vec![
            contestant("stream-fixed", Role::Candidate, &[("ms", &around(20.0)), ("ops", &around(100.0))]),
            contestant("stream-vegas", Role::Candidate, &[("ms", &around(5.0)), ("ops", &around(10.0))]),
            contestant("blocking-fixed", Role::Candidate, &[("ms", &around(30.0)), ("ops", &around(10.0))]),
            contestant("blocking-vegas", Role::Candidate, &[("ms", &around(6.0)), ("ops", &around(9.0))]),
        ]);
        let guard = |limit| Guard { metric: "ops", words: "throughput", relation: Relation::AtLeast, limit, why: "" };
        let a = &answer(&s, &question(vec![guard(Limit::Counterpart { suffix: "fixed", factor: 0.5 })])).answers[0];
        // blocking-vegas keeps 0.9× its own family's fixed bound; stream-vegas 0.1× its own.
        assert_eq!(a.pick.as_deref(), Some("blocking-vegas"), "{a:?}");
        assert_eq!(a.excluded.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(), ["stream-vegas"]);
        s.params.insert("floor".to_string(), serde_json::Value::from(50));
        let a = &answer(&s, &question(vec![guard(Limit::Param { param: "floor", factor: 1.0 })])).answers[0];
        assert_eq!(a.pick.as_deref(), Some("stream-fixed"), "{a:?}");
        s.params.clear();
        let a = &answer(&s, &question(vec![guard(Limit::Param { param: "floor", factor: 1.0 })])).answers[0];
        assert_eq!(a.pick, None, "without the parameter no guard can be shown met");
    }

    #[test]
    fn a_guard_against_the_contestant_itself_is_met_by_construction_even_in_one_process() {
        let s = summary(vec![
            contestant("stream-fixed", Role::Candidate, &[("ms", &[20.0]), ("ops", &[100.0])]),
            contestant("stream-vegas", Role::Candidate, &[("ms", &[5.0]), ("ops", &[10.0])]),
        ]);
        let limit = Limit::Counterpart { suffix: "fixed", factor: 0.5 };
        let guard = Guard { metric: "ops", words: "throughput", relation: Relation::AtLeast, limit, why: "" };
        let a = &answer(&s, &question(vec![guard])).answers[0];
        let excluded: Vec<&str> = a.excluded.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(excluded, ["stream-vegas"], "one process cannot show vegas meets it; fixed meets its own: {a:?}");
        assert_eq!(a.pick.as_deref(), Some("stream-fixed"));
    }

    #[test]
    fn a_guard_the_run_cannot_show_met_excludes_too() {
        let s = summary(vec![contestant(
            "a",
            Role::Candidate,
            &[("ms", &around(5.0)), ("cores", &[0.9, 1.1, 1.0, 0.95, 1.05])],
        )]);
        let guard = Guard {
            metric: "cores",
            words: "cores used",
            relation: Relation::AtMost,
            limit: Limit::Value(1.0),
            why: "one core",
        };
        let a = &answer(&s, &question(vec![guard])).answers[0];
        assert_eq!(a.pick, None);
        assert_eq!(a.excluded[0].verdict, Verdict::Inconclusive);
    }

    #[test]
    fn a_trap_is_shown_as_its_cost_and_a_named_floor_may_be_picked() {
        let s = summary(vec![
            contestant("loop", Role::Floor, &[("ms", &around(1.0))]),
            contestant("pipeline", Role::Candidate, &[("ms", &around(3.0))]),
            contestant("blocking-in-task", Role::Trap, &[("ms", &around(0.5))]),
        ]);
        let mut q = question(Vec::new());
        q.alternatives = Alternatives::named(&["loop", "pipeline", "blocking-in-task", "absent"]);
        let result = answer(&s, &q);
        assert_eq!(result.alternatives, ["loop", "pipeline", "blocking-in-task"]);
        let a = &result.answers[0];
        assert_eq!(a.pick.as_deref(), Some("loop"));
        assert_eq!(a.costs.len(), 1);
        assert!((a.costs[0].factor - 0.5).abs() < 1e-9 && a.costs[0].beyond_noise, "{:?}", a.costs);
        // Among candidates only, the floor is not an alternative.
        let only = answer(&s, &question(Vec::new()));
        assert_eq!(only.answers[0].pick.as_deref(), Some("pipeline"));
    }

    #[test]
    fn a_failed_alternative_is_named_even_without_figures() {
        let mut failed = contestant("broken", Role::Candidate, &[]);
        failed.status = Status::Failed;
        let s = summary(vec![contestant("ok", Role::Candidate, &[("ms", &around(1.0))]), failed]);
        let a = &answer(&s, &question(Vec::new())).answers[0];
        assert_eq!(a.pick.as_deref(), Some("ok"));
        assert_eq!(a.excluded.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(), ["broken"]);
    }

    #[test]
    fn a_question_is_answered_at_its_phases_only() {
        let mut s =
            summary(vec![contestant("a", Role::Candidate, &[("p1.ms", &around(1.0)), ("p2.ms", &around(2.0))])]);
        s.phases = vec!["p1".to_string(), "p2".to_string()];
        let mut q = question(Vec::new());
        assert_eq!(answer(&s, &q).answers.len(), 2);
        q.phases = vec!["p2"];
        let result = answer(&s, &q);
        assert_eq!(result.answers.len(), 1);
        assert_eq!(result.answers[0].phase.as_deref(), Some("p2"));
        assert_eq!(result.answers[0].value, Some(2.0 * 1.02));
    }

    #[test]
    fn the_result_round_trips_through_json() {
        let s = summary(vec![contestant("a", Role::Candidate, &[("ms", &around(1.0))])]);
        let result = answer(&s, &question(Vec::new()));
        let text = serde_json::to_string(&result).expect("serialises");
        let back: QuestionResult = serde_json::from_str(&text).expect("parses");
        assert_eq!(back, result);
    }

    #[test]
    fn a_family_question_names_the_best_of_another_family_and_a_control_makes_no_pick() {
        let of = |name: &str, family: Family, value: f64| {
            let mut c = contestant(name, Role::Candidate, &[("ms", &around(value))]);
            c.family = family;
            c
        };
        let s = summary(vec![
            of("stream-fast", Family::Stream, 10.0),
            of("stream-slower", Family::Stream, 12.0),
            of("blocking-slow", Family::Blocking, 30.0),
        ]);
        let family = question(Vec::new()).of_families();
        let result = answer(&s, &family);
        assert!(result.family);
        let rival = result.answers[0].rival.as_ref().expect("another family ran");
        assert_eq!(
            (rival.name.as_str(), rival.family.as_str(), rival.standing),
            ("blocking-slow", "blocking", Standing::Beaten)
        );
        assert!((rival.factor - 3.0).abs() < 1e-9 && rival.p.is_some_and(|p| p < 0.01), "{rival:?}");
        // The same question, not asked of families, names no rival.
        assert!(answer(&s, &question(Vec::new())).answers[0].rival.is_none());
        // One family alone has no rival.
        let alone = summary(vec![of("stream-fast", Family::Stream, 10.0), of("stream-slower", Family::Stream, 12.0)]);
        assert!(answer(&alone, &family).answers[0].rival.is_none());
        // A control phase is answered with its reason and no pick.
        let mut swept = summary(vec![of("stream-fast", Family::Stream, 10.0)]);
        let low = swept.contestants[0].metrics.remove("ms").expect("ms");
        swept.contestants[0].metrics.insert("low.ms".to_string(), low.clone());
        swept.contestants[0].metrics.insert("high.ms".to_string(), low);
        swept.phases = vec!["low".to_string(), "high".to_string()];
        let controlled = answer(&swept, &question(Vec::new()).control("low", "below capacity nothing waits"));
        let low = controlled.answers.iter().find(|a| a.phase.as_deref() == Some("low")).expect("low answered");
        assert_eq!((low.pick.as_deref(), low.control.as_deref()), (None, Some("below capacity nothing waits")));
        let high = controlled.answers.iter().find(|a| a.phase.as_deref() == Some("high")).expect("high answered");
        assert_eq!((high.pick.as_deref(), high.control.as_deref()), (Some("stream-fast"), None));
    }
}
