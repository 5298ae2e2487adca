//! The page that sets a scenario's answers at several core counts side by side ([`measure::cores`]): results in,
//! markdown out. Nothing is decided here: [`measure::cores::across`] read each core count's pick in every other
//! count's run and judged whether each answer holds, changes or is open; this module formats its figures.

use measure::compare::format_p;
use measure::cores::{Across, AcrossCores, Crossing, Outcome, QuestionAcross};
use serde_json::{json, Value};

use crate::format;

/// The folder that `--cores` with a list writes the run at `cores` into, below its `--out`: `cores-N`.
pub fn folder(cores: u32) -> String {
    format!("cores-{cores}")
}

/// The markdown page for `scenarios`, measured on `testbed` (its CPU and build in a few words); `folder_of`
/// gives, for a scenario and core count, the link prefix of the folder holding that run's report, relative to the
/// page (`""` beside it, `cores-1/` below it).
pub fn render_by_cores(scenarios: &[AcrossCores], testbed: &str, folder_of: &dyn Fn(&str, u32) -> String) -> String {
    let views: Vec<Value> = scenarios
        .iter()
        .map(|s| {
            let questions: Vec<Value> =
                s.questions.iter().map(|q| question_view(q, &|cores| folder_of(&s.scenario, cores))).collect();
            json!({
                "scenario": s.scenario,
                "cores": s.cores,
                "questions": questions,
                "flipped_claims": flipped_claims(s),
                "cost_changes": cost_changes(s),
                "claims": s.claims.len(),
            })
        })
        .collect();
    let context = json!({ "scenarios": views, "testbed": testbed });
    template!("by-cores.md", context)
}

/// The cost model's reading of each changed answer: for every pick of a question whose answer changes across core
/// counts, at that question's phase, its measured and predicted cost at the fewest and the most cores and the
/// model's term that changed most ([`measure::cores::CostChange`]).
fn cost_changes(across: &AcrossCores) -> Vec<Value> {
    let changed = |c: &&measure::cores::CostChange| {
        across.questions.iter().any(|q| {
            q.across == Across::Changes
                && q.phase == c.phase
                && q.stands.iter().any(|st| st.pick.as_deref() == Some(c.contestant.as_str()))
        })
    };
    across
        .cost_changes
        .iter()
        .filter(changed)
        .map(|c| {
            json!({
                "contestant": c.contestant,
                "phase": c.phase,
                "cores": [c.cores.0, c.cores.1],
                "measured": [format::number(c.measured.0), format::number(c.measured.1)],
                "predicted": [format::number(c.predicted.0), format::number(c.predicted.1)],
                "term": c.term.label(),
                "term_change": format::number(c.term_change),
            })
        })
        .collect()
}

/// `question` as the templates read it (its id, ask, phase, what each core count's run answered, each count's pick
/// read in the other counts' runs, and whether the answer holds, changes or is open across them); `folder_of`
/// gives the link prefix of the run at a core count.
fn question_view(question: &QuestionAcross, folder_of: &dyn Fn(u32) -> String) -> Value {
    let stands: Vec<Value> = question
        .stands
        .iter()
        .map(|st| {
            json!({
                "cores": st.cores,
                "folder": folder_of(st.cores),
                "pick": st.pick,
                "apart": st.apart,
                "tied": st.tied,
                "p": st.p.map(format_p),
            })
        })
        .collect();
    // A run without an answer is named once, by its core count, rather than in each pair it is part of.
    let no_answer: Vec<u32> = question.stands.iter().filter(|st| st.pick.is_none()).map(|st| st.cores).collect();
    let shown = |c: &&Crossing| !matches!(c.outcome, Outcome::Same | Outcome::NoAnswer);
    let crossings: Vec<Value> = question.crossings.iter().filter(shown).map(crossing_view).collect();
    let changed: Vec<Value> =
        question.crossings.iter().filter(|c| c.outcome.across() == Across::Changes).map(crossing_view).collect();
    json!({
        "id": question.id,
        "ask": question.ask,
        "phase": question.phase,
        "metric_words": question.metric_words,
        "stands": stands,
        "crossings": crossings,
        "changed": changed,
        "no_answer": no_answer,
        "across": across_word(question.across),
    })
}

