//! The page that sets a scenario's answers at several core counts side by side ([`measure::cores`]): results in,
//! markdown out. Nothing is decided here; [`measure::cores::across`] computed every agreement and flip.

use measure::compare::format_p;
use measure::cores::{Across, AcrossCores};
use serde::Serialize;

/// The page's template.
const TEMPLATE: &str = include_str!("templates/by-cores.md");

/// One scenario's rows, as the template reads them.
#[derive(Debug, Serialize)]
struct ScenarioView {
    scenario: String,
    cores: Vec<CoreColumn>,
    /// "1 and 2 cores".
    core_words: String,
    questions: Vec<QuestionView>,
    flipped_claims: Vec<ClaimView>,
    claims: usize,
}

/// A core count and the folder its run wrote.
#[derive(Debug, Serialize)]
struct CoreColumn {
    cores: u32,
}

#[derive(Debug, Serialize)]
struct QuestionView {
    id: String,
    ask: String,
    phase: Option<String>,
    stands: Vec<StandView>,
    across: &'static str,
}

#[derive(Debug, Serialize)]
struct StandView {
    cores: u32,
    folder: String,
    pick: Option<String>,
    apart: bool,
    tied: Vec<String>,
    p: Option<String>,
}

#[derive(Debug, Serialize)]
struct ClaimView {
    text: String,
    verdicts: Vec<VerdictView>,
}

#[derive(Debug, Serialize)]
struct VerdictView {
    cores: u32,
    verdict: &'static str,
}

/// "1 and 2 cores", "1, 2 and 4 cores".
fn core_words(cores: &[u32]) -> String {
    let names: Vec<String> = cores.iter().map(u32::to_string).collect();
    let list = match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.join(""),
    };
    let plural = cores.len() > 1 || cores.first().is_some_and(|&c| c != 1);
    format!("{list} core{}", if plural { "s" } else { "" })
}

/// The folder that `--cores` with a list writes the run at `cores` into, below its `--out`: `cores-N`.
pub fn folder(cores: u32) -> String {
    format!("cores-{cores}")
}

/// The markdown page for `scenarios`, measured on `testbed` (its CPU and build in a few words); `folder_of`
/// gives, for a scenario and core count, the link prefix of the folder holding that run's report, relative to the
/// page (`""` beside it, `cores-1/` below it).
pub fn render_by_cores(scenarios: &[AcrossCores], testbed: &str, folder_of: &dyn Fn(&str, u32) -> String) -> String {
    let views: Vec<ScenarioView> = scenarios
        .iter()
        .map(|s| ScenarioView {
            scenario: s.scenario.clone(),
            cores: s.cores.iter().map(|&cores| CoreColumn { cores }).collect(),
            core_words: core_words(&s.cores),
            questions: s
                .questions
                .iter()
                .map(|q| QuestionView {
                    id: q.id.clone(),
                    ask: q.ask.clone(),
                    phase: q.phase.clone(),
                    stands: q
                        .stands
                        .iter()
                        .map(|st| StandView {
                            cores: st.cores,
                            folder: folder_of(&s.scenario, st.cores),
                            pick: st.pick.clone(),
                            apart: st.apart,
                            tied: st.tied.clone(),
                            p: st.p.map(format_p),
                        })
                        .collect(),
                    across: match q.across {
                        Across::Holds => "holds",
                        Across::Flips => "flips",
                        Across::Open => "open",
                    },
                })
                .collect(),
            flipped_claims: s
                .claims
                .iter()
                .filter(|c| c.flips)
                .map(|c| ClaimView {
                    text: c.text.clone(),
                    verdicts: c
                        .verdicts
                        .iter()
                        .map(|(cores, v)| VerdictView {
                            cores: *cores,
                            verdict: v.map_or("not judged", |v| v.as_str()),
                        })
                        .collect(),
                })
                .collect(),
            claims: s.claims.len(),
        })
        .collect();
    let context = serde_json::json!({ "scenarios": views, "testbed": testbed });
    measure::template::render_or_note("reports/by-cores.md", TEMPLATE, context)
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
        }
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
        assert_eq!(core_words(&[1, 2]), "1 and 2 cores");
        assert_eq!(core_words(&[1, 2, 4]), "1, 2 and 4 cores");
        assert_eq!(core_words(&[1]), "1 core");
    }
}
