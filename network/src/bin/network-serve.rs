//! A stand-in for the lab binary in this crate's tests: `network-serve __serve` serves exactly as `lab __serve`
//! does, and `network-serve __trial` runs one trial request from standard input as `lab __trial` does (JSON
//! lines on standard output), so tests can start, kill and interrupt trials and servers without the lab.

use std::io::{Read, Write};
use std::process::ExitCode;

use measure::record::{IterationRecord, TrialMessage, TrialRequest};
use measure::scenario::{Scenario, TrialSink};
use measure::summary::Check;

struct Lines;

impl Lines {
    fn send(&mut self, msg: &TrialMessage) {
        if let Ok(line) = serde_json::to_string(msg) {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        }
    }
}

impl TrialSink for Lines {
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

fn main() -> ExitCode {
    match std::env::args().nth(1).as_deref() {
        Some("__serve") => match network::serve_stdio() {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                eprintln!("network-serve: {err}");
                ExitCode::from(1)
            }
        },
        Some("__trial") => {
            let mut input = String::new();
            if std::io::stdin().read_to_string(&mut input).is_err() {
                return ExitCode::from(2);
            }
            let Ok(request) = serde_json::from_str::<TrialRequest>(&input) else {
                eprintln!("network-serve: unreadable trial request");
                return ExitCode::from(2);
            };
            let scenario: &dyn Scenario = match request.scenario.as_str() {
                "http" => &network::HttpScenario,
                _ => &network::TcpScenario,
            };
            match scenario.run_trial(&request, &mut Lines) {
                Ok(()) => ExitCode::SUCCESS,
                Err(err) => {
                    eprintln!("network-serve: {err}");
                    ExitCode::from(1)
                }
            }
        }
        _ => {
            eprintln!("usage: network-serve __serve | __trial");
            ExitCode::from(2)
        }
    }
}
