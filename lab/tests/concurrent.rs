//! Two runs into one folder: the second is refused while the first runs, and the first's files stay its own.
#![allow(clippy::unwrap_used)]

mod common;

use std::time::{Duration, Instant};

use common::{files_under, lab};
use predicates::str::contains;

/// A chain run of many short trials into `out`, long enough to be running when a second run starts.
fn long_run(out: &std::path::Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("lab"));
    cmd.args(["chain", "--only", "baseline-loop", "--items", "1000", "--forks", "30", "--warmup", "0"])
        .args(["--iterations", "1", "--out"])
        .arg(out)
        .stderr(std::process::Stdio::null());
    cmd
}

/// Wait until the run into `out` has written its raw file's header line, and return the file.
fn wait_for_raw_file(out: &std::path::Path) -> std::path::PathBuf {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        assert!(Instant::now() < deadline, "the first run never wrote its raw file's header");
        if let Some(raw) = files_under(out).into_iter().find(|p| p.starts_with("raw")) {
            if std::fs::read_to_string(out.join(&raw)).is_ok_and(|text| text.contains('\n')) {
                return raw;
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_second_run_into_a_folder_in_use_is_refused_and_the_first_finishes_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut first = long_run(&out).spawn().unwrap();
    let raw = wait_for_raw_file(&out);

    lab()
        .args(["chain", "--only", "baseline-loop", "--items", "1000", "--forks", "1", "--warmup", "0"])
        .args(["--iterations", "1", "--out"])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(contains("in use by another lab run"));
    lab().arg("report").arg(out.join(&raw)).arg("--out").arg(&out).assert().code(2).stderr(contains("in use"));

    let status = testkit::wait_within(&mut first, common::RUN_BOUND, "the first run");
    assert!(status.success(), "the first run must finish on its own");
    let raws: Vec<_> = files_under(&out).into_iter().filter(|p| p.starts_with("raw")).collect();
    assert_eq!(raws, std::slice::from_ref(&raw), "the refused run must not write a raw file");
    let text = std::fs::read_to_string(out.join(&raw)).unwrap();
    assert_eq!(text.lines().filter(|l| l.contains("\"record\":\"run\"")).count(), 1, "one run per raw file");
    // 30 forks of both phases of the chain's `work` sweep.
    assert_eq!(text.lines().filter(|l| l.contains("\"record\":\"trial\"")).count(), 60);
    assert!(out.join("chain.md").exists());
}

#[test]
fn runs_one_after_the_other_into_one_folder_each_keep_their_own_raw_file() {
    // Started within one second or not, each run's records go to a raw file of its own.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    for _ in 0..2 {
        lab()
            .args(["chain", "--only", "baseline-loop", "--items", "1000", "--forks", "1", "--warmup", "0"])
            .args(["--iterations", "1", "--out"])
            .arg(&out)
            .assert()
            .success();
    }
    let raws: Vec<_> = files_under(&out).into_iter().filter(|p| p.starts_with("raw")).collect();
    assert_eq!(raws.len(), 2, "{raws:?}");
    for raw in raws {
        let text = std::fs::read_to_string(out.join(raw)).unwrap();
        assert_eq!(text.lines().filter(|l| l.contains("\"record\":\"run\"")).count(), 1);
    }
}
