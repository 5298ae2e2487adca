//! The trial process: reads one [`TrialRequest`] on standard input, runs it, and writes each
//! [`TrialMessage`] on standard output as it happens, so the lab keeps whatever finished.

use std::io::{Read, Write};

use anyhow::{Context, Result};
use measure::record::{IterationRecord, TrialMessage, TrialRequest};
use measure::scenario::{process_metrics, TrialSink};
use measure::summary::Check;

use crate::registry;

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
        self.send(&TrialMessage::Iteration(record));
    }
    fn check(&mut self, check: Check) {
        self.send(&TrialMessage::Check(check));
    }
    fn skipped(&mut self, reason: &str) {
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
    let mut sink = StdoutSink { out: std::io::stdout().lock() };
    scenario
        .run_trial(&request, &mut sink)
        .with_context(|| format!("trial of `{}` in `{}`", request.contestant, request.scenario))?;
    sink.send(&TrialMessage::Done { metrics: process_metrics() });
    Ok(())
}
