//! The family matrix the index opens with: one row per family question and level of every scenario (per item
//! and batched apart where a scenario asks them apart), one column per core count run, each cell the winning
//! family with its ratio to the best alternative of another family and p, or practically equal, or cannot tell,
//! or a control; then the numbers of the paragraph drawn from it.
//!
//! It reads summaries only ([`FamilyRun::of`]: the answers [`measure::question`] judged, with `family` set), never
//! a scenario's code; the runs at other core counts are summaries the lab read from `<folder>/cores-N/`.

use measure::question::{Answer, QuestionResult, Standing};
use measure::summary::Summary;
use serde::Serialize;
use serde_json::{json, Value};

use crate::analysis::phase_words;
use crate::format;
use crate::table::{Align, Table};

/// What a family question's answer at one phase says about the families.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum FamilyVerdict {
    /// A control, not an answer, and why.
    Control {
        /// Why the level is a control.
        why: String,
    },
    /// No alternative could be the answer.
    None,
    /// Only one family could be the answer.
    Alone {
        /// That family.
        family: String,
    },
    /// The pick's family beats the best alternative of another family, every process apart.
    Beaten {
        /// The pick's family.
        winner: String,
        /// The rival's family.
        loser: String,
        /// How many times better the pick is (≥ 1).
        factor: f64,
        /// The exact p that the pick is better.
        p: Option<f64>,
    },
    /// The best of the two families are practically equal (within the threshold).
    Equal {
        /// The pick's family.
        first: String,
        /// The rival's family.
        second: String,
        /// How many times better the pick is (≥ 1, within the threshold).
        factor: f64,
    },
    /// Beyond the threshold, but the processes overlap: this run cannot tell.
    CannotTell {
        /// The pick's family.
        first: String,
        /// The rival's family.
        second: String,
        /// How many times better the pick's median is (≥ 1).
        factor: f64,
    },
}

/// One family question's answer at one phase, as the matrix reads it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FamilyAnswer {
    /// The question's id.
    pub id: String,
    /// The situation in a few words (the question's sentence when it names none).
    pub situation: String,
    /// The deciding metric in words.
    pub metric_words: String,
    /// The phase's key, absent without a sweep.
    pub phase: Option<String>,
    /// What it says about the families.
    pub verdict: FamilyVerdict,
}

/// One run's family answers: what the matrix reads of its summary.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FamilyRun {
    /// The scenario.
    pub scenario: String,
    /// The core count it ran at.
    pub cores: u32,
    /// Every family question's answer at every phase, in the summary's order.
    pub answers: Vec<FamilyAnswer>,
}

impl FamilyRun {
    /// The family answers of `summary` (none when it asks no family question, as runs before them did not; a
    /// question none of whose alternatives ran is left out).
    pub fn of(summary: &Summary) -> FamilyRun {
        let answers = summary
            .questions
            .iter()
            .filter(|q| q.family && !q.alternatives.is_empty())
            .flat_map(|q| q.answers.iter().map(move |a| (q, a)))
            .map(|(q, a)| FamilyAnswer {
                id: q.id.clone(),
                situation: if q.situation.is_empty() { q.ask.clone() } else { q.situation.clone() },
                metric_words: q.metric_words.clone(),
                phase: a.phase.clone(),
                verdict: verdict(summary, q, a),
            })
            .collect();
        FamilyRun { scenario: summary.scenario.clone(), cores: measure::cores::cores_of(summary), answers }
    }
}

/// What answer `a` of family question `q` says about the families.
fn verdict(summary: &Summary, q: &QuestionResult, a: &Answer) -> FamilyVerdict {
    debug_assert!(q.family);
    if let Some(why) = &a.control {
        return FamilyVerdict::Control { why: why.clone() };
    }
    let Some(pick) = a.pick.as_deref() else { return FamilyVerdict::None };
    let family = summary.contestant(pick).map_or("unknown", |c| c.family.as_str()).to_string();
    let Some(rival) = &a.rival else { return FamilyVerdict::Alone { family } };
    match rival.standing {
        Standing::Beaten => {
            FamilyVerdict::Beaten { winner: family, loser: rival.family.clone(), factor: rival.factor, p: rival.p }
        }
        Standing::Equal => FamilyVerdict::Equal { first: family, second: rival.family.clone(), factor: rival.factor },
        Standing::CannotTell => {
            FamilyVerdict::CannotTell { first: family, second: rival.family.clone(), factor: rival.factor }
        }
    }
}

