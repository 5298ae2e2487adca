//! The index of `lab all` (`index.md`), which answers "which should I use" first: a bottom line, a decision table
//! (one row per question and level: the situation → what to use → the evidence → the report), each scenario's
//! status and notes, then the claims. Every cell is one short sentence at most ([`MAX_CELL`] characters).

use measure::record::Status;
use measure::summary::{ClaimResult, Verdict};

use crate::analysis::phase_words;
use crate::claims::{claim_line, Tally};
use crate::format;
use crate::table::{columns, index_cell, Align, Table};
use crate::ReportInput;
use serde::Serialize;
use serde_json::{json, Value};

/// The longest a cell of the index's tables may be, in characters: one sentence.
pub const MAX_CELL: usize = 200;

/// One scenario's line in the index.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexEntry {
    /// Scenario name.
    pub scenario: String,
    /// Title of its report.
    pub title: String,
    /// Path of its report relative to the index, such as `chain.md`.
    pub report_path: String,
    /// Its status line (see [`crate::status_line`]).
    pub status_line: String,
    /// The scenario's own findings ([`ReportInput::headline_notes`]), one markdown sentence each.
    pub notes: Vec<String>,
    /// Its claims and their verdicts.
    pub claims: Vec<ClaimResult>,
    /// The run's method, whose thresholds (per class, and where they came from) the index states once.
    pub method: measure::setup::Method,
    /// Whether every contestant that ran passed its checks, the run finished, and it was not `--quick`.
    pub trustworthy: bool,
    /// The scenario's questions, one decision row per question and phase.
    pub questions: Vec<QuestionRow>,
    /// Each question's answer in a few words, for the index's bottom line.
    pub bottom_line: Vec<BottomLine>,
    /// Its family questions' answers, for the family matrix (this run's core count's column).
    pub families: crate::matrix::FamilyRun,
    /// The machine's floor the run cites, or why none (`environment.floor`), which the index states once.
    pub floor: Option<measure::floor::FloorUse>,
}

/// One question's answer in a few words: the index's bottom line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BottomLine {
    /// The question's id (the report's anchor is `question-<id>`).
    pub id: String,
    /// The situation in a few words (the question's sentence when it names none).
    pub situation: String,
    /// Where its situation links: the question's answer in the report, or, for a family question, its rows in the
    /// family matrix (`#family-<scenario>-<id>`).
    pub link: String,
    /// The answer over the phases, one part per run of phases with the same answer.
    pub parts: Vec<BottomPart>,
}

/// The answer over a run of phases that share it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BottomPart {
    /// What kind of answer it is: `one` (the pick, ahead of every other alternative in every process),
    /// `tie` (the pick and practically equal alternatives of its family, nothing else eligible beaten), `families`
    /// (practically equal alternatives of several families), `cannot-tell` (the processes overlap), `ahead`
    /// (ahead beyond noise, not in every process), `alone` (nothing else could answer), `control` (a level below
    /// the point where the question can matter) or `none`; in a family question, `family-beaten`,
    /// `family-equal`, `family-cannot-tell` or `family-alone`: the pick's family against the best of another
    /// ([`BottomPart::rival`]).
    pub kind: &'static str,
    /// The pick.
    pub pick: Option<String>,
    /// Its family.
    pub family: Option<&'static str>,
    /// The families of the pick and the alternatives practically equal to it, in that order, each once.
    pub families: Vec<&'static str>,
    /// How many alternatives are practically equal to the pick.
    pub equal: usize,
    /// The alternatives practically equal to the pick, by name.
    pub equal_names: Vec<String>,
    /// The alternatives this run cannot tell from the pick.
    pub cannot_tell: Vec<String>,
    /// The phases, in words (empty when the question has no sweep).
    pub phases: Vec<String>,
    /// In a family question, the best alternative of another family: its family and how many times better the
    /// pick is (formatted).
    pub rival: Option<BottomRival>,
}

/// In a family question's bottom line, the best alternative of another family.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BottomRival {
    /// Its family.
    pub family: String,
    /// How many times better the pick is, formatted.
    pub factor: String,
}