/// The state of an answer across core counts as the templates spell it.
fn across_word(across: Across) -> &'static str {
    match across {
        Across::Holds => "holds",
        Across::Changes => "changes",
        Across::Open => "open",
    }
}

/// One core count's pick read in another's run, its figures formatted: the outcome as `by-cores.json` spells it,
/// the factor (how many times worse the pick is there), both medians, and that run's threshold.
fn crossing_view(c: &Crossing) -> Value {
    json!({
        "pick_cores": c.pick_cores,
        "run_cores": c.run_cores,
        "pick": c.pick,
        "own_pick": c.own_pick,
        "value": c.value.map(format::number),
        "own_value": c.own_value.map(format::number),
        "factor": c.factor.map(format::ratio),
        "threshold": format::ratio(c.threshold.ratio),
        "calibrated": c.threshold.calibrated(),
        "outcome": serde_json::to_value(c.outcome).unwrap_or(Value::Null),
        "guard": c.guard,
    })
}

/// The one line a run's report and the index carry on its scenario's answers across core counts: every answer
/// holds, or which change (each pick that loses at another count, by how much) and how many are open, and any
/// claim whose verdict changes. `this_cores` is the run's own core count and `link` the path from its report to
/// `by-cores.md` with its anchor.
pub fn report_line(across: &AcrossCores, this_cores: u32, link: &str) -> String {
    let count = |kind: Across| across.questions.iter().filter(|q| q.across == kind).count();
    let changes: Vec<Value> = across
        .questions
        .iter()
        .filter(|q| q.across == Across::Changes)
        .map(|q| question_view(q, &|_| String::new()))
        .collect();
    let context = json!({
        "this_cores": this_cores,
        "cores": across.cores,
        "questions": across.questions.len(),
        "holds": count(Across::Holds),
        "open": count(Across::Open),
        "changes": changes,
        "flipped_claims": flipped_claims(across),
        "claims": across.claims.len(),
        "link": link,
    });
    template!("by-cores-line.md", context).trim().to_string()
}