/// The anchor of a family question's first row in the matrix, which the bottom line links to.
pub fn anchor(scenario: &str, id: &str) -> String {
    format!("family-{scenario}-{id}")
}

/// One row of the matrix: a scenario's family question at one phase, with its verdict at each core count.
#[derive(Debug, Clone, PartialEq)]
pub struct MatrixRow {
    /// The scenario.
    pub scenario: String,
    /// The question's id.
    pub id: String,
    /// The situation in a few words.
    pub situation: String,
    /// The deciding metric in words.
    pub metric_words: String,
    /// The phase's key.
    pub phase: Option<String>,
    /// The verdict at each of the matrix's core counts, in column order (`None`: not asked at that count).
    pub cells: Vec<Option<FamilyVerdict>>,
}

/// The family matrix: its core counts (columns) and rows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FamilyMatrix {
    /// The core counts run, ascending.
    pub cores: Vec<u32>,
    /// Its rows, scenario by scenario in the order given, each question's phases in order.
    pub rows: Vec<MatrixRow>,
}

impl FamilyMatrix {
    /// The matrix of `runs` (each scenario's run at each core count; a run with no family question adds its core
    /// count only where another run of the same count asks one), the scenarios in `order`.
    pub fn of(order: &[&str], runs: &[&FamilyRun]) -> FamilyMatrix {
        let mut cores: Vec<u32> = runs.iter().filter(|r| !r.answers.is_empty()).map(|r| r.cores).collect();
        cores.sort_unstable();
        cores.dedup();
        let mut rows: Vec<MatrixRow> = Vec::new();
        for scenario in order {
            let of_scenario: Vec<&&FamilyRun> = runs.iter().filter(|r| r.scenario == *scenario).collect();
            let first = rows.len();
            for run in &of_scenario {
                for a in &run.answers {
                    let column = cores.iter().position(|c| *c == run.cores);
                    let Some(column) = column else { continue };
                    let i = match rows[first..].iter().position(|r| r.id == a.id && r.phase == a.phase) {
                        Some(i) => first + i,
                        None => {
                            rows.push(MatrixRow {
                                scenario: scenario.to_string(),
                                id: a.id.clone(),
                                situation: a.situation.clone(),
                                metric_words: a.metric_words.clone(),
                                phase: a.phase.clone(),
                                cells: vec![None; cores.len()],
                            });
                            rows.len() - 1
                        }
                    };
                    rows[i].cells[column] = Some(a.verdict.clone());
                }
            }
            // A question's rows together, in the order of its first appearance.
            let ids: Vec<String> = rows[first..].iter().map(|r| r.id.clone()).fold(Vec::new(), |mut ids, id| {
                if !ids.contains(&id) {
                    ids.push(id);
                }
                ids
            });
            rows[first..].sort_by_key(|r| ids.iter().position(|id| *id == r.id));
        }
        FamilyMatrix { cores, rows }
    }

    /// The matrix as a markdown table (empty when it has no row): the row's scenario, situation and level, then
    /// one cell per core count from `templates/index-cells.md`.
    pub fn table(&self) -> String {
        if self.rows.is_empty() {
            return String::new();
        }
        let mut columns: Vec<(String, Align)> = crate::table::columns("family-matrix", &[Align::Left; 2]);
        for cores in &self.cores {
            let heading = crate::table::headers(json!({ "table": "family-matrix-cores", "cores": cores })).concat();
            columns.push((heading, Align::Left));
        }
        let mut table = Table::new(&columns);
        let mut last = ("", "");
        for row in &self.rows {
            let first = last != (row.scenario.as_str(), row.id.as_str());
            last = (&row.scenario, &row.id);
            let question = crate::table::index_cell(json!({
                "kind": "family-row",
                "first": first,
                "anchor": anchor(&row.scenario, &row.id),
                "scenario": row.scenario,
                "id": row.id,
                "situation": row.situation,
                "metric_words": row.metric_words,
            }));
            let mut cells = vec![question, row.phase.as_deref().map(phase_words).unwrap_or_default()];
            cells.extend(row.cells.iter().map(|v| crate::table::index_cell(json!({ "kind": "family", "v": view(v) }))));
            table.row(&cells);
        }
        table.render()
    }

