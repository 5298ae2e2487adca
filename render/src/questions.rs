//! The questions a scenario answers ([`measure::question`]), as the report's answer and the index read them:
//! each answer's figures formatted and its names given with their families. Nothing is decided here; the
//! summary carries every pick, tie, exclusion and verdict.

use measure::compare::format_p;
use measure::question::{Answer, GuardRule, QuestionResult};
use measure::summary::{Summary, Verdict};
use serde::Serialize;

use crate::analysis::phase_words;
use crate::format;

/// A question with its answers, formatted.
#[derive(Debug, Serialize)]
pub(crate) struct QuestionView {
    /// Its id: the anchor the index links to.
    pub(crate) id: String,
    /// The sentence a user asks.
    pub(crate) ask: String,
    /// The deciding metric in words.
    pub(crate) metric_words: String,
    /// The deciding metric's key.
    pub(crate) metric: String,
    /// Whether higher is better.
    pub(crate) higher_is_better: bool,
    /// Its guards' rules.
    pub(crate) guards: Vec<GuardRule>,
    /// The answer at each phase.
    pub(crate) answers: Vec<AnswerView>,
    /// Whether the pick changes between phases.
    pub(crate) changes: bool,
}

/// A named contestant with its family.
#[derive(Debug, Serialize, PartialEq)]
pub(crate) struct Named {
    /// Its name.
    pub(crate) name: String,
    /// Its family.
    pub(crate) family: &'static str,
}

/// The answer at one phase, formatted.
#[derive(Debug, Serialize)]
pub(crate) struct AnswerView {
    /// The phase in words.
    pub(crate) phase: Option<String>,
    /// The pick.
    pub(crate) pick: Option<Named>,
    /// Its figure on the deciding metric.
    pub(crate) value: String,
    /// Practically equal alternatives.
    pub(crate) equal: Vec<Named>,
    /// Alternatives this run cannot tell from the pick.
    pub(crate) cannot_tell: Vec<Named>,
    /// The best alternative the pick beats beyond noise.
    pub(crate) beats: Option<BeatsView>,
    /// The further alternatives the pick beats, each with its factor.
    pub(crate) further: Vec<FurtherView>,
    /// Alternatives that could not be the answer.
    pub(crate) excluded: Vec<ExcludedView>,
    /// The pick's figures on the guard metrics.
    pub(crate) guard_figures: Vec<GuardFigure>,
    /// Pathologies and traps, with their cost.
    pub(crate) costs: Vec<CostView>,
}

/// The pick against the best alternative it beats.
#[derive(Debug, Serialize)]
pub(crate) struct BeatsView {
    /// That alternative.
    pub(crate) name: String,
    /// How many times better the pick is.
    pub(crate) factor: String,
    /// Every process of the pick is better than every process of the other.
    pub(crate) holds: bool,
    /// The exact p of that.
    pub(crate) p: Option<String>,
}

/// A further alternative the pick beats.
#[derive(Debug, Serialize)]
pub(crate) struct FurtherView {
    /// Its name.
    pub(crate) name: String,
    /// How many times better the pick is.
    pub(crate) factor: String,
}

/// An alternative that could not be the answer.
#[derive(Debug, Serialize)]
pub(crate) struct ExcludedView {
    /// Its name.
    pub(crate) name: String,
    /// The guard it did not meet, in words.
    pub(crate) guard: String,
    /// Its figure on that guard's metric.
    pub(crate) value: Option<String>,
    /// It fails the guard beyond doubt (otherwise the run cannot show it meets it).
    pub(crate) fails: bool,
    /// The p of the failure.
    pub(crate) p: Option<String>,
}

/// The pick's figure on one guard metric.
#[derive(Debug, Serialize)]
pub(crate) struct GuardFigure {
    /// The guard's metric in words.
    pub(crate) words: String,
    /// The figure.
    pub(crate) value: String,
}

/// A pathology or trap against the pick.
#[derive(Debug, Serialize)]
pub(crate) struct CostView {
    /// Its name.
    pub(crate) name: String,
    /// Its role.
    pub(crate) role: &'static str,
    /// Its figure as a multiple of the pick's (above 1 is worse).
    pub(crate) factor: String,
    /// The difference is beyond noise.
    pub(crate) beyond_noise: bool,
}

/// Every question of `summary`, formatted.
pub(crate) fn views(summary: &Summary) -> Vec<QuestionView> {
    summary.questions.iter().map(|q| view(summary, q)).collect()
}

fn named(summary: &Summary, name: &str) -> Named {
    Named { name: name.to_string(), family: summary.contestant(name).map_or("unknown", |c| c.family.as_str()) }
}

fn view(summary: &Summary, q: &QuestionResult) -> QuestionView {
    let picks: Vec<Option<&str>> = q.answers.iter().map(|a| a.pick.as_deref()).collect();
    QuestionView {
        id: q.id.clone(),
        ask: q.ask.clone(),
        metric_words: q.metric_words.clone(),
        metric: q.metric.clone(),
        higher_is_better: q.higher_is_better,
        guards: q.guards.clone(),
        answers: q.answers.iter().map(|a| answer_view(summary, q, a)).collect(),
        changes: picks.windows(2).any(|w| w[0] != w[1]),
    }
}