/// The claims of `across` whose verdict holds at one core count and fails at another, each verdict named.
fn flipped_claims(across: &AcrossCores) -> Vec<Value> {
    across
        .claims
        .iter()
        .filter(|c| c.flips)
        .map(|c| {
            let verdicts: Vec<Value> = c
                .verdicts
                .iter()
                .map(|(cores, v)| json!({ "cores": cores, "verdict": v.map_or("not judged", |v| v.as_str()) }))
                .collect();
            json!({ "text": c.text, "verdicts": verdicts })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use measure::calibration::{Threshold, ThresholdSource};
    use measure::cores::{ClaimAcross, QuestionAcross, Stand};
    use measure::summary::Verdict;

    use super::*;

    fn stand(cores: u32, pick: &str, apart: bool) -> Stand {
        Stand { cores, pick: Some(pick.to_string()), apart, tied: Vec::new(), p: apart.then_some(0.004) }
    }

    /// The pick at `pick_cores` read in the run at `run_cores` (its own pick `own`): `value` against `own_value`,
    /// higher is better, judged within the uncalibrated 1.2×.
    fn crossing(
        pick_cores: u32,
        run_cores: u32,
        pick: &str,
        own: &str,
        values: (f64, f64),
        outcome: Outcome,
    ) -> Crossing {
        Crossing {
            pick_cores,
            run_cores,
            pick: Some(pick.to_string()),
            own_pick: Some(own.to_string()),
            value: Some(values.0),
            own_value: Some(values.1),
            factor: Some(values.1 / values.0),
            threshold: Threshold { ratio: 1.2, source: ThresholdSource::UncalibratedDefault { class: None } },
            outcome,
            guard: None,
        }
    }

    fn across(stands: Vec<Stand>, crossings: Vec<Crossing>, across: Across) -> AcrossCores {
        AcrossCores {
            scenario: "device".to_string(),
            cores: vec![1, 2],
            questions: vec![QuestionAcross {
                id: "throughput".to_string(),
                ask: "Which shape carries the most calls?".to_string(),
                phase: Some("in_flight_1000".to_string()),
                metric: "ops_per_sec".to_string(),
                metric_words: "calls per second".to_string(),
                higher_is_better: true,
                stands,
                crossings,
                across,
            }],
            cost_changes: Vec::new(),
            claims: vec![ClaimAcross {
                id: "c".to_string(),
                text: "Tasks beat threads".to_string(),
                verdicts: vec![(1, Some(Verdict::Fails)), (2, Some(Verdict::Holds))],
                flips: true,
            }],
            runs: vec!["raw/device-1.jsonl".to_string(), "raw/device-2.jsonl".to_string()],
            git_rev: "abc1234".to_string(),
        }
    }

    /// The device at 10k in flight: 2 cores' pick serves 5.04× fewer calls than 1 core's on 1 core, and 1 core's is
    /// within 1.2× of 2 cores' on 2 cores.
    fn changes() -> AcrossCores {
        across(
            vec![stand(1, "a", true), stand(2, "b", false)],
            vec![
                crossing(1, 2, "a", "b", (828_130.0, 947_359.0), Outcome::Equal),
                crossing(2, 1, "b", "a", (157_362.0, 792_586.0), Outcome::Loses),
            ],
            Across::Changes,
        )
    }

    #[test]
    fn the_report_line_says_every_answer_holds_or_names_each_change_and_by_how_much() {
        let mut holds = across(vec![stand(1, "a", true), stand(2, "a", true)], Vec::new(), Across::Holds);
        holds.claims[0].flips = false;
        let line = report_line(&holds, 2, "by-cores.md#device");
        assert_eq!(
            line,
            "**Across core counts** (this run: 2 cores): every answer here holds on 1 and 2 cores; no claim holds at \
             one core count and fails at another ([answers by core count](by-cores.md#device))."
        );
        let line = report_line(&changes(), 1, "../by-cores.md#device");
        assert!(
            line.contains(
                "for “Which shape carries the most calls?” (`in_flight_1000`) the answer changes: on 1 core the \
                 2-core pick `b` is 5.04× behind `a`"
            ),
            "{line}"
        );
        assert!(line.contains("“Tasks beat threads” (fails on 1 core, holds on 2 cores)"), "{line}");
        let open =
            across(vec![stand(1, "a", false), Stand { pick: None, ..stand(2, "b", true) }], Vec::new(), Across::Open);
        let line = report_line(&open, 1, "x");
        assert!(
            line.contains("1 answer is open on 1 and 2 cores (these runs cannot say whether it survives"),
            "{line}"
        );
    }

    #[test]
    fn a_file_written_before_the_strict_rule_still_names_each_count_s_pick() {
        let old = across(vec![stand(1, "a", true), stand(2, "b", true)], Vec::new(), Across::Changes);
        let line = report_line(&old, 1, "x");
        assert!(
            line.contains("the answer changes: on 1 core the answer is `a` and on 2 cores the answer is `b`"),
            "{line}"
        );
        let page = render_by_cores(&[old], "x", &|_, _| String::new());
        assert!(page.contains("**changes**: on 1 core `a`; on 2 cores `b` |"), "{page}");
    }

    #[test]
    fn a_run_is_found_by_its_raw_file() {
        let file = measure::cores::ByCores::new(vec![across(vec![stand(1, "a", true)], Vec::new(), Across::Holds)]);
        assert!(file.of_run("device", "raw/device-2.jsonl", 2).is_some());
        assert!(file.of_run("device", "raw/device-2.jsonl", 1).is_none(), "its file name at another core count");
        assert!(file.of_run("device", "raw/device-3.jsonl", 2).is_none(), "another run of the scenario");
        assert!(file.of_run("chain", "raw/device-1.jsonl", 1).is_none());
    }

    #[test]
    fn an_answer_that_holds_says_on_which_core_counts() {
        let pages = [across(vec![stand(1, "a", true), stand(2, "a", true)], Vec::new(), Across::Holds)];
        let page = render_by_cores(&pages, "x", &|_, cores| if cores == 1 { "cores-1/".into() } else { String::new() });
        assert!(page.contains("| holds on 1 and 2 cores |"), "{page}");
        assert!(page.contains("[`a`](cores-1/device.md#question-throughput) (beyond noise, p = 0.0040)"), "{page}");
        assert!(page.contains("[`a`](device.md#question-throughput)"), "{page}");
    }

    #[test]
    fn different_picks_that_hold_say_how_close_each_is_in_the_other_run() {
        let pages = [across(
            vec![stand(1, "a", false), stand(2, "b", false)],
            vec![
                crossing(1, 2, "a", "b", (98_000.0, 99_000.0), Outcome::Equal),
                crossing(2, 1, "b", "a", (97_600.0, 98_000.0), Outcome::Equal),
            ],
            Across::Holds,
        )];
        let page = render_by_cores(&pages, "x", &|_, _| String::new());
        assert!(
            page.contains(
                "| holds on 1 and 2 cores: on 2 cores the 1-core pick `a` is practically equal to `b` (1.01×, within \
                 1.20×: 98,000 against 99,000 calls per second); on 1 core the 2-core pick `b` is practically equal \
                 to `a` (1.00×, within 1.20×: 97,600 against 98,000 calls per second) |"
            ),
            "{page}"
        );
    }

    #[test]
    fn a_change_says_by_how_much_each_pick_loses_at_the_other_count_and_flipped_claims_are_listed() {
        let page = render_by_cores(&[changes()], "x", &|_, _| String::new());
        assert!(
            page.contains(
                "**changes**: on 2 cores the 1-core pick `a` is practically equal to `b` (1.14×, within 1.20×: \
                 828,130 against 947,359 calls per second); on 1 core the 2-core pick `b` is 5.04× behind `a`, \
                 beyond 1.20× (157,362 against 792,586 calls per second) |"
            ),
            "{page}"
        );
        assert!(page.contains("Tasks beat threads (fails on 1 core, holds on 2 cores)"), "{page}");
    }

    #[test]
    fn an_open_answer_says_which_run_gave_none_or_which_pick_did_not_run() {
        let none = Stand { pick: None, ..stand(2, "b", false) };
        let no_answer = Crossing {
            own_pick: None,
            value: None,
            own_value: None,
            factor: None,
            ..crossing(1, 2, "a", "a", (1.0, 1.0), Outcome::NoAnswer)
        };
        let page =
            render_by_cores(&[across(vec![stand(1, "a", true), none], vec![no_answer], Across::Open)], "x", &|_, _| {
                String::new()
            });
        assert!(page.contains("| open: no answer on 2 cores |"), "{page}");
        let not_run = Crossing { value: None, factor: None, ..crossing(1, 2, "a", "b", (1.0, 1.0), Outcome::NotInRun) };
        let page = render_by_cores(
            &[across(vec![stand(1, "a", true), stand(2, "b", true)], vec![not_run], Across::Open)],
            "x",
            &|_, _| String::new(),
        );
        assert!(
            page.contains("| open: on 2 cores the 1-core pick `a` did not run (not among that run's alternatives) |"),
            "{page}"
        );
    }

    #[test]
    fn a_long_tie_names_three_and_counts_the_rest() {
        let mut tied = stand(1, "a", false);
        tied.tied = ["b", "c", "d", "e", "f"].iter().map(|s| s.to_string()).collect();
        let page =
            render_by_cores(&[across(vec![tied, stand(2, "a", true)], Vec::new(), Across::Holds)], "x", &|_, _| {
                String::new()
            });
        assert!(page.contains("(cannot tell from `b`, `c`, `d` and 2 more)"), "{page}");
    }

    #[test]
    fn core_counts_read_as_words() {
        let words = |cores: Vec<u32>| {
            report_line(&AcrossCores { cores, ..across(Vec::new(), Vec::new(), Across::Holds) }, 1, "x")
        };
        assert!(words(vec![1, 2]).contains("holds on 1 and 2 cores;"));
        assert!(words(vec![1, 2, 4]).contains("holds on 1, 2 and 4 cores;"));
        assert!(words(vec![1]).contains("holds on 1 core;"));
        assert!(words(vec![4]).contains("holds on 4 cores;"));
    }
}