    /// The numbers of the paragraph under the matrix ([`Paragraph`]).
    pub fn paragraph(&self) -> Paragraph {
        let mut p = Paragraph::default();
        let at = |row: &MatrixRow, cores: u32| Place {
            scenario: row.scenario.clone(),
            situation: row.situation.clone(),
            phase: row.phase.as_deref().map(phase_words),
            cores,
        };
        for row in &self.rows {
            let mut winners: Vec<(u32, &str, &str, f64)> = Vec::new();
            let mut equal_at: Vec<u32> = Vec::new();
            let mut sides: Vec<Side> = Vec::new();
            for (cores, cell) in self.cores.iter().zip(&row.cells) {
                match cell {
                    Some(FamilyVerdict::Beaten { winner, loser, factor, .. }) => {
                        p.decided.push(Decided {
                            winner: winner.clone(),
                            loser: loser.clone(),
                            factor: format::ratio(*factor),
                            value: *factor,
                            at: at(row, *cores),
                        });
                        winners.push((*cores, winner, loser, *factor));
                        sides.push(Side {
                            cores: *cores,
                            kind: "beaten",
                            winner: winner.clone(),
                            loser: loser.clone(),
                            factor: format::ratio(*factor),
                        });
                    }
                    Some(FamilyVerdict::Equal { .. }) => {
                        equal_at.push(*cores);
                        sides.push(Side { cores: *cores, kind: "equal", ..Side::default() });
                    }
                    Some(FamilyVerdict::CannotTell { .. }) => {
                        p.cannot_tell += 1;
                        sides.push(Side { cores: *cores, kind: "cannot-tell", ..Side::default() });
                    }
                    Some(FamilyVerdict::Control { .. }) => p.controls += 1,
                    Some(FamilyVerdict::None | FamilyVerdict::Alone { .. }) | None => {}
                }
            }
            if !equal_at.is_empty() {
                p.equal.push(EqualRow { at: at(row, 0), cores: equal_at });
            }
            // Decided at some core counts, a tie or not told at others: the verdict depends on the count.
            if !winners.is_empty() && sides.iter().any(|s| s.kind != "beaten") {
                p.depends.push(Shift { at: at(row, 0), sides });
            }
            if let [(low_cores, low, low_loser, low_factor), .., (high_cores, high, high_loser, high_factor)] =
                winners[..]
            {
                if low != high {
                    p.flips.push(Flip {
                        at: at(row, 0),
                        sides: vec![
                            FlipSide {
                                cores: low_cores,
                                winner: low.to_string(),
                                loser: low_loser.to_string(),
                                factor: format::ratio(low_factor),
                            },
                            FlipSide {
                                cores: high_cores,
                                winner: high.to_string(),
                                loser: high_loser.to_string(),
                                factor: format::ratio(high_factor),
                            },
                        ],
                    });
                }
            }
        }
        p.decided.sort_by(|a, b| b.value.total_cmp(&a.value));
        // Each winning family's cells, largest factor first (as `decided` is sorted).
        let mut by_family: Vec<(String, Vec<f64>)> = Vec::new();
        for d in &p.decided {
            match by_family.iter_mut().find(|(f, _)| *f == d.winner) {
                Some((_, factors)) => factors.push(d.value),
                None => by_family.push((d.winner.clone(), vec![d.value])),
            }
        }
        by_family.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));
        p.wins = by_family
            .into_iter()
            .map(|(family, factors)| Wins {
                family,
                count: factors.len(),
                high: format::ratio(factors[0]),
                low: format::ratio(factors[factors.len() - 1]),
            })
            .collect();
        p.cells = self.rows.iter().map(|r| r.cells.iter().flatten().count()).sum();
        p
    }
}

