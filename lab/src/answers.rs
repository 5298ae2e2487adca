//! The run's answers, printed after its summary table as hyperfine prints its "Summary": per question, and per
//! level where the question spans several, one line saying what to use and by how much, or the tie, or that this
//! run cannot tell.
//!
//! Nothing is decided here: [`said`] reads each answer the summary carries ([`measure::question`] judged it:
//! the pick, the alternative it beats with the factor and p, the practically equal and the ones not told apart)
//! and formats its figures; [`render`] only puts them into words, wrapped to the width.

use anstyle::{AnsiColor, Style};
use measure::compare::format_p;
use measure::question::{Answer, QuestionResult, Standing};
use measure::stats::MIN_PROCESSES;
use measure::summary::{Summary, Verdict};
use render::format::{number, percent, ratio};

use crate::term;

/// An alternative as the answer names it: its name and family.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Named {
    /// Its name.
    pub name: String,
    /// Its family (`unknown` for a name the run does not have).
    pub family: &'static str,
}

/// The alternative the pick beats beyond noise, with the figures the answer gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Beats {
    /// The alternative.
    pub who: Named,
    /// How many times better the pick is, formatted (`1.23×`).
    pub factor: String,
    /// The exact p of the verdict that the pick is better, formatted, when every process is apart.
    pub p: Option<String>,
}

/// What one answer says, its figures formatted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Says {
    /// Use the pick: the deciding metric's figure, and the alternative it beats, if any.
    Use {
        /// The pick.
        pick: Named,
        /// The deciding metric in words and the pick's median (`ms per million items 12.3`).
        figure: String,
        /// The alternative it beats beyond noise.
        beats: Option<Beats>,
    },
    /// The pick and these alternatives are practically equal: within the noise threshold.
    Equal {
        /// The pick, then the practically equal ones.
        names: Vec<Named>,
        /// The pick's figure.
        figure: String,
        /// The alternative they beat beyond noise.
        beats: Option<Beats>,
    },
    /// The pick and these alternatives are beyond the noise threshold apart, but their processes overlap.
    CannotTellApart {
        /// The pick.
        pick: Named,
        /// Those this run cannot tell from it.
        others: Vec<Named>,
    },
    /// A control, not an answer: the level is below the point where the question can matter, for this reason.
    Control {
        /// Why it is a control.
        why: String,
    },
    /// No alternative could be the answer: `guards` when some were excluded by a guard, else none ran cleanly.
    Nothing {
        /// Whether an alternative was excluded by a guard (rather than none having run cleanly).
        guards: bool,
    },
}

/// One answer: its level (the phase, absent without a sweep), what it says and, in a family question, how the
/// pick's family stands against the best of another family.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Line {
    /// The phase.
    pub phase: Option<String>,
    /// What it says.
    pub says: Says,
    /// In a family question with a pick: the pick's family against the rival's.
    pub family: Option<FamilySays>,
}

/// In a family question, the pick's family against the best alternative of another family.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FamilySays {
    /// The pick's family.
    pub family: &'static str,
    /// The best alternative of another family, if one could be the answer.
    pub rival: Option<Named>,
    /// How many times better the pick is than the rival, formatted.
    pub factor: String,
    /// How the rival stands.
    pub standing: Standing,
    /// The exact p that the pick is better, formatted, when the rival is beaten.
    pub p: Option<String>,
}

/// One question and what the run answers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Said {
    /// The sentence a user asks.
    pub ask: String,
    /// One line per level; empty when the run has too few processes to answer ([`Answers::too_few`]).
    pub lines: Vec<Line>,
    /// The noise threshold the question was judged with, formatted (`8%`): its metric class's calibrated ratio,
    /// else the run's uncalibrated default.
    pub threshold: String,
}

/// Every question of a run and what it answers, with what the words need besides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Answers {
    /// The questions.
    pub questions: Vec<Said>,
    /// The processes per contestant, when fewer than a verdict needs: no answer can be told.
    pub too_few: Option<u32>,
}

/// What the run of `summary` answers, every figure formatted from its judged answers.
pub(crate) fn said(summary: &Summary) -> Answers {
    let forks = summary.method.forks;
    let too_few = (usize::try_from(forks).unwrap_or(usize::MAX) < MIN_PROCESSES).then_some(forks);
    let questions = summary
        .questions
        .iter()
        // A question none of whose alternatives ran (a run of a few contestants) is not asked.
        .filter(|q| !q.alternatives.is_empty())
        .map(|q| Said {
            ask: ask_of(summary, q),
            lines: if too_few.is_some() {
                Vec::new()
            } else {
                q.answers
                    .iter()
                    .map(|a| Line { phase: a.phase.clone(), says: says(summary, q, a), family: family(summary, q, a) })
                    .collect()
            },
            threshold: percent(q.threshold.map_or_else(|| summary.method.threshold(&q.metric), |t| t.fraction())),
        })
        .collect();
    Answers { questions, too_few }
}