/// The bottom line of every question of `summary`.
fn bottom_lines(summary: &measure::summary::Summary) -> Vec<BottomLine> {
    crate::questions::asked(summary)
        .map(|q| {
            let mut parts: Vec<BottomPart> = Vec::new();
            for a in &q.answers {
                let part = bottom_part(summary, q.family, a);
                let phase = a.phase.as_deref().map(phase_words);
                match parts.last_mut() {
                    Some(last) if BottomPart { phases: Vec::new(), ..last.clone() } == part => {
                        last.phases.extend(phase);
                    }
                    _ => parts.push(BottomPart { phases: phase.into_iter().collect(), ..part }),
                }
            }
            let situation = if q.situation.is_empty() { &q.ask } else { &q.situation };
            let link = if q.family {
                format!("#{}", crate::matrix::anchor(&summary.scenario, &q.id))
            } else {
                format!("{}.md#question-{}", summary.scenario, q.id)
            };
            BottomLine { id: q.id.clone(), situation: situation.clone(), link, parts }
        })
        .collect()
}

/// One phase's answer in a few words (its phases left empty); in a family question (`family`), the pick's family
/// against the best of another.
fn bottom_part(
    summary: &measure::summary::Summary,
    family_question: bool,
    a: &measure::question::Answer,
) -> BottomPart {
    let family = |name: &str| crate::questions::named(summary, name).family;
    let mut families: Vec<&'static str> = Vec::new();
    for f in a.pick.iter().chain(&a.equal).map(|n| family(n)) {
        if !families.contains(&f) {
            families.push(f);
        }
    }
    let kind = match (&a.pick, &a.beats, &a.rival) {
        _ if a.control.is_some() => "control",
        (None, _, _) => "none",
        (Some(_), _, Some(rival)) if family_question => match rival.standing {
            measure::question::Standing::Beaten => "family-beaten",
            measure::question::Standing::Equal => "family-equal",
            measure::question::Standing::CannotTell => "family-cannot-tell",
        },
        (Some(_), _, None) if family_question => "family-alone",
        _ if families.len() > 1 => "families",
        _ if !a.cannot_tell.is_empty() => "cannot-tell",
        (Some(_), Some(beats), _) if beats.verdict == Verdict::Holds => "one",
        (Some(_), Some(_), _) => "ahead",
        (Some(_), None, _) if !a.equal.is_empty() => "tie",
        (Some(_), None, _) => "alone",
    };
    let rival = a.rival.as_ref().filter(|_| family_question).map(|r| BottomRival {
        family: r.family.clone(),
        // The factor only where it is a finding (beaten); ties of any size read alike, so their phases merge.
        factor: if r.standing == measure::question::Standing::Beaten { format::ratio(r.factor) } else { String::new() },
    });
    BottomPart {
        kind,
        pick: a.pick.clone(),
        family: a.pick.as_deref().map(family),
        families,
        equal: a.equal.len(),
        equal_names: a.equal.clone(),
        cannot_tell: a.cannot_tell.clone(),
        phases: Vec::new(),
        rival,
    }
}

/// One question's answer at one phase, as a row of the index's decision table.
#[derive(Debug, Clone, PartialEq)]
pub struct QuestionRow {
    /// The question's id (the report's anchor is `question-<id>`).
    pub id: String,
    /// The sentence a user asks.
    pub ask: String,
    /// The phase in words, or `None` without a sweep.
    pub phase: Option<String>,
    /// The "use" cell, rendered.
    pub pick: String,
    /// The evidence cell, rendered.
    pub evidence: String,
}

/// The decision rows of every question of `summary`.
fn question_rows(summary: &measure::summary::Summary) -> Vec<QuestionRow> {
    let mut rows = Vec::new();
    for (q, view) in crate::questions::asked(summary).zip(crate::questions::views(summary)) {
        for (a, a_view) in q.answers.iter().zip(view["answers"].as_array().into_iter().flatten()) {
            let pick = match a_view["pick"] {
                Value::Null if a.control.is_some() => index_cell(json!({ "kind": "control" })),
                Value::Null => index_cell(json!({ "kind": "no-pick" })),
                ref pick => {
                    let equal = a_view["equal"].as_array().into_iter().flatten();
                    let picks: Vec<&Value> = std::iter::once(pick).chain(equal).collect();
                    index_cell(json!({ "kind": "pick", "picks": picks, "more": 0 }))
                }
            };
            let evidence = index_cell(json!({ "kind": "question", "q": view, "a": a_view }));
            let phase = a.phase.as_deref().map(phase_words);
            // A question asked twice, on two metrics (a family question on time and on CPU), names its metric.
            let ask = if summary.questions.iter().filter(|other| other.ask == q.ask).count() > 1 {
                format!("{} (on {})", q.ask, q.metric_words)
            } else {
                q.ask.clone()
            };
            rows.push(QuestionRow { id: q.id.clone(), ask, phase, pick, evidence });
        }
    }
    rows
}