/// A cell's verdict as `templates/index-cells.md` reads it (`null`: not asked at that core count).
fn view(verdict: &Option<FamilyVerdict>) -> Value {
    let Some(verdict) = verdict else { return Value::Null };
    let mut v = json!(verdict);
    let factor = match verdict {
        FamilyVerdict::Beaten { factor, .. }
        | FamilyVerdict::Equal { factor, .. }
        | FamilyVerdict::CannotTell { factor, .. } => Some(format::ratio(*factor)),
        _ => None,
    };
    v["factor"] = factor.into();
    if let FamilyVerdict::Beaten { p: Some(p), .. } = verdict {
        v["p"] = measure::compare::format_p(*p).into();
    }
    v
}

/// Where in the matrix: a scenario's family question at one phase, at a core count (0 in a [`Flip`]: every count).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Place {
    /// The scenario.
    pub scenario: String,
    /// The question's situation.
    pub situation: String,
    /// The phase in words.
    pub phase: Option<String>,
    /// The core count.
    pub cores: u32,
}

/// A cell where the style decides the result: one family beats the best of another, every process apart.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decided {
    /// The winning family.
    pub winner: String,
    /// The family it beats.
    pub loser: String,
    /// By how much, formatted.
    pub factor: String,
    /// By how much.
    #[serde(skip)]
    pub value: f64,
    /// Where.
    pub at: Place,
}

/// A family's count of decided cells.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Wins {
    /// The family.
    pub family: String,
    /// In how many cells it beats another family.
    pub count: usize,
    /// The smallest factor it wins by, formatted.
    pub low: String,
    /// The largest factor it wins by, formatted.
    pub high: String,
}

/// A row whose decided winner changes with the core count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Flip {
    /// The row (its `cores` 0).
    pub at: Place,
    /// The winner at the fewest and at the most cores where one was decided.
    pub sides: Vec<FlipSide>,
}

/// The decided winner at one core count.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlipSide {
    /// The core count.
    pub cores: u32,
    /// The winning family.
    pub winner: String,
    /// The family it beats.
    pub loser: String,
    /// By how much, formatted.
    pub factor: String,
}

