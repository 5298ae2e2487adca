//! Runs one planned trial and returns its record. [`ProcessExecutor`] re-executes the lab in a fresh process
//! with the hidden trial subcommand, talks to it in typed JSON lines, and kills it past its time budget; tests
//! use a scripted executor instead, so scheduling, statistics and reports are tested without real timing.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use measure::record::{MetricValues, Status, TrialMessage, TrialRecord};

use crate::cli::TRIAL_SUBCOMMAND;
use crate::plan::PlannedTrial;

/// How many bytes of a failed trial's standard error the record keeps.
const STDERR_TAIL_BYTES: usize = 2000;

/// Something that can run a planned trial.
pub(crate) trait TrialExecutor {
    /// Run `trial`, calling `on_message` for each message as it arrives, and return its record.
    fn run(&mut self, trial: &PlannedTrial, on_message: &mut dyn FnMut(&TrialMessage)) -> TrialRecord;
}

/// Runs each trial in a fresh child process of the lab itself.
#[derive(Debug)]
pub(crate) struct ProcessExecutor {
    /// Kill the trial after this long.
    pub timeout: Duration,
}

enum Event {
    Message(TrialMessage),
    Garbage(String),
    Eof,
}

impl TrialExecutor for ProcessExecutor {
    fn run(&mut self, trial: &PlannedTrial, on_message: &mut dyn FnMut(&TrialMessage)) -> TrialRecord {
        let mut record = TrialRecord {
            contestant: trial.request.contestant.clone(),
            phase: trial.request.phase.clone(),
            fork: trial.request.fork,
            order: trial.order,
            status: Status::Ok,
            reason: None,
            checks: Vec::new(),
            iterations: Vec::new(),
            metrics: MetricValues::new(),
            stderr_tail: None,
        };
        let exe = match std::env::current_exe() {
            Ok(exe) => exe,
            Err(e) => return failed(record, format!("cannot find the lab's own executable: {e}")),
        };
        let mut child = match Command::new(exe)
            .arg(TRIAL_SUBCOMMAND)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
        {
            Ok(child) => child,
            Err(e) => return failed(record, format!("cannot start the trial process: {e}")),
        };
        let request = match serde_json::to_vec(&trial.request) {
            Ok(bytes) => bytes,
            Err(e) => return failed(record, format!("cannot encode the trial request: {e}")),
        };
        if let Some(mut stdin) = child.stdin.take() {
            // The child reads the whole request before doing anything; a write error shows up as its failure.
            let _ = stdin.write_all(&request);
        }
        let (tx, rx) = mpsc::channel();
        let stdout = child.stdout.take();
        let reader = thread::spawn(move || {
            if let Some(stdout) = stdout {
                for line in BufReader::new(stdout).lines() {
                    let Ok(line) = line else { break };
                    let event = match serde_json::from_str::<TrialMessage>(&line) {
                        Ok(msg) => Event::Message(msg),
                        Err(_) => Event::Garbage(line),
                    };
                    if tx.send(event).is_err() {
                        break;
                    }
                }
            }
            let _ = tx.send(Event::Eof);
        });
        let stderr = child.stderr.take();
        let stderr_reader = thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut stderr) = stderr {
                let _ = stderr.read_to_end(&mut buf);
            }
            buf
        });

        let deadline = Instant::now() + self.timeout;
        let mut done = false;
        let mut timed_out = false;
        let mut garbage = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(Event::Message(msg)) => {
                    on_message(&msg);
                    match msg {
                        TrialMessage::Iteration(it) => record.iterations.push(it),
                        TrialMessage::Check(check) => record.checks.push(check),
                        TrialMessage::Skipped { reason } => {
                            record.status = Status::Skipped;
                            record.reason = Some(reason);
                        }
                        TrialMessage::Done { metrics } => {
                            record.metrics = metrics;
                            done = true;
                        }
                    }
                }
                Ok(Event::Garbage(line)) => garbage.push(line),
                Ok(Event::Eof) => break,
                Err(_) => {
                    timed_out = true;
                    break;
                }
            }
        }
        let exit = if timed_out {
            let _ = child.kill();
            child.wait().ok()
        } else {
            let left = deadline.saturating_duration_since(Instant::now()).max(Duration::from_secs(1));
            match wait_timeout::ChildExt::wait_timeout(&mut child, left) {
                Ok(Some(status)) => Some(status),
                _ => {
                    timed_out = true;
                    let _ = child.kill();
                    child.wait().ok()
                }
            }
        };
        let _ = reader.join();
        let stderr_bytes = stderr_reader.join().unwrap_or_default();
        let tail = tail_of(&stderr_bytes, &garbage);

        if timed_out {
            record.status = Status::Timeout;
            record.reason = Some(format!("killed after its {:.0} s time budget", self.timeout.as_secs_f64()));
            record.stderr_tail = tail;
            return record;
        }
        let exit_ok = exit.as_ref().is_some_and(|s| s.success());
        if !exit_ok || !done {
            let how = match exit {
                Some(status) => describe_exit(status),
                None => "its exit status could not be read".to_string(),
            };
            record.status = Status::Failed;
            record.reason = Some(if done {
                format!("the trial process {how}")
            } else {
                format!("the trial process {how} before finishing")
            });
            record.stderr_tail = tail;
            return record;
        }
        if record.status == Status::Ok {
            if let Some(check) = record.checks.iter().find(|c| !c.passed) {
                record.status = Status::Failed;
                record.reason = Some(format!("check `{}` failed: {}", check.name, check.detail));
                record.stderr_tail = tail;
            }
        }
        record
    }
}

fn failed(mut record: TrialRecord, reason: String) -> TrialRecord {
    record.status = Status::Failed;
    record.reason = Some(reason);
    record
}

fn describe_exit(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("was killed by signal {signal}");
        }
    }
    match status.code() {
        Some(code) => format!("exited with status {code}"),
        None => "ended without a status".to_string(),
    }
}

/// The last few lines of standard error (and of stray standard output), if any.
fn tail_of(stderr: &[u8], garbage: &[String]) -> Option<String> {
    let mut text = String::from_utf8_lossy(stderr).into_owned();
    if !garbage.is_empty() {
        text.push_str("\n[stray stdout]\n");
        text.push_str(&garbage.join("\n"));
    }
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let start = text.len().saturating_sub(STDERR_TAIL_BYTES);
    let start = (start..text.len()).find(|&i| text.is_char_boundary(i)).unwrap_or(text.len());
    Some(text[start..].to_string())
}