/// The sentence of `q`, its white space collapsed; where another question of `summary` asks the same sentence (a
/// family question on time and its twin on CPU), with the metric that decides it.
fn ask_of(summary: &Summary, q: &QuestionResult) -> String {
    let ask = q.ask.split_whitespace().collect::<Vec<_>>().join(" ");
    let twins = summary.questions.iter().filter(|other| other.ask == q.ask).count();
    if twins > 1 {
        format!("{ask} (on {})", q.metric_words)
    } else {
        ask
    }
}

/// `name` with its family in `summary`.
fn named(summary: &Summary, name: &str) -> Named {
    Named { name: name.to_string(), family: summary.contestant(name).map_or("unknown", |c| c.family.as_str()) }
}

/// In family question `q`, how answer `a`'s pick's family stands against the best of another family.
fn family(summary: &Summary, q: &QuestionResult, a: &Answer) -> Option<FamilySays> {
    let pick = named(summary, a.pick.as_deref().filter(|_| q.family)?);
    let (rival, factor, standing, p) = match &a.rival {
        Some(r) => {
            (Some(Named { name: r.name.clone(), family: family_name(&r.family) }), ratio(r.factor), r.standing, r.p)
        }
        None => (None, String::new(), Standing::Beaten, None),
    };
    let p = p.filter(|_| standing == Standing::Beaten).map(format_p);
    Some(FamilySays { family: pick.family, rival, factor, standing, p })
}

/// A family's name as the summary spells it, as a static string (`unknown` for one it does not know).
fn family_name(family: &str) -> &'static str {
    ["stream", "blocking", "coroutine", "baseline"].into_iter().find(|f| *f == family).unwrap_or("unknown")
}

/// What answer `a` to `q` says.
fn says(summary: &Summary, q: &QuestionResult, a: &Answer) -> Says {
    if let Some(why) = &a.control {
        return Says::Control { why: why.clone() };
    }
    let (Some(pick), Some(value)) = (a.pick.as_deref(), a.value) else {
        return Says::Nothing { guards: !a.excluded.iter().all(|e| e.guard == DID_NOT_RUN) };
    };
    let pick = named(summary, pick);
    if !a.cannot_tell.is_empty() {
        return Says::CannotTellApart { pick, others: a.cannot_tell.iter().map(|n| named(summary, n)).collect() };
    }
    let figure = format!("{} {}", q.metric_words, number(value));
    let beats = a.beats.as_ref().map(|b| Beats {
        who: named(summary, &b.name),
        factor: ratio(b.factor),
        p: if b.verdict == Verdict::Holds { b.p.map(format_p) } else { None },
    });
    if a.equal.is_empty() {
        Says::Use { pick, figure, beats }
    } else {
        let names = std::iter::once(pick).chain(a.equal.iter().map(|n| named(summary, n))).collect();
        Says::Equal { names, figure, beats }
    }
}

/// The reason [`measure::question`] gives an alternative that did not run cleanly.
const DID_NOT_RUN: &str = "did not run cleanly";

/// The answers of `summary`'s run after its table: a heading, then each question and its lines, at most `width`
/// columns wide (never wider than [`crate::table::MAX_WIDTH`]), with ANSI colour when `colour`; empty when the
/// scenario asks no question.
pub(crate) fn render(answers: &Answers, width: usize, colour: bool) -> String {
    if answers.questions.is_empty() {
        return String::new();
    }
    let width = width.clamp(40, crate::table::MAX_WIDTH);
    let paint = |style: Style, text: &str| {
        if colour {
            format!("{}{text}{}", style.render(), style.render_reset())
        } else {
            text.to_string()
        }
    };
    let mut out = String::new();
    let mut put = |style: Style, indent: usize, hang: usize, text: &str| {
        for (i, line) in term::wrap(text, width - indent - hang).iter().enumerate() {
            let pad = " ".repeat(indent + if i == 0 { 0 } else { hang });
            out.push_str(&format!("{pad}{}\n", paint(style, line)));
        }
    };
    put(Style::new().bold(), 0, 0, "answers");
    for q in &answers.questions {
        put(Style::new().bold(), 2, 4, &q.ask);
        if let Some(forks) = answers.too_few {
            let processes = if forks == 1 { "process" } else { "processes" };
            let text = format!(
                "this run cannot tell: {forks} {processes} per contestant, and a verdict needs {MIN_PROCESSES} a side"
            );
            put(yellow(), 4, 2, &text);
            continue;
        }
        for line in &q.lines {
            let (style, mut text) = words(&line.says, &q.threshold);
            if let Some(family) = &line.family {
                text.push_str("; ");
                text.push_str(&family_words(family, &q.threshold));
            }
            let text = match &line.phase {
                Some(phase) => format!("{phase}: {text}"),
                None => text,
            };
            put(style, 4, 2, &text);
        }
    }
    out
}

