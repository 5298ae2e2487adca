//! The page that sets a scenario's answers at several core counts side by side ([`measure::cores`]): results in,
//! markdown out. Nothing is decided here; [`measure::cores::across`] computed every agreement and flip.

use measure::compare::format_p;
use measure::cores::{Across, AcrossCores, QuestionAcross};
use serde_json::{json, Value};

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
                "claims": s.claims.len(),
            })
        })
        .collect();
    let context = json!({ "scenarios": views, "testbed": testbed });
    template!("by-cores.md", context)
}

/// `question` as the templates read it (its id, ask, phase, what each core count's run answered and whether the
/// answer holds, flips or is open across them); `folder_of` gives the link prefix of the run at a core count.
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
    let across = match question.across {
        Across::Holds => "holds",
        Across::Flips => "flips",
        Across::Open => "open",
    };
    json!({ "id": question.id, "ask": question.ask, "phase": question.phase, "stands": stands, "across": across })
}

/// The one line a run's report and the index carry on its scenario's answers across core counts: every answer
/// holds, or which flip (each core count's pick named) and how many are open, and any claim whose verdict changes.
/// `this_cores` is the run's own core count and `link` the path from its report to `by-cores.md` with its anchor.
pub fn report_line(across: &AcrossCores, this_cores: u32, link: &str) -> String {
    let count = |kind: Across| across.questions.iter().filter(|q| q.across == kind).count();
    let flips: Vec<Value> = across
        .questions
        .iter()
        .filter(|q| q.across == Across::Flips)
        .map(|q| question_view(q, &|_| String::new()))
        .collect();
    let context = json!({
        "this_cores": this_cores,
        "cores": across.cores,
        "questions": across.questions.len(),
        "holds": count(Across::Holds),
        "open": count(Across::Open),
        "flips": flips,
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
    use measure::cores::{ClaimAcross, QuestionAcross, Stand};
    use measure::summary::Verdict;

    use super::*;

    fn stand(cores: u32, pick: &str, apart: bool) -> Stand {
        Stand { cores, pick: Some(pick.to_string()), apart, tied: Vec::new(), p: apart.then_some(0.004) }
    }

    fn across(stands: Vec<Stand>, across: Across) -> AcrossCores {
        AcrossCores {
            scenario: "device".to_string(),
            cores: vec![1, 2],
            questions: vec![QuestionAcross {
                id: "throughput".to_string(),
                ask: "Which shape carries the most calls?".to_string(),
                phase: Some("in_flight_1000".to_string()),
                stands,
                across,
            }],
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

    #[test]
    fn the_report_line_says_every_answer_holds_or_names_each_flip() {
        let mut holds = across(vec![stand(1, "a", true), stand(2, "a", true)], Across::Holds);
        holds.claims[0].flips = false;
        let line = report_line(&holds, 2, "by-cores.md#device");
        assert_eq!(
            line,
            "**Across core counts** (this run: 2 cores): every answer here holds on 1 and 2 cores; no claim holds at \
             one core count and fails at another ([answers by core count](by-cores.md#device))."
        );
        let flips = across(vec![stand(1, "a", true), stand(2, "b", true)], Across::Flips);
        let line = report_line(&flips, 1, "../by-cores.md#device");
        assert!(
            line.contains(
                "for “Which shape carries the most calls?” (`in_flight_1000`), on 1 core the answer is `a` and on 2 \
                 cores the answer is `b`"
            ),
            "{line}"
        );
        assert!(line.contains("“Tasks beat threads” (fails on 1 core, holds on 2 cores)"), "{line}");
        let open = across(vec![stand(1, "a", false), stand(2, "b", true)], Across::Open);
        let line = report_line(&open, 1, "x");
        assert!(
            line.contains("1 answer is open on 1 and 2 cores (these runs cannot say whether it survives"),
            "{line}"
        );
    }

    #[test]
    fn a_run_is_found_by_its_raw_file() {
        let file = measure::cores::ByCores::new(vec![across(vec![stand(1, "a", true)], Across::Holds)]);
        assert!(file.of_run("device", "raw/device-2.jsonl", 2).is_some());
        assert!(file.of_run("device", "raw/device-2.jsonl", 1).is_none(), "its file name at another core count");
        assert!(file.of_run("device", "raw/device-3.jsonl", 2).is_none(), "another run of the scenario");
        assert!(file.of_run("chain", "raw/device-1.jsonl", 1).is_none());
    }

    #[test]
    fn an_answer_that_holds_says_on_which_core_counts() {
        let pages = [across(vec![stand(1, "a", true), stand(2, "a", true)], Across::Holds)];
        let page = render_by_cores(&pages, "x", &|_, cores| if cores == 1 { "cores-1/".into() } else { String::new() });
        assert!(page.contains("| holds on 1 and 2 cores |"), "{page}");
        assert!(page.contains("[`a`](cores-1/device.md#question-throughput) (beyond noise, p = 0.0040)"), "{page}");
        assert!(page.contains("[`a`](device.md#question-throughput)"), "{page}");
    }

    #[test]
    fn a_flip_names_each_core_counts_pick_and_flipped_claims_are_listed() {
        let pages = [across(vec![stand(1, "a", true), stand(2, "b", true)], Across::Flips)];
        let page = render_by_cores(&pages, "x", &|_, _| String::new());
        assert!(page.contains("**flips**: on 1 core `a`; on 2 cores `b`"), "{page}");
        assert!(page.contains("Tasks beat threads (fails on 1 core, holds on 2 cores)"), "{page}");
    }

    #[test]
    fn a_long_tie_names_three_and_counts_the_rest() {
        let mut tied = stand(1, "a", false);
        tied.tied = ["b", "c", "d", "e", "f"].iter().map(|s| s.to_string()).collect();
        let page =
            render_by_cores(&[across(vec![tied, stand(2, "a", true)], Across::Holds)], "x", &|_, _| String::new());
        assert!(page.contains("(cannot tell from `b`, `c`, `d` and 2 more)"), "{page}");
    }

    #[test]
    fn core_counts_read_as_words() {
        let words = |cores: Vec<u32>| report_line(&AcrossCores { cores, ..across(Vec::new(), Across::Holds) }, 1, "x");
        assert!(words(vec![1, 2]).contains("holds on 1 and 2 cores;"));
        assert!(words(vec![1, 2, 4]).contains("holds on 1, 2 and 4 cores;"));
        assert!(words(vec![1]).contains("holds on 1 core;"));
        assert!(words(vec![4]).contains("holds on 4 cores;"));
    }
}
