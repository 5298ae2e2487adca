//! No trial outlives the lab: SIGINT, SIGTERM and SIGHUP stop the run keeping what finished, and even SIGKILL
//! to the lab leaves no `__trial` process running.
#![allow(clippy::unwrap_used)]

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Start an overload run whose one trial lasts over a minute, into a fresh folder (`--queue-limit 0`: a fixed
/// bound against a dependency that rejects would spend its calls on rejections in seconds).
fn start_long_trial(out: &std::path::Path) -> Child {
    let mut lab = Command::new(assert_cmd::cargo::cargo_bin("lab"));
    // The signals' dispositions at their defaults, whatever this test runner inherited: the lab must handle them.
    testkit::with_default_signals(&mut lab)
        .args([
            "overload",
            "--quick",
            "--calls",
            "2000000",
            "--queue-limit",
            "0",
            "--only",
            "stream-fixed,blocking-fixed",
        ])
        .args(["--trial-timeout", "600", "--out"])
        .arg(out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The parent pid and state of process `pid`, from `/proc/<pid>/stat`; `None` once it is gone.
fn parent_and_state(pid: u32) -> Option<(u32, char)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid ...`: comm may hold spaces, so read after its closing parenthesis.
    let mut rest = stat[stat.rfind(')')? + 1..].split_whitespace();
    let state = rest.next()?.chars().next()?;
    let ppid = rest.next()?.parse().ok()?;
    Some((ppid, state))
}

/// Whether `pid` is a trial process (the lab re-executed with its hidden subcommand).
fn is_trial(pid: u32) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c.split(|b| *b == 0).any(|arg| arg == b"__trial"))
}

/// Wait until `lab` has a trial child running, and return its pid.
fn wait_for_trial(lab: u32) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        assert!(Instant::now() < deadline, "the lab never started a trial");
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
            if parent_and_state(pid).is_some_and(|(ppid, _)| ppid == lab) && is_trial(pid) {
                return pid;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether the trial `pid` is still running (a zombie waiting for its new parent to reap it is not).
fn still_running(pid: u32) -> bool {
    matches!(parent_and_state(pid), Some((_, state)) if state != 'Z' && state != 'X') && is_trial(pid)
}

/// Send `signal` to a lab in the middle of a trial; return its exit status, its standard error, and whether the
/// trial was still running a few seconds after the lab ended.
fn signal_during_a_trial(signal: libc::c_int) -> (std::process::ExitStatus, String, bool) {
    let dir = tempfile::tempdir().unwrap();
    let mut lab = start_long_trial(&dir.path().join("out"));
    let trial = wait_for_trial(lab.id());
    // SAFETY: sending a signal to a child we own.
    unsafe { libc::kill(lab.id() as libc::pid_t, signal) };
    let status = testkit::wait_within(&mut lab, Duration::from_secs(120), "the signalled lab");
    // The trial would run for about a minute on its own; give the kernel a few seconds to end it.
    let deadline = Instant::now() + Duration::from_secs(5);
    while still_running(trial) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let survived = still_running(trial);
    if survived {
        // SAFETY: ending the orphan this test made, so that a failure does not leave it running.
        unsafe { libc::kill(trial as libc::pid_t, libc::SIGKILL) };
    }
    // Read once the lab and its trial are gone, so nothing holds the pipe open and the read ends.
    let mut stderr = String::new();
    lab.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    (status, stderr, survived)
}

/// A signal the lab handles: it kills the trial, says what it kept, and exits 130.
fn assert_handled(signal: libc::c_int) {
    let (status, stderr, survived) = signal_during_a_trial(signal);
    assert!(!survived, "the trial outlived the lab");
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("finished trial(s) kept in"), "{stderr}");
}

#[test]
fn sigint_stops_the_run_and_its_trial() {
    assert_handled(libc::SIGINT);
}

#[test]
fn sigterm_stops_the_run_and_its_trial_and_says_what_it_kept() {
    assert_handled(libc::SIGTERM);
}

#[test]
fn sighup_stops_the_run_and_its_trial_and_says_what_it_kept() {
    assert_handled(libc::SIGHUP);
}

#[test]
fn sigkill_to_the_lab_leaves_no_trial_running() {
    let (status, _, survived) = signal_during_a_trial(libc::SIGKILL);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    assert!(!survived, "the trial outlived the lab");
}