/// An answer in words, and its colour.
fn words(says: &Says, threshold: &str) -> (Style, String) {
    let who = |n: &Named| format!("{} ({})", n.name, n.family);
    let list = |names: &[Named]| names.iter().map(who).collect::<Vec<_>>().join(", ");
    let beats = |b: &Option<Beats>| match b {
        None => String::new(),
        Some(b) => {
            let apart = match &b.p {
                Some(p) => format!("p = {p}"),
                None => "beyond noise, but not every process apart".to_string(),
            };
            format!(", {} better than {} ({apart})", b.factor, who(&b.who))
        }
    };
    match says {
        Says::Use { pick, figure, beats: b } => {
            let alone = if b.is_none() { " (the only alternative that could be the answer)" } else { "" };
            (green(), format!("use {}: {figure}{}{alone}", who(pick), beats(b)))
        }
        Says::Equal { names, figure, beats: b } => (
            green(),
            format!("{} practically equal (within the {threshold} noise threshold): {figure}{}", list(names), beats(b)),
        ),
        Says::CannotTellApart { pick, others } => (
            yellow(),
            format!(
                "this run cannot tell {} from {}: more than {threshold} apart, but their processes overlap",
                who(pick),
                list(others)
            ),
        ),
        Says::Control { why } => (yellow(), format!("a control, not an answer: {why}")),
        Says::Nothing { guards: true } => (yellow(), "no alternative can be the answer: none met every guard".into()),
        Says::Nothing { guards: false } => {
            (yellow(), "no alternative can be the answer: none ran cleanly and measured it".into())
        }
    }
}

/// A family question's line on the families: the pick's family against the best of another.
fn family_words(f: &FamilySays, threshold: &str) -> String {
    let Some(rival) = &f.rival else {
        return format!("the family: {} alone (no other family could be the answer)", f.family);
    };
    let rival_who = format!("{} ({})", rival.name, rival.family);
    match f.standing {
        Standing::Beaten => {
            let p = f.p.as_ref().map_or_else(String::new, |p| format!(", p = {p}"));
            format!("the family: {}, {} better than {rival_who}{p}", f.family, f.factor)
        }
        Standing::Equal => format!(
            "the family: {} and {} practically equal ({rival_who} {} behind, within {threshold})",
            f.family, rival.family, f.factor
        ),
        Standing::CannotTell => format!(
            "the family: this run cannot tell {} from {} ({rival_who} {} behind, but the processes overlap)",
            f.family, rival.family, f.factor
        ),
    }
}

fn green() -> Style {
    Style::new().fg_color(Some(AnsiColor::Green.into()))
}

