//! The family questions of handoff and chain are computed at render time from raw records: the committed runs
//! (`reports/raw/`, and `reports/cores-1/raw/` at one core), which predate the questions, are rendered with the
//! current code through the functions `lab report` uses, and every family question must be answered at every
//! level (a control where the scenario declares one), printed in the report with its rival family or its control,
//! and set in the index's family matrix, one cell per question, level and core count.

mod committed;

use committed::{answers, environment, error, phase, raw, rendering, summarize, table, term};

use render::matrix::FamilyRun;

const FAMILY_IDS: [&str; 4] = ["family-per-item", "family-per-item-cpu", "family-batched", "family-batched-cpu"];

/// `run`'s report.
fn report(run: &rendering::RenderedRun) -> &str {
    committed::file(run, &format!("{}.md", run.summary.scenario))
}

#[test]
fn the_committed_runs_answer_the_family_questions_in_the_report_and_the_matrix() {
    let (handoff, chain) = std::thread::scope(|scope| {
        let handoff = scope.spawn(|| committed::rendered("reports/raw", "handoff").expect("a committed handoff run"));
        let chain = scope.spawn(|| committed::rendered("reports/raw", "chain").expect("a committed chain run"));
        (handoff.join().expect("handoff renders"), chain.join().expect("chain renders"))
    });
    for run in [&handoff, &chain] {
        let scenario = &run.summary.scenario;
        for id in FAMILY_IDS {
            let q = run.summary.questions.iter().find(|q| q.id == id);
            let q = q.unwrap_or_else(|| panic!("{scenario}: no question `{id}`"));
            assert!(q.family, "{scenario} `{id}` is asked of families");
            assert_eq!(q.answers.len(), run.summary.phases.len().max(1), "{scenario} `{id}`: one answer per level");
            for a in &q.answers {
                assert!(a.control.is_some() || a.pick.is_some(), "{scenario} `{id}` {:?}: answered", a.phase);
                if let Some(pick) = &a.pick {
                    let batched = pick.ends_with("-batched");
                    assert_eq!(batched, id.contains("batched"), "{scenario} `{id}`: per item and batched apart");
                    let rival = a.rival.as_ref().expect("another family ran");
                    let family = run.summary.contestant(pick).map(|c| c.family.as_str());
                    assert_ne!(
                        Some(rival.family.as_str()),
                        family,
                        "{scenario} `{id}`: the rival is of another family"
                    );
                }
            }
        }
        let text = report(run);
        assert!(text.contains("**The family: "), "{scenario}: the report prints the family answer");
    }
    // At capacities 1 and 16 a handoff batch is one item: the batched questions, and the channel question's
    // "should I batch", are controls there, printed as such.
    for id in ["channel", "family-batched", "family-batched-cpu"] {
        let q = handoff.summary.questions.iter().find(|q| q.id == id).expect("asked");
        let controls: Vec<Option<&str>> =
            q.answers.iter().filter(|a| a.control.is_some()).map(|a| a.phase.as_deref()).collect();
        assert_eq!(controls, [Some("capacity_1"), Some("capacity_16")], "`{id}`");
        assert!(q.answers.iter().filter(|a| a.control.is_some()).all(|a| a.pick.is_none()), "`{id}`: no pick");
    }
    assert!(report(&handoff).contains("At capacity 16: **A control, not an answer**: "), "{}", report(&handoff));

    // The index: the matrix opens it, a cell per family question, level and core count run.
    let mut others: Vec<FamilyRun> = Vec::new();
    for scenario in ["handoff", "chain"] {
        if let Some(run) = committed::rendered("reports/cores-1/raw", scenario) {
            others.push(FamilyRun::of(&run.summary));
        }
    }
    let entries = [handoff.index_entry.clone(), chain.index_entry.clone()];
    let index = render::index::render_index_across(&entries, &others);
    let matrix = index.find("## The family matrix").expect("the index opens with the family matrix");
    assert!(matrix < index.find("## The bottom line").expect("a bottom line"), "{index}");
    let columns = if others.is_empty() { 1 } else { 2 };
    let header = index.lines().find(|l| l.starts_with("| scenario: family question")).expect("the matrix's header");
    assert_eq!(header.matches(" core").count(), columns, "{header}");
    let rows: usize = [&handoff, &chain].iter().map(|r| r.summary.phases.len().max(1) * FAMILY_IDS.len()).sum();
    let body: Vec<&str> = index
        .lines()
        .skip_while(|l| !l.starts_with("| scenario: family question"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert_eq!(body.len(), rows, "one row per family question and level: {index}");
    for row in &body {
        let cells = render::index::table_cells(row);
        assert_eq!(cells.len(), 2 + columns, "{row}");
        assert!(cells[2..].iter().all(|c| c != "—" && !c.is_empty()), "a verdict at every core count: {row}");
    }
    assert!(index.contains("(#family-handoff-family-per-item)"), "the bottom line links into the matrix: {index}");
}
