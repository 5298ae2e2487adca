//! The index of `lab all` (`index.md`), which answers "which should I use" first: a decision table (your
//! situation → what to use → the evidence → the report), then a winners grid per scenario (best stream, best
//! blocking, best coroutine where one ran, and the baseline, with the margin and the noise marked), then the
//! claims. Every cell is one short sentence at most ([`MAX_CELL`] characters).

use measure::pick::{family_bests, ratio as compare, Analysis, Entry, Ratio};
use measure::record::Status;
use measure::summary::{metric_key, ClaimResult, Family, MetricStats, Verdict};

use crate::analysis::phase_words;
use crate::claims::{claim_line, Tally};
use crate::format;
use crate::table::{columns, headers, index_cell, Align, Table};
use crate::ReportInput;
use serde::Serialize;
use serde_json::{json, Value};

/// The longest a cell of the index's tables may be, in characters: one sentence.
pub const MAX_CELL: usize = 200;

/// The best contestant of one family at one phase, on the scenario's headline metric.
#[derive(Debug, Clone, PartialEq)]
pub struct FamilyBest {
    /// Its family.
    pub family: Family,
    /// Its name.
    pub name: String,
    /// Its statistics on the headline metric at that phase.
    pub stats: MetricStats,
}

/// The best contestant of each family at one phase (families without a contestant that passed are absent).
#[derive(Debug, Clone, PartialEq)]
pub struct PhaseWinners {
    /// The phase, or `None` when the scenario has no sweep.
    pub phase: Option<String>,
    /// Best candidate per family (the best baseline for [`Family::Baseline`]), in the order
    /// [`measure::pick::FAMILY_ORDER`] gives (baseline, stream, blocking, coroutine).
    pub best: Vec<FamilyBest>,
    /// The pick: the best candidate and every candidate within noise of it, best first (empty when no
    /// candidate measured the metric).
    pub pick: Vec<FamilyBest>,
}

impl PhaseWinners {
    fn of(&self, family: Family) -> Option<&FamilyBest> {
        self.best.iter().find(|b| b.family == family)
    }
}

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
    /// The headline metric, without phase prefix.
    pub metric: String,
    /// Whether a larger headline metric is better.
    pub higher_is_better: bool,
    /// The threshold of the headline metric (0.2 = 20%): its class's calibrated smallest detectable ratio less 1,
    /// or the uncalibrated default ([`measure::calibration::Thresholds`]).
    pub noise_threshold: f64,
    /// The run's method, whose thresholds (per class, and where they came from) the index states once.
    pub method: measure::setup::Method,
    /// Whether every contestant that ran passed its checks, the run finished, and it was not `--quick`.
    pub trustworthy: bool,
    /// The best contestant per family at each phase.
    pub winners: Vec<PhaseWinners>,
    /// The scenario's questions, one decision row per question and phase; when there are any they replace the
    /// rows of the generic pick in the decision table.
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
        Self::from_analysis(input, &input.analysis())
    }

    /// The entry for the report rendered from `input`, whose `analysis` ([`ReportInput::analysis`]) is computed.
    pub fn from_analysis(input: &ReportInput<'_>, analysis: &Analysis<'_>) -> Self {
        let summary = input.summary;
        let as_best = |e: Entry<'_>| FamilyBest {
            family: e.contestant.family,
            name: e.contestant.name.clone(),
            stats: e.stats.clone(),
        };
        let winners = summary
            .phase_keys()
            .into_iter()
            .map(|phase| {
                let key = metric_key(phase, input.headline_metric);
                let best = family_bests(summary, &key, input.higher_is_better).into_iter().map(as_best).collect();
                let pick =
                    analysis.at(phase).map(|a| a.picks.iter().copied().map(as_best).collect()).unwrap_or_default();
                PhaseWinners { phase: phase.map(str::to_string), best, pick }
            })
            .collect();
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
            metric: input.headline_metric.to_string(),
            higher_is_better: input.higher_is_better,
            noise_threshold: summary.method.threshold(input.headline_metric),
            method: summary.method.clone(),
            trustworthy: !failed
                && crate::analysis::failed_guards(summary).is_empty()
                && !summary.finished_utc.is_empty()
                && !summary.method.quick,
            winners,
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