impl IndexEntry {
    /// The entry for the report rendered from `input`, at `<scenario>.md`.
    pub fn from_input(input: &ReportInput<'_>) -> Self {
        let summary = input.summary;
        // A failure the registry expects (a peer crate's known behaviour) is a finding, shown with its cause in
        // the status line; one expected that did not come is as doubtful as an unexpected one.
        let failed = summary.contestants.iter().any(|c| {
            let expected = c.expected_failure.is_some();
            (matches!(c.status, Status::Failed | Status::Timeout) && !crate::analysis::failed_as_expected(c))
                || (expected && c.status == Status::Ok)
        });
        IndexEntry {
            scenario: summary.scenario.clone(),
            title: input.title.to_string(),
            report_path: format!("{}.md", summary.scenario),
            status_line: crate::status_line(summary),
            notes: input.headline_notes.clone(),
            claims: summary.claims.clone(),
            method: summary.method.clone(),
            trustworthy: !failed
                && crate::analysis::failed_guards(summary).is_empty()
                && !summary.finished_utc.is_empty()
                && !summary.method.quick,
            questions: question_rows(summary),
            bottom_line: bottom_lines(summary),
            families: crate::matrix::FamilyRun::of(summary),
            floor: summary.environment.floor.clone(),
        }
    }
}

impl Tally {
    /// The tally in words, from `templates/index-cells.md`.
    fn describe(self) -> String {
        index_cell(json!({
            "kind": "tally", "holds": self.holds, "fails": self.fails, "inconclusive": self.inconclusive,
        }))
    }
}

/// `text` cut to at most [`MAX_CELL`] characters, ending in `…` where cut (and closing a code span it cut open).
fn fit(text: String) -> String {
    if text.chars().count() <= MAX_CELL {
        return text;
    }
    // Cut at the last word boundary within the limit where every code span and parenthesis opened is closed,
    // dropping the separator that led to it, so a cut never leaves a span, a bracket or an empty span open.
    let limit: String = text.chars().take(MAX_CELL - 1).collect();
    let balanced = |s: &str| s.matches('`').count() % 2 == 0 && s.matches('(').count() == s.matches(')').count();
    let cut = limit
        .char_indices()
        .rev()
        .filter(|&(i, c)| c == ' ' && balanced(&limit[..i]))
        .map(|(i, _)| limit[..i].trim_end_matches([' ', ',', ';', ':', '—']))
        .find(|kept| !kept.is_empty())
        .map(str::to_string)
        // No such boundary (one long span): close the span in place of its last character, without brackets.
        .unwrap_or_else(|| {
            let mut words: String = limit.replace(['(', ')'], "").chars().take(MAX_CELL - 2).collect();
            if words.matches('`').count() % 2 == 1 {
                words.pop();
                words.push('`');
            }
            words
        });
    format!("{cut}…")
}

/// Render `index.md` for `entries`, in the order given, into `templates/index.md`, its family matrix of their runs
/// alone. Pure: the same entries give the same bytes.
pub fn render_index(entries: &[IndexEntry]) -> String {
    render_index_across(entries, &[])
}

