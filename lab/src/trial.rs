//! The trial process: reads one [`TrialRequest`] on standard input, runs it, and writes each
//! [`TrialMessage`] on standard output as it happens, so the lab keeps whatever finished.
//!
//! Before anything is timed, the `may` configuration in force must be the one the contestant asked for: `may`
//! keeps one scheduler per process and reads its settings once ([`pipelines::coroutine`]). A configuration
//! refused in this process stops the trial at once, where it was asked (the hook of
//! [`pipelines::coroutine::on_refusal`]), and every message the trial sends is preceded by
//! [`pipelines::coroutine::verify`], which also catches `may`'s settings changed behind the lab's back. Either
//! way the trial prints [`SETUP_ERROR_PREFIX`] and the reason on standard error and exits with
//! [`SETUP_ERROR_STATUS`]: a setup error, not the contestant's failure, on which the lab stops and exits 2
//! ([`crate::executor`]).

use std::io::{Read, Write};

use anyhow::{Context, Result};
use measure::record::{IterationRecord, TrialMessage, TrialRequest};
use measure::scenario::{process_metrics, TrialSink};
use measure::summary::Check;

use crate::registry;

/// The exit status of a trial process stopped by a setup error (`EX_CONFIG` of `sysexits.h`): the `may`
/// configuration in force is not the one the contestant asked for.
pub(crate) const SETUP_ERROR_STATUS: i32 = 78;

/// What starts the line a trial stopped by a setup error prints on standard error, before the reason.
pub(crate) const SETUP_ERROR_PREFIX: &str = "trial setup error: ";

/// Stop this trial process as a setup error: `why` on standard error, exit [`SETUP_ERROR_STATUS`].
fn stop_on_setup_error(why: &pipelines::coroutine::ConfigError) -> ! {
    // Every message sent so far is flushed already (and the sink may hold standard output's lock on another
    // thread): only the reason is written.
    eprintln!("{SETUP_ERROR_PREFIX}{why}");
    std::process::exit(SETUP_ERROR_STATUS)
}

/// The hook of [`pipelines::coroutine::on_refusal`] in a trial process.
fn refused(why: &pipelines::coroutine::ConfigError) {
    stop_on_setup_error(why);
}

/// Stop the trial as a setup error if `may` does not run as this process configured it.
fn verify_may() {
    if let Err(why) = pipelines::coroutine::verify() {
        stop_on_setup_error(&why);
    }
}

/// Writes each message as one JSON line and flushes it at once.
struct StdoutSink<W: Write> {
    out: W,
}

impl<W: Write> StdoutSink<W> {
    fn send(&mut self, msg: &TrialMessage) {
        // If the lab has gone, there is nobody to tell: keep running to the end quietly.
        if let Ok(line) = serde_json::to_string(msg) {
            let _ = writeln!(self.out, "{line}");
            let _ = self.out.flush();
        }
    }
}

impl<W: Write> TrialSink for StdoutSink<W> {
    fn iteration(&mut self, record: IterationRecord) {
        verify_may();
        self.send(&TrialMessage::Iteration(record));
    }
    fn check(&mut self, check: Check) {
        verify_may();
        self.send(&TrialMessage::Check(check));
    }
    fn skipped(&mut self, reason: &str) {
        verify_may();
        self.send(&TrialMessage::Skipped { reason: reason.to_string() });
    }
}

/// Run the trial described on standard input.
pub(crate) fn run() -> Result<()> {
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input).context("reading the trial request")?;
    let request: TrialRequest = serde_json::from_str(&input).context("decoding the trial request")?;
    let scenario = registry::find(&request.scenario)
        .with_context(|| format!("unknown scenario `{}` in trial request", request.scenario))?;
    pipelines::coroutine::on_refusal(refused);
    let mut sink = StdoutSink { out: std::io::stdout().lock() };
    scenario
        .run_trial(&request, &mut sink)
        .with_context(|| format!("trial of `{}` in `{}`", request.contestant, request.scenario))?;
    verify_may();
    sink.send(&TrialMessage::Done { metrics: process_metrics() });
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::process::Command;
    use std::time::Duration;

    use super::*;

    /// Set in the child process of the test below.
    const CHILD: &str = "LAB_TRIAL_SETUP_ERROR_CHILD";

    /// In a process of its own (this test binary, run again): a second, different `may` configuration stops it
    /// where it is asked, with the setup error's status and line, which the executor reads as a setup error.
    #[test]
    fn a_refused_may_configuration_stops_the_trial_process_as_a_setup_error() {
        if std::env::var_os(CHILD).is_some() {
            pipelines::coroutine::on_refusal(refused);
            pipelines::coroutine::configure(1);
            pipelines::coroutine::configure(2);
            panic!("the refusal did not stop the trial process");
        }
        let exe = std::env::current_exe().expect("this test binary");
        let mut command = Command::new(exe);
        command
            .args([
                "trial::tests::a_refused_may_configuration_stops_the_trial_process_as_a_setup_error",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD, "1");
        let out = testkit::output_within(&mut command, Duration::from_secs(120), "the refusing child");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(SETUP_ERROR_STATUS), "{stderr}");
        let why = crate::executor::setup_error(out.status, &out.stderr).expect("read as a setup error");
        assert!(why.contains("with 1 carrier thread (not pinned)"), "{why}");
        assert!(why.contains("not the 2 carrier threads (not pinned)"), "{why}");
    }
}