/// How `a` compares with `b` for a reader (`2.10× worse`, `1.05× better (practically equal)` once rendered): the
/// factor between the medians (at least 1, formatted), whether `a` is better by the metric's direction, and why the
/// difference is within noise, when it is; `None` where no ratio means anything.
fn margin(a: &MetricStats, b: &MetricStats, threshold: f64, higher_is_better: bool) -> Option<Value> {
    let ratio = compare(a, b, threshold)?;
    let a_better = if higher_is_better { ratio.value > 1.0 } else { ratio.value < 1.0 };
    let factor = if ratio.value >= 1.0 { ratio.value } else { 1.0 / ratio.value };
    Some(json!({ "factor": format::ratio(factor), "better": a_better, "noise": ratio.why }))
}

/// The situation, use and evidence cells of the decision row of one phase of a scenario: what to use (the best
/// contestant that is not a baseline) and the evidence (its figure, its margin over the best of the other families,
/// its cost over the baseline).
///
/// The first row of a scenario names the situation (its title, and the level); the scenario's further rows give
/// only the level (`↳ capacity 256`), so the table does not repeat itself.
fn decision_row(entry: &IndexEntry, winners: &PhaseWinners, first: bool) -> Option<[String; 3]> {
    let better_of = |a: &'_ FamilyBest, b: &'_ FamilyBest| -> bool {
        if entry.higher_is_better {
            b.stats.median > a.stats.median
        } else {
            b.stats.median < a.stats.median
        }
    };
    let best_among = |families: &[Family]| -> Option<&FamilyBest> {
        winners.best.iter().filter(|b| families.contains(&b.family)).reduce(|a, b| if better_of(a, b) { b } else { a })
    };
    let pick = winners.pick.first()?;
    let title = entry.title.trim();
    let situation = match (&winners.phase, first) {
        (Some(phase), true) => format!("{title} — {}", phase_words(phase)),
        (Some(phase), false) => format!("↳ {}", phase_words(phase)),
        (None, _) => title.to_string(),
    };
    // The other side of the question: the best blocking contestant against a stream pick, the best stream one
    // against a blocking pick, and the better of the two against a coroutine pick.
    let (rival, missing_rival) = match pick.family {
        Family::Stream => (winners.of(Family::Blocking), Some(Family::Blocking.as_str())),
        Family::Blocking => (winners.of(Family::Stream), Some(Family::Stream.as_str())),
        Family::Coroutine | Family::Baseline => (best_among(&[Family::Stream, Family::Blocking]), None),
    };
    let evidence = index_cell(json!({
        "kind": "evidence",
        "value": format::number(pick.stats.median),
        "metric": entry.metric,
        "picks": winners.pick.len(),
        "rival": rival.map(|other| json!({
            "family": other.family.as_str(),
            "name": other.name,
            "margin": margin(&other.stats, &pick.stats, entry.noise_threshold, entry.higher_is_better),
        })),
        "missing_rival": missing_rival,
        "baseline_ratio": winners
            .of(Family::Baseline)
            .and_then(|baseline| compare(&pick.stats, &baseline.stats, entry.noise_threshold))
            .map(times_baseline),
    }));
    Some([situation, pick_cell(&winners.pick), evidence])
}

/// The "use" cell: `` `x` (stream) ``, or `` any of `x` (stream), `y` (blocking) `` when candidates tie.
fn pick_cell(pick: &[FamilyBest]) -> String {
    /// The most tied picks a cell names; the rest are counted.
    const NAMED: usize = 4;
    let picks: Vec<Value> =
        pick.iter().take(NAMED).map(|p| json!({ "name": p.name, "family": p.family.as_str() })).collect();
    index_cell(json!({ "kind": "pick", "picks": picks, "more": pick.len().saturating_sub(NAMED) }))
}

