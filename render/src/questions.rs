//! The questions a scenario answers ([`measure::question`]), as the report's answer and the index read them:
//! each answer's figures formatted and its names given with their families. Nothing is decided here; the
//! summary carries every pick, tie, exclusion and verdict.

use measure::compare::format_p;
use measure::question::{Answer, QuestionResult, Rival, Standing};
use measure::summary::{Summary, Verdict};
use serde::Serialize;
use serde_json::{json, Value};

use crate::analysis::phase_words;
use crate::format;

/// A named contestant with its family.
#[derive(Debug, Serialize, PartialEq)]
pub(crate) struct Named {
    /// Its name.
    pub(crate) name: String,
    /// Its family.
    pub(crate) family: &'static str,
}

/// Every question of `summary` as the templates read it: the question's own fields (id, ask, metric and its
/// words, direction, guards' rules), `changes` (the pick changes between phases) and its `answers` formatted
/// ([`answer_view`]).
pub(crate) fn views(summary: &Summary) -> Vec<Value> {
    asked(summary).map(|q| view(summary, q)).collect()
}

/// The questions of `summary` this run could ask: those with an alternative that ran (a run of a few contestants,
/// `--only`, may run none of a question's).
pub(crate) fn asked(summary: &Summary) -> impl Iterator<Item = &QuestionResult> {
    summary.questions.iter().filter(|q| !q.alternatives.is_empty())
}

/// The questions of `summary` none of whose alternatives ran: each one's sentence and deciding metric in words.
pub(crate) fn not_asked(summary: &Summary) -> Vec<Value> {
    summary
        .questions
        .iter()
        .filter(|q| q.alternatives.is_empty())
        .map(|q| json!({ "ask": q.ask, "metric_words": q.metric_words }))
        .collect()
}

/// `name` with its family in `summary` (`unknown` for a name it does not have).
pub(crate) fn named(summary: &Summary, name: &str) -> Named {
    Named { name: name.to_string(), family: summary.contestant(name).map_or("unknown", |c| c.family.as_str()) }
}

fn view(summary: &Summary, q: &QuestionResult) -> Value {
    let picks: Vec<Option<&str>> = q.answers.iter().map(|a| a.pick.as_deref()).collect();
    let mut view = json!(q);
    view["answers"] = q.answers.iter().map(|a| answer_view(summary, q, a)).collect();
    // The ratio its answers were judged within: the one recorded with them, else (a run answered before it was
    // recorded) the method's for the deciding metric.
    let threshold = q.threshold.unwrap_or_else(|| summary.method.thresholds().for_metric(&q.metric));
    view["equal_within"] = format::ratio(threshold.ratio).into();
    view["changes"] = picks.windows(2).any(|w| w[0] != w[1]).into();
    // Always present (the summary leaves it out when false), for the templates to test.
    view["family"] = q.family.into();
    view
}

/// The answer at one phase, formatted: the phase in words, the pick, practically equal alternatives and those
/// this run cannot tell from it (each [`Named`]), the best alternative it beats (`beats`: factor, whether every
/// process is apart, p) and the further ones, the alternatives excluded by a guard, the pick's guard figures and
/// what pathologies and traps cost against it; at a control phase, why it is one (`control`, and no pick); in a
/// family question, the best alternative of another family (`rival`, [`rival_view`]).
fn answer_view(summary: &Summary, q: &QuestionResult, a: &Answer) -> Value {
    let p = |p: Option<f64>| p.map(format_p);
    let names = |names: &[String]| -> Vec<Named> { names.iter().map(|n| named(summary, n)).collect() };
    json!({
        "phase": a.phase.as_deref().map(phase_words),
        "pick": a.pick.as_deref().map(|n| named(summary, n)),
        "value": a.value.map(format::number).unwrap_or_default(),
        "equal": names(&a.equal),
        "cannot_tell": names(&a.cannot_tell),
        "beats": a.beats.as_ref().map(|b| json!({
            "name": b.name,
            "factor": format::ratio(b.factor),
            "holds": b.verdict == Verdict::Holds,
            "p": p(b.p),
        })),
        "further": a.further.iter().map(|f| {
            json!({ "name": f.name, "factor": format::ratio(f.factor) })
        }).collect::<Vec<_>>(),
        "excluded": a.excluded.iter().map(|e| json!({
            "name": e.name,
            "guard": e.guard,
            "value": e.value.map(format::number),
            "fails": e.verdict == Verdict::Fails,
            "p": p(e.p),
        })).collect::<Vec<_>>(),
        "guard_figures": q.guards.iter().zip(&a.pick_guards).filter_map(|(g, v)| {
            v.map(|v| json!({ "words": g.words, "value": format::number(v) }))
        }).collect::<Vec<_>>(),
        "modes": a.modes,
        "control": a.control,
        "rival": a.rival.as_ref().map(rival_view),
        "costs": a.costs.iter().map(|c| json!({
            "name": c.name,
            "role": c.role.as_str(),
            "factor": format::ratio(c.factor),
            "beyond_noise": c.beyond_noise,
        })).collect::<Vec<_>>(),
    })
}

/// A family question's rival as the templates read it: its name and family, its figure, how many times better the
/// pick is (formatted), its standing (`beaten`, `equal`, `cannot-tell`) and the p that the pick is better.
pub(crate) fn rival_view(r: &Rival) -> Value {
    json!({
        "name": r.name,
        "family": r.family,
        "value": format::number(r.value),
        "factor": format::ratio(r.factor),
        "standing": standing_word(r.standing),
        "p": r.p.map(format_p),
    })
}