fn yellow() -> Style {
    Style::new().fg_color(Some(AnsiColor::Yellow.into()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use measure::question::{answer_all, Alternatives, Question};
    use measure::summary::{Family, Role};
    use testkit::fixture::{contestant, processes, summary};

    use super::*;

    /// A run of four channels at two capacities, three processes each, and the question which channel, judged by
    /// the lab's own rule: at capacity 1 `tokio` beats `crossbeam` (every process apart), `flume` is within 20%
    /// of it; at capacity 16 `crossbeam` and `tokio` overlap more than 20% apart; the trap is never the answer.
    fn run() -> Summary {
        let c = |name: &str, family, role, at_1: &[f64], at_16: &[f64]| {
            let metrics = [("capacity_1.ms", processes(at_1)), ("capacity_16.ms", processes(at_16))];
            let metrics = metrics.into_iter().map(|(k, s)| (k.to_string(), s)).collect();
            measure::summary::ContestantSummary { role, ..contestant(name, family, metrics) }
        };
        let mut run = summary(
            "handoff",
            vec![
                c("tokio", Family::Stream, Role::Candidate, &[10.0, 10.2, 10.4], &[20.0, 30.0, 40.0]),
                c("flume", Family::Stream, Role::Candidate, &[11.0, 11.2, 11.4], &[70.0, 71.0, 72.0]),
                c("crossbeam", Family::Blocking, Role::Candidate, &[25.0, 25.5, 26.0], &[38.0, 39.0, 40.0]),
                c("spin", Family::Blocking, Role::Trap, &[1.0, 1.0, 1.0], &[1.0, 1.0, 1.0]),
            ],
        );
        run.phases = vec!["capacity_1".to_string(), "capacity_16".to_string()];
        let question =
            Question::new("channel", "Which  channel?", Alternatives::Candidates, "ms", "ms per million items", false);
        run.questions = answer_all(&run, &[question]);
        run
    }

    /// `text` with every wrapped line (indented 6, under a question or an answer) joined back onto the line it
    /// continues.
    fn unwrapped(text: &str) -> Vec<String> {
        let mut lines: Vec<String> = Vec::new();
        for line in text.lines() {
            match lines.last_mut() {
                Some(last) if line.starts_with("      ") => {
                    last.push(' ');
                    last.push_str(line.trim_start());
                }
                _ => lines.push(line.to_string()),
            }
        }
        lines
    }

    #[test]
    fn each_level_says_what_to_use_by_how_much_or_that_it_cannot_tell() {
        let run = run();
        let text = render(&said(&run), 120, false);
        let lines = unwrapped(&text);
        assert_eq!(lines[0], "answers");
        assert_eq!(lines[1], "  Which channel?");
        let p = format_p(run.questions[0].answers[0].beats.as_ref().unwrap().p.unwrap());
        assert_eq!(
            lines[2],
            format!(
                "    capacity_1: tokio (stream), flume (stream) practically equal (within the 20% noise threshold): \
                 ms per million items 10.2, 2.50× better than crossbeam (blocking) (p = {p})"
            )
        );
        assert_eq!(
            lines[3],
            "    capacity_16: this run cannot tell tokio (stream) from crossbeam (blocking): more than 20% apart, but \
             their processes overlap"
        );
        assert_eq!(lines.len(), 4, "{text}");
    }

    #[test]
    fn a_clear_pick_is_used_and_the_threshold_is_the_run_s_own() {
        let mut run = run();
        run.method.noise_threshold = 0.05;
        let question = Question::new("channel", "Which channel?", Alternatives::Candidates, "ms", "ms", false);
        run.questions = answer_all(&run, &[question]);
        let text = render(&said(&run), 120, false);
        let at_1 = &unwrapped(&text)[2];
        assert!(at_1.starts_with("    capacity_1: use tokio (stream): ms 10.2, 1.10× better than flume (stream) (p = "));
        assert!(unwrapped(&text)[3].contains("more than 5% apart"), "{text}");
    }

    #[test]
    fn too_few_processes_cannot_tell_and_a_run_without_questions_says_nothing() {
        let mut run = run();
        run.method.forks = 1;
        let text = render(&said(&run), 120, false);
        assert_eq!(
            text,
            "answers\n  Which channel?\n    this run cannot tell: 1 process per contestant, and a verdict needs 3 a \
             side\n"
        );
        run.questions.clear();
        assert_eq!(render(&said(&run), 120, false), "");
    }

    #[test]
    fn lines_wrap_within_the_width_and_colour_changes_nothing_but_colour() {
        let run = run();
        let answers = said(&run);
        let narrow = render(&answers, 60, false);
        assert!(narrow.lines().all(|l| term::columns(l) <= 60), "{narrow}");
        assert!(narrow.contains("\n      equal (within"), "a wrapped line hangs under its answer: {narrow}");
        assert_eq!(unwrapped(&narrow), unwrapped(&render(&answers, 120, false)), "the same words at any width");
        let coloured = render(&answers, 60, true);
        assert!(coloured.contains('\u{1b}'));
        assert_eq!(anstream::adapter::strip_str(&coloured).to_string(), narrow);
    }

    #[test]
    fn a_family_answer_names_the_rival_family_and_a_control_says_why() {
        let mut run = run();
        let family = Question::new("family", "Which family?", Alternatives::Candidates, "ms", "ms", false)
            .of_families()
            .control("capacity_16", "a batch is one item here");
        run.questions = answer_all(&run, &[family]);
        let text = render(&said(&run), 200, false);
        let lines = unwrapped(&text);
        let p = format_p(run.questions[0].answers[0].rival.as_ref().unwrap().p.unwrap());
        assert!(
            lines[2].ends_with(&format!("; the family: stream, 2.50× better than crossbeam (blocking), p = {p}")),
            "{text}"
        );
        assert_eq!(lines[3], "    capacity_16: a control, not an answer: a batch is one item here", "{text}");
    }
}