/// A ratio to the baseline, for a cell (`20.6× the baseline`, with why it is within noise when it is, once
/// rendered).
fn times_baseline(ratio: Ratio) -> Value {
    json!({ "ratio": format::ratio(ratio.value), "noise": ratio.why })
}

/// A winners-grid cell: the family's best, its figure, and its ratio to the baseline.
fn winner_cell(entry: &IndexEntry, winners: &PhaseWinners, family: Family) -> String {
    let Some(best) = winners.of(family) else { return "—".to_string() };
    let baseline_ratio = winners
        .of(Family::Baseline)
        .filter(|_| family != Family::Baseline)
        .and_then(|baseline| compare(&best.stats, &baseline.stats, entry.noise_threshold))
        .map(times_baseline);
    fit(index_cell(json!({
        "kind": "winner",
        "name": best.name,
        "value": format::number(best.stats.median),
        "baseline_ratio": baseline_ratio,
    })))
}

/// The winners grid of one scenario: one row per phase.
fn winners_grid(entry: &IndexEntry) -> String {
    let has = |family: Family| entry.winners.iter().any(|w| w.of(family).is_some());
    let mut families: Vec<Family> = vec![Family::Stream, Family::Blocking];
    if has(Family::Coroutine) {
        families.push(Family::Coroutine);
    }
    if has(Family::Baseline) {
        families.push(Family::Baseline);
    }
    let named = entry.winners.iter().any(|w| w.phase.is_some());
    let mut columns: Vec<(String, Align)> = Vec::new();
    if named {
        columns.extend(crate::table::columns("winners-phase", &[Align::Left]));
    }
    for family in &families {
        let heading = headers(json!({ "table": "winners", "family": family.as_str() })).concat();
        columns.push((heading, Align::Left));
    }
    columns.extend(crate::table::columns("winners-versus", &[Align::Left]));
    let mut table = Table::new(&columns);
    for winners in &entry.winners {
        let mut row = Vec::new();
        if named {
            row.push(winners.phase.as_deref().map(phase_words).unwrap_or_default());
        }
        for family in &families {
            row.push(winner_cell(entry, winners, *family));
        }
        let versus = match (winners.of(Family::Stream), winners.of(Family::Blocking)) {
            (Some(s), Some(b)) => margin(&s.stats, &b.stats, entry.noise_threshold, entry.higher_is_better)
                .map(|m| index_cell(json!({ "kind": "versus", "versus": m })))
                .unwrap_or_else(|| "—".to_string()),
            _ => "—".to_string(),
        };
        row.push(versus);
        table.row(&row);
    }
    table.render()
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
        // The scenario's rows, each with its anchor in the report: one per question and phase, or, without
        // questions, one per phase of the generic pick.
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
        for winners in entry.winners.iter().filter(|_| entry.questions.is_empty()) {
            let first = cells.is_empty();
            cells.extend(decision_row(entry, winners, first).map(|row| (row, String::new())));
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
    // What the template reads of each scenario: the entry's own fields, its winners grid (rendered; empty when no
    // contestant that passed measured the metric, or when its questions' rows replace the generic grid), and its
    // claims ([`claim_line`]).
    let views: Vec<Value> = entries
        .iter()
        .map(|e| {
            let no_grid = e.winners.iter().all(|w| w.best.is_empty()) || !e.questions.is_empty();
            json!({
                "scenario": e.scenario,
                "title": e.title,
                "report_path": e.report_path,
                "status_line": e.status_line,
                "metric": e.metric,
                "higher_is_better": e.higher_is_better,
                "grid": if no_grid { String::new() } else { winners_grid(e) },
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
    use crate::analysis::tests::stats;

    fn best(family: Family, name: &str, median: f64) -> FamilyBest {
        FamilyBest { family, name: name.to_string(), stats: stats(median, median * 0.01) }
    }

    fn entry(name: &str, verdicts: &[Verdict]) -> IndexEntry {
        IndexEntry {
            scenario: name.to_string(),
            title: format!("The {name} scenario: what it measures"),
            report_path: format!("{name}.md"),
            status_line: "✅ All 3 contestants passed their checks.".to_string(),
            notes: vec!["Without a bound, outstanding work ran away.".to_string()],
            claims: verdicts.iter().map(|v| ClaimResult::new(format!("{name} claim"), *v, "d")).collect(),
            metric: "ms_per_million".to_string(),
            higher_is_better: false,
            noise_threshold: 0.2,
            method: testkit::fixture::method(),
            trustworthy: true,
            winners: vec![
                PhaseWinners {
                    phase: Some("capacity_1".to_string()),
                    best: vec![
                        best(Family::Baseline, "baseline-loop", 1.0),
                        best(Family::Stream, "stream-tokio", 40.0),
                        best(Family::Blocking, "blocking-crossbeam", 10.0),
                    ],
                    pick: vec![best(Family::Blocking, "blocking-crossbeam", 10.0)],
                },
                PhaseWinners {
                    phase: Some("capacity_256".to_string()),
                    best: vec![
                        best(Family::Baseline, "baseline-loop", 1.0),
                        best(Family::Stream, "stream-tokio-batched", 2.0),
                        best(Family::Blocking, "blocking-crossbeam-batched", 2.05),
                        best(Family::Coroutine, "coroutine-may", 30.0),
                    ],
                    pick: vec![
                        best(Family::Stream, "stream-tokio-batched", 2.0),
                        best(Family::Blocking, "blocking-crossbeam-batched", 2.05),
                    ],
                },
            ],
            questions: Vec::new(),
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
        let figure = measure::floor::FloorFigure {
            key: "wake_across_cpus".to_string(),
            what: "a wake-up".to_string(),
            ns_per_op: Some(30_774.0),
            process_medians: vec![30_000.0, 30_774.0, 31_000.0],
            cpu_ns_per_op: None,
            not_applicable: None,
        };
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
        assert!(text.contains("**The machine's floor cited by chain**: measured by"), "{text}");
        assert!(
            text.contains(
                "**The machine's floor cited by handoff**: none cited: --floor none: the run cited no floor."
            ),
            "{text}"
        );
    }

    #[test]
    fn the_index_opens_with_a_bottom_line_of_one_short_line_per_scenario_linked_to_each_question() {
        let mut chain = entry("chain", &[]);
        chain.bottom_line = vec![
            BottomLine {
                id: "collection".to_string(),
                link: "chain.md#question-collection".to_string(),
                situation: "CPU-bound work over a collection".to_string(),
                parts: vec![
                    part("one", "baseline-loop", "baseline", &["work 0"]),
                    part("one", "blocking-rayon", "blocking", &["work 64"]),
                ],
            },
            BottomLine {
                id: "stages".to_string(),
                link: "chain.md#question-stages".to_string(),
                situation: "the same work as concurrent stages".to_string(),
                parts: vec![BottomPart {
                    cannot_tell: vec!["a".into(), "b".into(), "c".into()],
                    ..part("cannot-tell", "stream-tokio-tasks-fused-batched", "stream", &["work 0", "work 64"])
                }],
            },
        ];
        let mut tcp = entry("tcp", &[]);
        tcp.bottom_line = vec![BottomLine {
            id: "family".to_string(),
            link: "tcp.md#question-family".to_string(),
            situation: "request/response over TCP".to_string(),
            parts: vec![BottomPart {
                families: vec!["stream", "coroutine", "blocking"],
                equal: 2,
                ..part("families", "stream-tokio-tasks", "stream", &[])
            }],
        }];
        let mut tie = entry("tie", &[]);
        tie.bottom_line = vec![BottomLine {
            id: "blocking-call".to_string(),
            situation: "blocking socket code inside tokio".to_string(),
            link: "tie.md#question-blocking-call".to_string(),
            parts: vec![BottomPart {
                equal: 2,
                equal_names: vec!["stream-block-in-place".into(), "stream-spawn-blocking".into()],
                ..part("tie", "stream-tokio-tasks", "stream", &[])
            }],
        }];
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
        assert!(
            text.contains(
                "- **[chain](chain.md)**: [CPU-bound work over a collection](chain.md#question-collection): \
                 `baseline-loop` (baseline) at work 0, `blocking-rayon` (blocking) at work 64; [the same work as \
                 concurrent stages](chain.md#question-stages): `stream-tokio-tasks-fused-batched` (stream) or `a`, \
                 `b` and 1 more: this run cannot tell."
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "- **[tcp](tcp.md)**: [request/response over TCP](tcp.md#question-family): stream, coroutine, \
                 blocking practically equal (best `stream-tokio-tasks`)."
            ),
            "{text}"
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
        for w in &mut e.winners {
            for b in &mut w.best {
                b.name = format!("{}-{}", b.name, "with-a-very-long-suffix".repeat(4));
            }
        }
        e
    }

    #[test]
    fn the_decision_table_picks_the_best_that_is_not_a_baseline_with_its_evidence() {
        let text = render_index(&[entry("handoff", &[Verdict::Holds, Verdict::Fails])]);
        assert!(text.starts_with("# Streams vs blocking: which should I use?"));
        assert!(
            text.contains("| The handoff scenario: what it measures — capacity 1 | `blocking-crossbeam` (blocking) "),
            "{text}"
        );
        assert!(text.contains("| ↳ capacity 256 "), "later levels do not repeat the title: {text}");
        assert!(
            text.contains("| 10.0 `ms_per_million`; best stream `stream-tokio` is 4.00× worse; 10.0× the baseline. "),
            "{text}"
        );
        // At capacity 256 the stream and blocking pairs tie within noise: either may be used.
        assert!(
            text.contains("any of `stream-tokio-batched` (stream), `blocking-crossbeam-batched` (blocking)"),
            "{text}"
        );
        assert!(
            text.contains(
                "best blocking `blocking-crossbeam-batched` is 1.02× worse (cannot tell: the processes overlap)"
            ),
            "{text}"
        );
        assert!(text.contains("| 1 hold, 1 fail, 0 inconclusive | [handoff](handoff.md) |"), "{text}");
        let tallies = text.lines().filter(|l| l.starts_with('|') && l.contains("1 hold, 1 fail")).count();
        assert_eq!(tallies, 1, "the tally once per scenario: {text}");
    }

    #[test]
    fn the_winners_grid_shows_each_family_the_baseline_and_the_margin() {
        let text = render_index(&[entry("handoff", &[Verdict::Holds])]);
        assert!(text.contains("| phase | best stream"), "{text}");
        assert!(text.contains("best coroutine"), "a coroutine ran at one phase: {text}");
        assert!(text.contains("`stream-tokio` 40.0, 40.0× the baseline"), "{text}");
        assert!(text.contains("| stream 4.00× worse "), "{text}");
        assert!(text.contains("| stream 1.02× better (cannot tell: the processes overlap) "), "{text}");
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
    fn entries_from_a_summary_carry_each_familys_best_per_phase() {
        let summary = crate::analysis::tests::fixture();
        let input = crate::analysis::tests::input(&summary);
        let entry = IndexEntry::from_input(&input);
        assert_eq!(entry.winners.len(), 2);
        let names: Vec<&str> = entry.winners[0].best.iter().map(|b| b.name.as_str()).collect();
        // The blocking contestant failed: it is no family's best.
        assert_eq!(names, ["loop", "stream"]);
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
