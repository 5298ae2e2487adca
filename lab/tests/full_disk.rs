//! A full disk keeps what finished: a failed append leaves whole lines and names the raw file and the trials
//! kept (exit 3), a raw file with a torn last line still renders, and a report that cannot be written whole
//! leaves the previous one whole. The disk fills up through a file size limit (RLIMIT_FSIZE, with SIGXFSZ
//! ignored so a write past it fails with EFBIG as it would with ENOSPC), which needs no root or mount.
#![allow(clippy::unwrap_used)]

mod common;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{files_under, lab, run_tiny_chain, tiny_chain};

/// Run the lab with `args`, unable to write any file past `limit` bytes.
fn lab_with_file_size_limit(limit: u64, args: &[String]) -> Output {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("lab"));
    cmd.args(args);
    // SAFETY: in the child before exec, only async-signal-safe calls (signal, setrlimit) that allocate nothing.
    unsafe {
        cmd.pre_exec(move || {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let rlimit = libc::rlimit { rlim_cur: limit, rlim_max: limit };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &rlimit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    };
    testkit::output_within(&mut cmd, common::RUN_BOUND, "the lab with a file size limit")
}

/// The one raw file under `out`.
fn raw_file(out: &Path) -> PathBuf {
    let raws: Vec<PathBuf> = files_under(out).into_iter().filter(|p| p.starts_with("raw")).collect();
    assert_eq!(raws.len(), 1, "{raws:?}");
    out.join(&raws[0])
}

/// A finished tiny chain run into `out`; returns its raw file.
fn tiny_run(out: &Path) -> PathBuf {
    run_tiny_chain(out);
    raw_file(out)
}

#[test]
fn a_full_disk_during_a_run_names_the_raw_file_and_keeps_whole_lines() {
    let dir = tempfile::tempdir().unwrap();
    // Room for the header and one trial, not for the second trial.
    let reference = std::fs::read_to_string(tiny_run(&dir.path().join("reference"))).unwrap();
    let lines: Vec<usize> = reference.lines().map(|l| l.len() + 1).collect();
    let limit = (lines[0] + lines[1] + lines[2] / 2) as u64;

    let out = dir.path().join("out");
    let output = lab_with_file_size_limit(limit, &tiny_chain(&out));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    let raw = raw_file(&out);
    assert!(stderr.contains("cannot append to"), "{stderr}");
    assert!(stderr.contains(&format!("1 finished trial(s) are kept in {}", raw.display())), "{stderr}");
    assert!(stderr.contains(&format!("lab report {}", raw.display())), "{stderr}");
    assert!(!out.join("chain.md").exists());

    // The half-written line was taken back: the file ends with its last whole record.
    let text = std::fs::read_to_string(&raw).unwrap();
    assert!(text.ends_with('\n'));
    assert_eq!(text.lines().count(), 2);
    let again = dir.path().join("again");
    lab().arg("report").arg(&raw).arg("--out").arg(&again).assert().success();
    assert!(again.join("chain.md").exists());
}

#[test]
fn a_raw_file_with_a_torn_last_line_renders_every_complete_record_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(tiny_run(&dir.path().join("run"))).unwrap();
    // Drop the footer and cut the last trial in half, as a write that ran out of room leaves it.
    let lines: Vec<&str> = text.lines().collect();
    let last = lines[lines.len() - 2];
    let torn = format!("{}\n{}", lines[..lines.len() - 2].join("\n"), &last[..last.len() / 2]);
    let raw = dir.path().join("torn.jsonl");
    std::fs::write(&raw, torn).unwrap();

    let out = dir.path().join("out");
    let assert = lab().arg("report").arg(&raw).arg("--out").arg(&out).assert().success();
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    let complete = lines.len() - 3;
    assert!(stderr.contains(&format!("line {} was cut short", lines.len() - 1)), "{stderr}");
    assert!(stderr.contains(&format!("rendering the {complete} complete trial record(s)")), "{stderr}");
    let report = std::fs::read_to_string(out.join("chain.md")).unwrap();
    assert!(report.contains("interrupted"), "the report must say the run did not finish");
}

#[test]
fn a_report_that_cannot_be_written_whole_leaves_the_previous_report_whole() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    tiny_run(&out);
    let before: Vec<(PathBuf, Vec<u8>)> =
        files_under(&out).into_iter().map(|p| (p.clone(), std::fs::read(out.join(&p)).unwrap())).collect();

    // Another run's report, rendered into `out` with room for its markdown but not for its largest file.
    let other = dir.path().join("other");
    let other_raw = tiny_run(&other);
    let md = std::fs::metadata(other.join("chain.md")).unwrap().len();
    let largest = files_under(&other).iter().map(|p| std::fs::metadata(other.join(p)).unwrap().len()).max().unwrap();
    assert!(largest > md, "the test needs a report file larger than the markdown");
    let args = ["report".to_string(), other_raw.display().to_string(), "--out".into(), out.display().to_string()];
    let output = lab_with_file_size_limit(md, &args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("cannot write"), "{stderr}");

    let after: Vec<(PathBuf, Vec<u8>)> = files_under(&out)
        .into_iter()
        .filter(|p| p.as_path() != Path::new(".lab.lock"))
        .map(|p| (p.clone(), std::fs::read(out.join(&p)).unwrap()))
        .collect();
    let before: Vec<(PathBuf, Vec<u8>)> =
        before.into_iter().filter(|(p, _)| p.as_path() != Path::new(".lab.lock")).collect();
    assert!(after == before, "the folder must keep the previous report, every file of it and nothing else");
}
