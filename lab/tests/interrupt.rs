//! Ctrl-C in the middle of a run keeps every finished trial in the raw file and writes no report.
#![allow(clippy::unwrap_used)]

mod common;

use std::time::{Duration, Instant};

use common::files_under;

#[test]
fn an_interrupted_run_keeps_finished_trials_and_writes_no_report() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let lab = assert_cmd::cargo::cargo_bin("lab");
    let mut command = std::process::Command::new(lab);
    let mut child = testkit::with_default_signals(&mut command)
        .args(["chain", "--only", "baseline-loop", "--items", "1000", "--forks", "100", "--warmup", "0"])
        .args(["--iterations", "1", "--out"])
        .arg(&out)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();

    // Wait until at least two trials are on disk (header + 2 lines), then interrupt the lab alone.
    let deadline = Instant::now() + Duration::from_secs(120);
    let raw = loop {
        assert!(Instant::now() < deadline, "no trial finished in time");
        let raw = files_under(&out).into_iter().find(|p| p.starts_with("raw"));
        if let Some(raw) = raw {
            let lines = std::fs::read_to_string(out.join(&raw)).unwrap_or_default().lines().count();
            if lines >= 3 {
                break raw;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // SAFETY: sending a signal to a child we own.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let status = testkit::wait_within(&mut child, common::RUN_BOUND, "the interrupted lab");
    assert_eq!(status.code(), Some(130));

    let text = std::fs::read_to_string(out.join(&raw)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() >= 3 && lines.len() < 101, "{} lines", lines.len());
    assert!(lines[0].contains("\"record\":\"run\""));
    assert!(lines[1..].iter().all(|l| l.contains("\"record\":\"trial\"")), "no footer after an interruption");
    assert!(!out.join("chain.md").exists(), "an interrupted run must not write a report");
    assert!(!out.join("chain.json").exists());
    assert!(!files_under(&out).iter().any(|p| p.display().to_string().contains(".tmp")));
}
