//! A reader that went away ends the lab's output quietly: with its standard output (or error) a pipe whose read
//! end is closed before the lab starts, so that every write it makes fails with a broken pipe whatever the
//! machine's timing, each command prints no panic and exits with the status it has with a reader, and a run
//! still writes its report.
#![allow(clippy::unwrap_used)]

mod common;

use std::io::Read;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};

/// Which of the lab's streams has no reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Closed {
    Stdout,
    Stderr,
}

/// `lab <args>` with `closed` a pipe nobody reads (its read end closed before the lab starts): its exit status
/// and what it wrote on the other stream.
fn lab_with(closed: Closed, args: &[&str]) -> (ExitStatus, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut command = Command::new(assert_cmd::cargo::cargo_bin("lab"));
    command.args(args).stdin(Stdio::null());
    match closed {
        Closed::Stdout => command.stdout(writer).stderr(Stdio::piped()),
        Closed::Stderr => command.stdout(Stdio::piped()).stderr(writer),
    };
    let mut child = command.spawn().unwrap();
    let other = match closed {
        Closed::Stdout => child.stderr.take().map(|s| Box::new(s) as Box<dyn Read + Send>),
        Closed::Stderr => child.stdout.take().map(|s| Box::new(s) as Box<dyn Read + Send>),
    };
    // Read on a thread of its own, so a full pipe never stalls the lab.
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut other) = other {
            let _ = other.read_to_string(&mut text);
        }
        text
    });
    let status = testkit::wait_within(&mut child, common::RUN_BOUND, &format!("lab {}", args.join(" ")));
    (status, reader.join().unwrap())
}

/// `lab <args>` with both streams read: its exit status.
fn status_with_a_reader(args: &[&str]) -> ExitStatus {
    let mut command = Command::new(assert_cmd::cargo::cargo_bin("lab"));
    command.args(args);
    testkit::output_within(&mut command, common::RUN_BOUND, &format!("lab {}", args.join(" "))).status
}

/// `lab <args>` with no reader on its standard output: the status it has with one, and nothing on standard
/// error but `expected_stderr` (which panics and warnings would break).
fn quiet_without_a_reader(args: &[&str], expected_stderr: impl Fn(&str) -> bool) {
    let (status, stderr) = lab_with(Closed::Stdout, args);
    assert!(!stderr.contains("panicked") && !stderr.contains("Broken pipe"), "lab {}: {stderr}", args.join(" "));
    assert!(expected_stderr(&stderr), "lab {}: {stderr}", args.join(" "));
    assert_eq!(status.code(), status_with_a_reader(args).code(), "lab {}: {stderr}", args.join(" "));
}

fn committed(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path).display().to_string()
}

#[test]
fn list_help_and_compare_end_quietly_on_a_closed_pipe_with_their_usual_status() {
    for args in [&["list"][..], &["list", "--verbose"], &["list", "--json"], &["--help"], &["chain", "--help"]] {
        quiet_without_a_reader(args, str::is_empty);
    }
    let (chain, handoff) = (committed("reports/chain.json"), committed("reports/handoff.json"));
    let (chain, handoff) = (chain.as_str(), handoff.as_str());
    quiet_without_a_reader(&["compare", chain, chain], str::is_empty);
    quiet_without_a_reader(&["compare", chain, chain, "--json"], str::is_empty);
    // Refused (two scenarios): status 2 and its message on standard error, the closed output notwithstanding.
    quiet_without_a_reader(&["compare", chain, handoff], |stderr| stderr.starts_with("error: "));
}

#[test]
fn a_report_and_a_run_write_their_files_and_end_quietly_on_a_closed_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let raw = std::fs::read_dir(committed("reports/raw"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("chain-")))
        .unwrap();
    let out = dir.path().join("report");
    let args = ["report".to_string(), raw.display().to_string(), "--out".into(), out.display().to_string()];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    quiet_without_a_reader(&args, |stderr| stderr.contains("wrote"));
    assert!(out.join("chain.md").exists(), "the report was written");

    // A run prints its summary table on standard output: with nobody reading it, it still runs, writes its
    // report and exits as it would have.
    let run = dir.path().join("run");
    let (status, stderr) =
        lab_with(Closed::Stdout, &common::tiny_chain(&run).iter().map(String::as_str).collect::<Vec<_>>());
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(status.success(), "{stderr}");
    assert!(run.join("chain.md").exists(), "the run wrote its report");
}

#[test]
fn a_closed_standard_error_does_not_turn_an_error_into_a_panic() {
    // Bad usage exits 2, and `lab list` 0, whether or not anyone reads standard error.
    let (status, stdout) = lab_with(Closed::Stderr, &["nosuch"]);
    assert_eq!(status.code(), Some(2), "{stdout}");
    let (status, stdout) = lab_with(Closed::Stderr, &["list"]);
    assert_eq!(status.code(), Some(0));
    assert!(stdout.contains("baseline-loop"), "{stdout}");
}