/// Render `index.md` for `entries` ([`render_index`]), its family matrix of their runs and of `other_cores`, the
/// family answers of the same scenarios' runs at other core counts (read from their summaries). Pure.
pub fn render_index_across(entries: &[IndexEntry], other_cores: &[crate::matrix::FamilyRun]) -> String {
    let order: Vec<&str> = entries.iter().map(|e| e.scenario.as_str()).collect();
    let runs: Vec<&crate::matrix::FamilyRun> = entries.iter().map(|e| &e.families).chain(other_cores).collect();
    let matrix = crate::matrix::FamilyMatrix::of(&order, &runs);
    let mut decisions = Table::new(&columns("decisions", &[Align::Left; 5]));
    let mut rows = 0;
    for entry in entries {
        // The scenario's rows, each with its anchor in the report: one per question and phase.
        let mut cells: Vec<([String; 3], String)> = Vec::new();
        let mut last_question = "";
        for q in &entry.questions {
            let situation = match (&q.phase, q.id != last_question) {
                (Some(phase), true) => format!("{} — {phase}", q.ask),
                (None, true) => q.ask.clone(),
                (phase, false) => format!("↳ {}", phase.as_deref().unwrap_or_default()),
            };
            last_question = &q.id;
            cells.push(([situation, q.pick.clone(), q.evidence.clone()], format!("#question-{}", q.id)));
        }
        // The first row tallies the scenario's claims; the others leave the tally out.
        for (i, ([situation, pick, evidence], anchor)) in cells.into_iter().enumerate() {
            let tally = if i == 0 { Tally::of(&entry.claims).describe() } else { String::new() };
            let link = format!("[{}]({}{anchor})", entry.scenario, entry.report_path);
            decisions.row(&[fit(situation), fit(pick), fit(evidence), tally, link]);
            rows += 1;
        }
    }
    let total = Tally::of(entries.iter().flat_map(|e| &e.claims));
    // What the template reads of each scenario: the entry's own fields and its claims ([`claim_line`]).
    let views: Vec<Value> = entries
        .iter()
        .map(|e| {
            json!({
                "scenario": e.scenario,
                "title": e.title,
                "report_path": e.report_path,
                "status_line": e.status_line,
                "has_questions": !e.questions.is_empty(),
                "bottom_line": e.bottom_line,
                "notes": e.notes,
                "claims": e.claims.iter().map(claim_line).collect::<Vec<_>>(),
            })
        })
        .collect();
    let doubtful: Vec<&Value> = views.iter().zip(entries).filter(|(_, e)| !e.trustworthy).map(|(v, _)| v).collect();
    // The thresholds, stated once: one sentence for every scenario judged alike, else one per group of them.
    let mut thresholds: Vec<(String, Vec<&str>)> = Vec::new();
    for e in entries {
        let statement = crate::thresholds::statement_all(&e.method);
        match thresholds.iter_mut().find(|(s, _)| *s == statement) {
            Some((_, names)) => names.push(&e.scenario),
            None => thresholds.push((statement, vec![&e.scenario])),
        }
    }
    let thresholds: Vec<Value> = thresholds
        .into_iter()
        .map(|(statement, scenarios)| json!({ "statement": statement, "scenarios": scenarios }))
        .collect();
    // The machine's floor, stated once: one line for every scenario that cites the same floor (or cites none for
    // the same reason), else one per group; runs made before runs cited a floor say nothing of one.
    let mut floors: Vec<(Value, Vec<&str>)> = Vec::new();
    for e in entries {
        let Some(floor) = &e.floor else { continue };
        let view = crate::floor::cited_view(floor);
        match floors.iter_mut().find(|(v, _)| *v == view) {
            Some((_, names)) => names.push(&e.scenario),
            None => floors.push((view, vec![&e.scenario])),
        }
    }
    let floors: Vec<Value> =
        floors.into_iter().map(|(floor, scenarios)| json!({ "floor": floor, "scenarios": scenarios })).collect();
    let context = json!({
        "floors": floors,
        "matrix": matrix.table(),
        "paragraph": matrix.paragraph(),
        "thresholds": thresholds,
        "bottom_line": entries.iter().any(|e| !e.bottom_line.is_empty()),
        "entries": views,
        "doubtful": doubtful,
        "decisions": if rows == 0 { String::new() } else { decisions.render() },
        "total": total,
    });
    let text = template!("index.md", context);
    format!("{}\n", text.trim_end())
}