fn answer_view(summary: &Summary, q: &QuestionResult, a: &Answer) -> AnswerView {
    let p = |p: Option<f64>| p.map(format_p);
    AnswerView {
        phase: a.phase.as_deref().map(phase_words),
        pick: a.pick.as_deref().map(|n| named(summary, n)),
        value: a.value.map(format::number).unwrap_or_default(),
        equal: a.equal.iter().map(|n| named(summary, n)).collect(),
        cannot_tell: a.cannot_tell.iter().map(|n| named(summary, n)).collect(),
        beats: a.beats.as_ref().map(|b| BeatsView {
            name: b.name.clone(),
            factor: format::ratio(b.factor),
            holds: b.verdict == Verdict::Holds,
            p: p(b.p),
        }),
        further: a
            .further
            .iter()
            .map(|f| FurtherView { name: f.name.clone(), factor: format::ratio(f.factor) })
            .collect(),
        excluded: a
            .excluded
            .iter()
            .map(|e| ExcludedView {
                name: e.name.clone(),
                guard: e.guard.clone(),
                value: e.value.map(format::number),
                fails: e.verdict == Verdict::Fails,
                p: p(e.p),
            })
            .collect(),
        guard_figures: q
            .guards
            .iter()
            .zip(&a.pick_guards)
            .filter_map(|(g, v)| v.map(|v| GuardFigure { words: g.words.clone(), value: format::number(v) }))
            .collect(),
        costs: a
            .costs
            .iter()
            .map(|c| CostView {
                name: c.name.clone(),
                role: c.role.as_str(),
                factor: format::ratio(c.factor),
                beyond_noise: c.beyond_noise,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use measure::compare::Relation;
    use measure::question::{answer_all, Alternatives, Guard, Limit, Question};
    use measure::summary::{Family, Role};

    use testkit::fixture::processes;

    use crate::analysis::tests::{contestant_with_role, input, summary_of};
    use crate::index::{render_index, IndexEntry};
    use crate::markdown::render_markdown;

    /// Two operations that must not be ranked against each other, one guarded.
    fn questions() -> Vec<Question> {
        let q = |id, ask, names: Vec<&str>| {
            Question::new(id, ask, Alternatives::named(&names), "ms", "ms per million", false)
        };
        let mut guarded = q("lock", "Which lock?", vec!["mutex", "spin", "trap-lock"]);
        guarded.guards.push(Guard {
            metric: "cores_used",
            words: "cores used",
            relation: Relation::AtMost,
            limit: Limit::Value(1.5),
            why: "a lock that burns a core while waiting",
        });
        vec![q("spawn", "Which spawn?", vec!["task", "thread"]), guarded]
    }

    fn summary() -> measure::summary::Summary {
        let c = |name, family, role, ms: &[f64], cores: &[f64]| {
            let mut c = contestant_with_role(name, family, role, processes(ms));
            c.metrics.insert("cores_used".to_string(), processes(cores));
            c
        };
        let mut summary = summary_of(vec![
            c("task", Family::Stream, Role::Candidate, &[100.0, 101.0, 102.0], &[1.0, 1.0, 1.0]),
            c("thread", Family::Blocking, Role::Candidate, &[1000.0, 1010.0, 990.0], &[1.0, 1.0, 1.0]),
            c("mutex", Family::Blocking, Role::Candidate, &[10.0, 10.1, 10.2], &[1.0, 1.0, 1.0]),
            c("spin", Family::Blocking, Role::Candidate, &[5.0, 5.1, 5.2], &[2.0, 2.0, 2.0]),
            c("trap-lock", Family::Stream, Role::Trap, &[50.0, 51.0, 52.0], &[1.0, 1.0, 1.0]),
        ]);
        summary.questions = answer_all(&summary, &questions());
        summary
    }

    #[test]
    fn each_question_is_answered_on_its_own_alternatives_with_its_guards_and_costs() {
        let summary = summary();
        let text = render_markdown(&input(&summary));
        let answer = &text[text.find("## Answer").expect("an answer")..];
        let answer = &answer[..answer[3..].find("\n## ").map_or(answer.len(), |i| i + 3)];
        assert!(answer.contains("**Which spawn?**"), "{answer}");
        assert!(answer.contains("**Use `task` (stream)**: ms per million 101, 9.90× better than the next alternative, `thread` (every process apart, p = 0.050)"), "{answer}");
        assert!(answer.contains("**Use `mutex` (blocking)**"), "the faster spin lock fails its guard: {answer}");
        assert!(
            answer.contains("`spin` (cores used 2.00: fails the guard, p = 0.13)")
                || answer.contains("`spin` (cores used 2"),
            "{answer}"
        );
        assert!(answer.contains("`trap-lock` (trap) 5.05× the pick's"), "{answer}");
        assert!(!answer.contains("**Use `spin`"), "{answer}");
        assert!(!answer.contains("matters"), "no ranking across unrelated operations: {answer}");
    }

    #[test]
    fn the_index_has_one_row_per_question_linked_to_its_answer() {
        let summary = summary();
        let entry = IndexEntry::from_input(&input(&summary));
        assert_eq!(entry.questions.len(), 2);
        let text = render_index(&[entry]);
        assert!(text.contains("| Which spawn? | `task` (stream) |"), "{text}");
        assert!(text.contains("| Which lock? | `mutex` (blocking) |"), "{text}");
        assert!(text.contains("(chain.md#question-lock)"), "{text}");
        assert!(text.contains("excluded: `spin` (cores used)"), "{text}");
    }
}