/// A rival's standing as the templates and the index's cells name it.
pub(crate) fn standing_word(standing: Standing) -> &'static str {
    match standing {
        Standing::Beaten => "beaten",
        Standing::Equal => "equal",
        Standing::CannotTell => "cannot-tell",
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
    fn a_tie_with_nothing_beaten_reads_as_a_tie_naming_the_alternatives_practically_equal() {
        let mut summary = summary();
        let c = |name, ms: &[f64]| contestant_with_role(name, Family::Stream, Role::Candidate, processes(ms));
        summary.contestants.push(c("task-in-place", &[102.0, 103.0, 104.0]));
        let mut remedy = Question::new(
            "remedy",
            "Which remedy?",
            Alternatives::named(&["task", "task-in-place", "trap-lock"]),
            "ms",
            "ms per million",
            false,
        );
        remedy.situation = "blocking code in a task".into();
        summary.questions = answer_all(&summary, &[remedy]);
        let answer = &summary.questions[0].answers[0];
        assert_eq!(answer.pick.as_deref(), Some("task"));
        assert_eq!(answer.equal, ["task-in-place"], "{answer:?}");
        assert!(answer.beats.is_none(), "only the trap is left, and a trap is never beaten: {answer:?}");
        let text = render_index(&[IndexEntry::from_input(&input(&summary))]);
        assert!(
            text.contains("`task` (stream), practically equal to `task-in-place`."),
            "a tie names what it ties with: {text}"
        );
        assert!(!text.contains("the only alternative"), "{text}");
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

    /// A swept run with a family question (its low level a control) and a plain one.
    fn family_summary() -> measure::summary::Summary {
        let c = |name, family, low: &[f64], high: &[f64]| {
            let mut c = contestant_with_role(name, family, Role::Candidate, processes(low));
            let low = c.metrics.remove("ms").expect("ms");
            c.metrics.insert("low.ms".to_string(), low);
            c.metrics.insert("high.ms".to_string(), processes(high));
            c
        };
        let mut summary = summary_of(vec![
            c("threads", Family::Blocking, &[10.0, 10.1, 10.2], &[30.0, 30.5, 31.0]),
            c("tasks", Family::Stream, &[10.0, 10.1, 10.2], &[70.0, 71.0, 72.0]),
        ]);
        summary.phases = vec!["low".to_string(), "high".to_string()];
        let family =
            Question::new("family", "Which family?", Alternatives::named(&["threads", "tasks"]), "ms", "ms", false)
                .of_families()
                .control("low", "below capacity nothing waits");
        summary.questions = answer_all(&summary, &[family]);
        summary
    }

    #[test]
    fn a_family_answer_names_the_rival_family_and_a_control_says_why_without_a_pick() {
        let summary = family_summary();
        let text = render_markdown(&input(&summary));
        let answer = &text[text.find("## Answer").expect("an answer")..];
        assert!(
            answer.contains("  - At low: **A control, not an answer**: below capacity nothing waits.\n"),
            "{answer}"
        );
        assert!(
            answer.contains(
                "**The family: blocking**, 2.33× better than the best stream alternative, `tasks` (71.0; every \
                 process apart, p = 0.050)."
            ),
            "{answer}"
        );
        assert!(!answer.contains("No alternative can be the answer"), "a control is not a missing answer: {answer}");
        // The index: a control is no pick, and the bottom line links the family question into the matrix.
        let index = render_index(&[IndexEntry::from_input(&input(&summary))]);
        assert!(index.contains("| a control, not an answer |"), "{index}");
        assert!(
            index.contains(
                "[Which family?](#family-chain-family): a control (below the point where the question can matter) at \
                 low, blocking, 2.33× better than stream (best `threads`) at high."
            ),
            "{index}"
        );
    }

    #[test]
    fn a_tie_with_nothing_beaten_is_not_the_only_alternative() {
        let mut summary = family_summary();
        let tie = Question::new("tie", "Which one?", Alternatives::named(&["threads", "tasks"]), "ms", "ms", false);
        summary.phases = vec!["low".to_string()];
        summary.contestants[1].family = Family::Blocking;
        summary.questions = answer_all(&summary, &[tie]);
        let index = render_index(&[IndexEntry::from_input(&input(&summary))]);
        assert!(index.contains("`threads` (blocking), practically equal to `tasks`."), "{index}");
        assert!(!index.contains("the only alternative that could answer"), "{index}");
    }

    #[test]
    fn a_question_none_of_whose_alternatives_ran_is_said_not_asked_rather_than_unanswered() {
        let mut summary = family_summary();
        let absent =
            Question::new("absent", "Which batch?", Alternatives::named(&["gone"]), "ms", "ms", false).of_families();
        let mut asked = summary.questions.clone();
        asked.extend(answer_all(&summary, &[absent]));
        summary.questions = asked;
        let text = render_markdown(&input(&summary));
        assert!(
            text.contains("- **Not asked in this run**, none of their alternatives having run: “Which batch?” on ms."),
            "{text}"
        );
        assert!(!text.contains("none ran cleanly"), "{text}");
        let index = render_index(&[IndexEntry::from_input(&input(&summary))]);
        assert!(!index.contains("Which batch?"), "{index}");
        assert!(!index.contains("family-chain-absent"), "no matrix row: {index}");
    }
}
