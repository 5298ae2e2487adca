//! `lab handoff --quick` ends with the summary table on stdout: every contestant named, CPU per item and the
//! maximum of outstanding work beside its bound shown, each claim's verdict on a line, then the run's answers.
#![allow(clippy::unwrap_used)]

mod common;

use common::lab;

#[test]
fn a_quick_handoff_run_ends_with_the_summary_table() {
    let dir = tempfile::tempdir().unwrap();
    // One capacity under 256 (so one-item contestants hand off their own small item count) and small sizes keep
    // the debug build quick; every contestant still runs.
    let output = lab()
        .args(["handoff", "--quick", "--capacity", "16", "--items", "4096", "--small-items", "1024"])
        .args(["--warmup", "0", "--iterations", "1", "--out"])
        .arg(dir.path())
        .env("COLUMNS", "120")
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(!stdout.contains('\u{1b}'), "no colour when stdout is not a terminal:\n{stdout}");

    let start = stdout.find("handoff (quick run): ms_per_million").unwrap_or_else(|| panic!("no table:\n{stdout}"));
    let table = &stdout[start..];
    for line in table.lines() {
        assert!(line.chars().count() <= 120, "wider than 120 columns: {line:?}");
    }
    let header = table.lines().find(|l| l.starts_with("contestant")).unwrap_or_else(|| panic!("{table}"));
    assert!(header.contains("ns/item") && header.contains("max / bound") && header.contains("status"), "{header}");

    // Every contestant has a row in the capacity_16 group.
    let rows: Vec<&str> = table.lines().skip_while(|l| *l != "capacity_16").skip(1).collect();
    for contestant in handoff::contestants() {
        let name = contestant.info().name;
        let row = rows
            .iter()
            .find(|l| l.split_whitespace().next() == Some(name.as_str()))
            .unwrap_or_else(|| panic!("{name} has no row:\n{table}"));
        assert!(row.trim_end().ends_with("ok"), "{row}");
    }
    // A channel contestant shows its CPU per item and its exact maximum beside the bound its check stated.
    let crossbeam = rows.iter().find(|l| l.starts_with("  blocking-crossbeam ")).unwrap_or_else(|| panic!("{table}"));
    let cells: Vec<&str> = crossbeam.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect();
    let cpu: f64 =
        cells[3].replace(',', "").parse().unwrap_or_else(|_| panic!("CPU cell {:?} in {crossbeam}", cells[3]));
    assert!(cpu > 0.0, "{crossbeam}");
    let (max, bound) = cells[4].split_once(" / ").unwrap_or_else(|| panic!("outstanding cell in {crossbeam}"));
    let (max, bound): (u64, u64) = (max.replace(',', "").parse().unwrap(), bound.replace(',', "").parse().unwrap());
    assert!(max >= 1 && max <= bound, "{crossbeam}");

    // Then the claims' verdicts, and the run's answers end the output: one process per contestant tells none.
    let claims = table.split_once("\nclaims\n").unwrap_or_else(|| panic!("no claims:\n{table}")).1;
    let (claims, answers) = claims.split_once("\nanswers\n").unwrap_or_else(|| panic!("no answers:\n{table}"));
    assert!(!claims.trim().is_empty());
    for line in claims.lines() {
        let verdict = line.split_whitespace().next().unwrap_or_default();
        assert!(["holds", "fails", "inconclusive"].contains(&verdict), "{line:?}");
    }
    assert!(answers.contains("  Handing items from a producer to a consumer"), "{answers}");
    assert!(
        answers.lines().last().is_some_and(|l| l.starts_with("    this run cannot tell: 1 process per contestant")),
        "{answers}"
    );
}