/// The cells of every markdown table in `markdown`, trimmed (header and separator rows included).
pub fn table_cells(markdown: &str) -> Vec<String> {
    markdown
        .lines()
        .filter(|line| line.starts_with('|'))
        .flat_map(|line| {
            let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
            // Split on pipes that are not escaped.
            let mut cells = Vec::new();
            let mut current = String::new();
            let mut escaped = false;
            for ch in inner.chars() {
                if ch == '|' && !escaped {
                    cells.push(current.trim().to_string());
                    current.clear();
                } else {
                    current.push(ch);
                }
                escaped = ch == '\\';
            }
            cells.push(current.trim().to_string());
            cells
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use testkit::text::holds;

    /// A decision row of question `id` at `phase`.
    fn row(id: &str, phase: &str, pick: &str) -> QuestionRow {
        QuestionRow {
            id: id.to_string(),
            ask: format!("Which {id} should I use?"),
            phase: Some(phase.to_string()),
            pick: format!("`{pick}` (blocking)"),
            evidence: format!("10.0 ms per million; 4.00× better than `stream-{id}`."),
        }
    }

    fn entry(name: &str, verdicts: &[Verdict]) -> IndexEntry {
        IndexEntry {
            scenario: name.to_string(),
            title: format!("The {name} scenario: what it measures"),
            report_path: format!("{name}.md"),
            status_line: "✅ All 3 contestants passed their checks.".to_string(),
            notes: vec!["Without a bound, outstanding work ran away.".to_string()],
            claims: verdicts.iter().map(|v| ClaimResult::new(format!("{name} claim"), *v, "d")).collect(),
            method: testkit::fixture::method(),
            trustworthy: true,
            questions: vec![row("channel", "capacity 1", "blocking-crossbeam"), row("channel", "capacity 256", "x")],
            bottom_line: Vec::new(),
            families: Default::default(),
            floor: None,
        }
    }

    fn part(kind: &'static str, pick: &str, family: &'static str, phases: &[&str]) -> BottomPart {
        BottomPart {
            kind,
            pick: Some(pick.to_string()),
            family: Some(family),
            families: vec![family],
            equal: 0,
            equal_names: Vec::new(),
            cannot_tell: Vec::new(),
            phases: phases.iter().map(|p| p.to_string()).collect(),
            rival: None,
        }
    }

    #[test]
    fn the_index_states_the_floor_once_for_the_scenarios_that_cite_it_alike() {
        let medians = vec![30_000.0, 30_774.0, 31_000.0];
        let figure = measure::floor::FloorFigure::of_processes("wake_across_cpus", "a wake-up", medians, &[]);
        let cited = measure::floor::FloorUse {
            file: "reports/floor.json".to_string(),
            measured_utc: "2026-12-07T03:00:00Z".to_string(),
            git_rev: "abc1234".to_string(),
            processes: 3,
            figures: vec![figure],
            ..Default::default()
        };
        let (mut chain, mut handoff, old) = (entry("chain", &[]), entry("handoff", &[]), entry("tcp", &[]));
        chain.floor = Some(cited.clone());
        handoff.floor = Some(cited);
        let text = render_index_across(&[chain.clone(), handoff.clone(), old.clone()], &[]);
        assert_eq!(text.matches("**The machine's floor**").count(), 1, "{text}");
        assert!(
            text.contains(
                "**The machine's floor**: measured by `lab floor` at revision `abc1234` from 2026-12-07T03:00:00Z, ns \
                 per operation, the median of 3 process medians (each report's testbed gives them all): \
                 `wake_across_cpus` 30,774."
            ),
            "{text}"
        );
        // A scenario that cites none says why, apart from those that cite it.
        handoff.floor = Some(measure::floor::FloorUse::none());
        let text = render_index_across(&[chain, handoff, old], &[]);
        holds(
            &text,
            &[
                "**The machine's floor cited by chain**: measured by",
                "**The machine's floor cited by handoff**: none cited: --floor none: the run cited no floor.",
            ],
        );
    }

    /// The bottom line of question `id` of `scenario`, asked of `situation`, with `parts`.
    fn bottom(scenario: &str, id: &str, situation: &str, parts: Vec<BottomPart>) -> BottomLine {
        let (id, situation, link) = (id.to_string(), situation.to_string(), format!("{scenario}.md#question-{id}"));
        BottomLine { id, situation, link, parts }
    }

    #[test]
    fn the_index_opens_with_a_bottom_line_of_one_short_line_per_scenario_linked_to_each_question() {
        let mut chain = entry("chain", &[]);
        let stages = BottomPart {
            cannot_tell: vec!["a".into(), "b".into(), "c".into()],
            ..part("cannot-tell", "stream-tokio-tasks-fused-batched", "stream", &["work 0", "work 64"])
        };
        chain.bottom_line = vec![
            bottom(
                "chain",
                "collection",
                "CPU-bound work over a collection",
                vec![
                    part("one", "baseline-loop", "baseline", &["work 0"]),
                    part("one", "blocking-rayon", "blocking", &["work 64"]),
                ],
            ),
            bottom("chain", "stages", "the same work as concurrent stages", vec![stages]),
        ];
        let mut tcp = entry("tcp", &[]);
        let families = BottomPart {
            families: vec!["stream", "coroutine", "blocking"],
            equal: 2,
            ..part("families", "stream-tokio-tasks", "stream", &[])
        };
        tcp.bottom_line = vec![bottom("tcp", "family", "request/response over TCP", vec![families])];
        let mut tie = entry("tie", &[]);
        let practically_equal = BottomPart {
            equal: 2,
            equal_names: vec!["stream-block-in-place".into(), "stream-spawn-blocking".into()],
            ..part("tie", "stream-tokio-tasks", "stream", &[])
        };
        tie.bottom_line =
            vec![bottom("tie", "blocking-call", "blocking socket code inside tokio", vec![practically_equal])];
        let tied = render_index(&[tie]);
        assert!(
            tied.contains(
                "[blocking socket code inside tokio](tie.md#question-blocking-call): `stream-tokio-tasks` (stream), \
                 practically equal to `stream-block-in-place` and `stream-spawn-blocking`."
            ),
            "a tie reads as a tie, naming the alternatives practically equal: {tied}"
        );
        assert!(!tied.contains("the only alternative"), "{tied}");
        let text = render_index(&[chain, tcp]);
        let section: Vec<&str> =
            text.lines().skip_while(|l| *l != "## The bottom line").take_while(|l| !l.starts_with("## What")).collect();
        assert!(!section.is_empty() && section.len() < 15, "{text}");
        assert!(text.find("## The bottom line") < text.find("## What to use"), "it opens the index: {text}");
        holds(
            &text,
            &[
                "- **[chain](chain.md)**: [CPU-bound work over a collection](chain.md#question-collection): \
                 `baseline-loop` (baseline) at work 0, `blocking-rayon` (blocking) at work 64; [the same work as \
                 concurrent stages](chain.md#question-stages): `stream-tokio-tasks-fused-batched` (stream) or `a`, \
                 `b` and 1 more: this run cannot tell.",
                "- **[tcp](tcp.md)**: [request/response over TCP](tcp.md#question-family): stream, coroutine, \
                 blocking practically equal (best `stream-tokio-tasks`).",
            ],
        );
        let without = render_index(&[entry("handoff", &[])]);
        assert!(!without.contains("## The bottom line"), "no questions, no bottom line: {without}");
    }

    #[test]
    fn a_cell_cut_at_a_code_span_leaves_no_empty_span() {
        for lead in 0..12 {
            let text = format!(
                "{} {}",
                "x".repeat(MAX_CELL - 12 - lead),
                "; `a-name` (blocking), `long-enough-to-cross-the-cut`."
            );
            let cut = fit(text);
            assert!(!cut.contains("``"), "{cut}");
            assert_eq!(cut.matches('`').count() % 2, 0, "{cut}");
            assert_eq!(cut.matches('(').count(), cut.matches(')').count(), "{cut}");
            assert!(cut.chars().count() <= MAX_CELL, "{cut}");
        }
    }

    /// An entry with the longest names and title the lab could give, to test the cell limit.
    fn long_entry() -> IndexEntry {
        let mut e = entry("handoff", &[Verdict::Holds]);
        e.title = format!("{}: and more", "A very long situation name ".repeat(12));
        for q in &mut e.questions {
            q.pick = format!("`{}` (blocking)", "a-name-with-a-very-long-suffix".repeat(8));
            q.evidence = format!("10.0 ms per million; {}.", "4.00× better than `stream-with-a-long-name`; ".repeat(6));
        }
        e
    }

    #[test]
    fn the_decision_table_has_one_row_per_question_and_level_and_the_tally_once() {
        let text = render_index(&[entry("handoff", &[Verdict::Holds, Verdict::Fails])]);
        assert!(text.starts_with("# Streams vs blocking: which should I use?"));
        assert!(
            text.contains("| Which channel should I use? — capacity 1 | `blocking-crossbeam` (blocking) "),
            "{text}"
        );
        assert!(text.contains("| ↳ capacity 256 "), "later levels do not repeat the question: {text}");
        assert!(text.contains("| 1 hold, 1 fail, 0 inconclusive | [handoff](handoff.md#question-channel) |"), "{text}");
        let tallies = text.lines().filter(|l| l.starts_with('|') && l.contains("1 hold, 1 fail")).count();
        assert_eq!(tallies, 1, "the tally once per scenario: {text}");
        assert!(text.contains("- Without a bound, outstanding work ran away."));
    }

    #[test]
    fn claims_follow_with_their_tally() {
        let text = render_index(&[
            entry("chain", &[Verdict::Holds, Verdict::Fails]),
            entry("handoff", &[Verdict::Inconclusive]),
        ]);
        assert!(text.contains("Over all scenarios: 1 hold, 1 fail, 1 inconclusive."));
        assert!(text.contains("- **inconclusive**: handoff claim"));
        let decision = text.find("## What to use").unwrap();
        let grid = text.find("## Winners by scenario").unwrap();
        let claims = text.find("## Claims").unwrap();
        assert!(decision < grid && grid < claims);
    }

    #[test]
    fn no_cell_is_longer_than_one_sentence_of_200_characters() {
        let text = render_index(&[entry("chain", &[Verdict::Holds]), long_entry()]);
        let cells = table_cells(&text);
        assert!(cells.len() > 20, "{} cells", cells.len());
        let longest = cells.iter().map(|c| c.chars().count()).max().unwrap();
        assert!(longest <= MAX_CELL, "longest cell {longest}: {text}");
        // The long names were cut, not dropped.
        assert!(text.contains("…"), "{text}");
    }

    #[test]
    fn a_cut_cell_closes_its_code_span() {
        let cut = fit(format!("`{}`", "x".repeat(300)));
        assert!(cut.chars().count() <= MAX_CELL, "{cut}");
        assert!(cut.ends_with("x`…"), "{cut}");
        assert_eq!(cut.matches('`').count(), 2);
    }

    #[test]
    fn runs_to_read_with_care_are_named_first() {
        let mut doubtful = entry("chain", &[]);
        doubtful.trustworthy = false;
        doubtful.status_line = "⚠️ This was a `--quick` smoke run.".to_string();
        let text = render_index(&[doubtful, entry("handoff", &[])]);
        assert!(text.contains("⚠️ Read these with care:\n\n- [chain](chain.md): ⚠️ This was a `--quick` smoke run.\n"));
        assert!(!text.contains("- [handoff](handoff.md)"));
    }

    #[test]
    fn phase_names_read_as_words() {
        assert_eq!(phase_words("capacity_256"), "capacity 256");
        assert_eq!(phase_words("count_1000-payload_0"), "count 1000, payload 0");
        assert_eq!(phase_words("in_flight_1000"), "in flight 1000");
        assert_eq!(phase_words("before_drop"), "before drop");
    }

    #[test]
    fn an_empty_index_says_so() {
        assert!(render_index(&[]).contains("No scenarios were run"));
    }

    #[test]
    fn an_entry_of_a_run_where_a_contestant_failed_is_read_with_care() {
        let summary = crate::analysis::tests::fixture();
        let entry = IndexEntry::from_input(&crate::analysis::tests::input(&summary));
        assert!(!entry.trustworthy, "a contestant failed");
    }

    #[test]
    fn a_run_whose_guard_failed_is_read_with_care() {
        let mut summary = crate::analysis::tests::fixture();
        summary.contestants.pop();
        let trusted = |summary: &measure::summary::Summary| {
            IndexEntry::from_input(&crate::analysis::tests::input(summary)).trustworthy
        };
        assert!(trusted(&summary), "every contestant passed");
        let guard = ClaimResult { guard: true, ..ClaimResult::new("The lab is within 1.1×.", Verdict::Fails, "") };
        summary.claims.push(guard);
        assert!(!trusted(&summary), "its guard failed");
    }
}