/// The numbers of the paragraph under the matrix: where the style decides the result and by how much (every
/// decided cell, largest first, and each family's count), where the winner changes with the core count, and where
/// it does not matter (practically equal); the cells this run cannot tell and the controls are counted.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Paragraph {
    /// Cells with a verdict (not counting those not asked at a core count).
    pub cells: usize,
    /// Cells where one family beats another, every process apart, largest factor first.
    pub decided: Vec<Decided>,
    /// Each winning family's count of decided cells, most first.
    pub wins: Vec<Wins>,
    /// Rows whose decided winner changes with the core count.
    pub flips: Vec<Flip>,
    /// Rows with a cell where the families are practically equal, each with the core counts where they are.
    pub equal: Vec<EqualRow>,
    /// Rows decided at some core counts and practically equal or not told apart at others.
    pub depends: Vec<Shift>,
    /// Cells this run cannot tell.
    pub cannot_tell: usize,
    /// Control cells.
    pub controls: usize,
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use measure::question::{answer_all, Alternatives, Question};
    use measure::summary::{Family, Role, Summary};
    use testkit::fixture::processes;

    use super::*;
    use crate::analysis::tests::{contestant_with_role, input};
    use crate::index::{render_index, render_index_across, IndexEntry};

    /// A hand-off at `cores` cores, capacities 16 and 256, with the family question per item and batched (its
    /// capacity 16 a control); `ms` gives each contestant's process medians at each capacity.
    fn run(cores: u32, ms: &[(&str, Family, [&[f64]; 2])]) -> Summary {
        let contestants = ms
            .iter()
            .map(|(name, family, [at_16, at_256])| {
                let mut c = contestant_with_role(name, *family, Role::Candidate, processes(at_16));
                let at_16 = c.metrics.remove("ms").unwrap();
                c.metrics.insert("capacity_16.ms".to_string(), at_16);
                c.metrics.insert("capacity_256.ms".to_string(), processes(at_256));
                c
            })
            .collect();
        let mut summary = crate::analysis::tests::summary_of(contestants);
        summary.scenario = "handoff".to_string();
        summary.phases = vec!["capacity_16".to_string(), "capacity_256".to_string()];
        summary.environment.cores = cores;
        let ask = |id, situation, names: &[&str]| {
            Question::new(id, "Which family?", Alternatives::named(names), "ms", "ms per million", false)
                .situation(situation)
                .of_families()
        };
        let questions = [
            ask("family-per-item", "per item", &["blocking", "stream"]),
            ask("family-batched", "batched", &["blocking-batched", "stream-batched"])
                .control("capacity_16", "a batch is one item here"),
        ];
        summary.questions = answer_all(&summary, &questions);
        summary
    }

    const B: Family = Family::Blocking;
    const S: Family = Family::Stream;

    /// At 2 cores: per item, practically equal at 16, blocking 2.33× better at 256; batched, stream 3× better at
    /// 256. At 1 core: per item, cannot tell at 16 (overlapping processes), stream better at 256 (the family
    /// flips); batched, practically equal at 256.
    fn two_runs() -> (Summary, Summary) {
        let two = run(
            2,
            &[
                ("blocking", B, [&[100.0, 101.0, 102.0], &[30.0, 30.5, 31.0]]),
                ("stream", S, [&[104.0, 105.0, 106.0], &[70.0, 71.0, 72.0]]),
                ("blocking-batched", B, [&[100.0, 101.0, 102.0], &[21.0, 21.5, 22.0]]),
                ("stream-batched", S, [&[100.0, 101.0, 102.0], &[7.0, 7.1, 7.2]]),
            ],
        );
        let one = run(
            1,
            &[
                ("blocking", B, [&[14.0, 15.0, 16.0], &[50.0, 51.0, 52.0]]),
                ("stream", S, [&[10.0, 11.0, 40.0], &[35.0, 35.5, 36.0]]),
                ("blocking-batched", B, [&[100.0, 101.0, 102.0], &[7.2, 7.3, 7.4]]),
                ("stream-batched", S, [&[100.0, 101.0, 102.0], &[7.0, 7.1, 7.2]]),
            ],
        );
        (two, one)
    }

    #[test]
    fn a_cell_per_family_question_phase_and_core_count() {
        let (two, one) = two_runs();
        let (two, one) = (FamilyRun::of(&two), FamilyRun::of(&one));
        let matrix = FamilyMatrix::of(&["handoff"], &[&two, &one]);
        assert_eq!(matrix.cores, [1, 2]);
        let rows: Vec<(&str, Option<&str>)> = matrix.rows.iter().map(|r| (r.id.as_str(), r.phase.as_deref())).collect();
        assert_eq!(
            rows,
            [
                ("family-per-item", Some("capacity_16")),
                ("family-per-item", Some("capacity_256")),
                ("family-batched", Some("capacity_16")),
                ("family-batched", Some("capacity_256")),
            ]
        );
        let kinds: Vec<Vec<&str>> = matrix
            .rows
            .iter()
            .map(|r| {
                r.cells
                    .iter()
                    .map(|c| match c {
                        Some(FamilyVerdict::Beaten { winner, .. }) => winner.as_str(),
                        Some(FamilyVerdict::Equal { .. }) => "equal",
                        Some(FamilyVerdict::CannotTell { .. }) => "cannot tell",
                        Some(FamilyVerdict::Control { .. }) => "control",
                        _ => "other",
                    })
                    .collect()
            })
            .collect();
        assert_eq!(
            kinds,
            [["cannot tell", "equal"], ["stream", "blocking"], ["control", "control"], ["equal", "stream"],]
        );
        let table = matrix.table();
        assert!(table.contains("| 1 core "), "{table}");
        assert!(table.contains("| 2 cores "), "{table}");
        assert!(table.contains("**blocking**, 2.33× better than stream (p = 0.050)"), "{table}");
        assert!(
            table.contains(
                "<a id=\"family-handoff-family-per-item\"></a>[handoff](handoff.md#question-family-per-item)"
            ),
            "{table}"
        );
        assert_eq!(table.matches("| control ").count(), 2, "{table}");
        assert!(table.contains("cannot tell (stream, blocking 1.36×: the processes overlap)"), "{table}");
    }

    /// The paragraph under the matrix in the index rendered from `runs` (the first the index's own).
    fn paragraph(two: &Summary, others: &[&Summary]) -> String {
        let entry = IndexEntry::from_input(&input(two));
        let others: Vec<FamilyRun> = others.iter().map(|s| FamilyRun::of(s)).collect();
        let index = render_index_across(&[entry], &others);
        let table_end = index
            .lines()
            .position(|l| l.starts_with("| scenario: family question"))
            .map(|start| start + index.lines().skip(start).take_while(|l| l.starts_with('|')).count())
            .unwrap();
        index.lines().skip(table_end).find(|l| !l.trim().is_empty()).unwrap().to_string()
    }

    #[test]
    fn the_paragraph_says_where_the_style_decides_by_how_much_and_where_it_does_not_matter() {
        let (two, one) = two_runs();
        let text = paragraph(&two, &[&one]);
        assert!(text.starts_with("The style decides 3 of these 8 cells: stream wins 2 (by 1.44× to 3.03×) and blocking wins 1 (by 2.33×)"), "{text}");
        assert!(
            text.contains(
                "the widest gap is stream over blocking, 3.03×, at handoff, batched, capacity 256 on 2 cores"
            ),
            "{text}"
        );
        assert!(
            text.contains("The winning family changes with the core count at handoff, per item, capacity 256 (stream 1.44× better than blocking on 1 core, blocking 2.33× better than stream on 2 cores)"),
            "{text}"
        );
        assert!(
            text.contains(
                "The verdict depends on the core count at handoff, batched, capacity 256 (practically equal on 1 \
                 core, stream 3.03× better than blocking on 2 cores)."
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "It does not matter, the families practically equal, at handoff, per item, capacity 16 (on 2 cores); \
                 handoff, batched, capacity 256 (on 1 core)."
            ),
            "{text}"
        );
        assert!(text.contains("This run cannot tell the families apart in 1 cell. 2 cells are controls."), "{text}");
    }

    #[test]
    fn the_paragraph_names_a_family_only_where_its_verdict_holds() {
        // Every cell a tie, a run that cannot tell, or a control: no family is named.
        let ties = run(
            2,
            &[
                ("blocking", B, [&[14.0, 15.0, 16.0], &[50.0, 51.0, 52.0]]),
                ("stream", S, [&[10.0, 11.0, 40.0], &[51.0, 52.0, 53.0]]),
                ("blocking-batched", B, [&[100.0, 101.0, 102.0], &[7.2, 7.3, 7.4]]),
                ("stream-batched", S, [&[100.0, 101.0, 102.0], &[7.0, 7.1, 7.2]]),
            ],
        );
        let text = paragraph(&ties, &[]);
        assert!(text.starts_with("The style decides none of these 4 cells."), "{text}");
        for family in ["stream", "blocking", "coroutine"] {
            assert!(!text.contains(family), "`{family}` named without a verdict: {text}");
        }
        // Without a family question, no matrix.
        let mut none = ties.clone();
        none.questions.clear();
        let index = render_index(&[IndexEntry::from_input(&input(&none))]);
        assert!(!index.contains("## The family matrix"), "{index}");
    }
}

/// A row where the families are practically equal at some core counts.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EqualRow {
    /// The row (its `cores` 0).
    pub at: Place,
    /// The core counts where they are practically equal.
    pub cores: Vec<u32>,
}

/// A row decided at some core counts and not at others.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Shift {
    /// The row (its `cores` 0).
    pub at: Place,
    /// Its verdict at each core count that gave one (a control, no answer or one family alone left out).
    pub sides: Vec<Side>,
}

/// A row's verdict at one core count: `beaten` (with the families and the factor), `equal` or `cannot-tell`
/// (which name no family).
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Side {
    /// The core count.
    pub cores: u32,
    /// The verdict.
    pub kind: &'static str,
    /// The winning family, when beaten.
    pub winner: String,
    /// The family it beats, when beaten.
    pub loser: String,
    /// By how much, formatted, when beaten.
    pub factor: String,
}
