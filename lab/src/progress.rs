//! Progress on standard error: a bar with the contestant, fork, iteration, elapsed time and an estimate of
//! what remains when standard error is a terminal; one plain line per finished trial otherwise.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use measure::record::{Status, TrialMessage, TrialRecord};

use crate::plan::{self, PlannedTrial};

/// Reports a scenario run's progress.
#[derive(Debug)]
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
    scenario: String,
    total: usize,
    done: usize,
    started: Instant,
    current: String,
    iterations: u32,
    seen: u32,
}

impl Progress {
    /// Progress of `total` trials of `scenario`.
    pub(crate) fn new(scenario: &str, total: usize) -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(total as u64);
            let style = ProgressStyle::with_template(
                "{prefix} [{elapsed_precise}] {bar:30} {pos}/{len} trials, ~{eta} left  {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            bar.set_prefix(scenario.to_string());
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Progress {
            bar,
            scenario: scenario.to_string(),
            total,
            done: 0,
            started: Instant::now(),
            current: String::new(),
            iterations: 0,
            seen: 0,
        }
    }

    /// A trial is starting.
    pub(crate) fn start(&mut self, trial: &PlannedTrial) {
        let r = &trial.request;
        let fork = plan::fork_label(r.fork);
        self.current = match &r.phase {
            Some(phase) => format!("{} {phase} {fork}", r.contestant),
            None => format!("{} {fork}", r.contestant),
        };
        self.iterations = r.warmup + r.iterations;
        self.seen = 0;
        self.show();
    }

    /// A message arrived from the running trial.
    pub(crate) fn message(&mut self, msg: &TrialMessage) {
        if let TrialMessage::Iteration(_) = msg {
            self.seen += 1;
            self.show();
        }
    }

    fn show(&self) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!("{} iteration {}/{}", self.current, self.seen, self.iterations));
        }
    }

    /// A trial ended.
    pub(crate) fn finish(&mut self, record: &TrialRecord) {
        self.done += 1;
        match &self.bar {
            Some(bar) => {
                bar.inc(1);
                if record.status != Status::Ok {
                    bar.println(line(&self.scenario, &self.current, record));
                }
            }
            None => eprintln!(
                "[{}/{} {:.0}s] {}",
                self.done,
                self.total,
                self.started.elapsed().as_secs_f64(),
                line(&self.scenario, &self.current, record)
            ),
        }
    }

    /// The run is over.
    pub(crate) fn close(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

fn line(scenario: &str, current: &str, record: &TrialRecord) -> String {
    let headline = record
        .iterations
        .iter()
        .filter(|i| !i.warmup)
        .filter_map(|i| i.metrics.get("wall_ms"))
        .map(|ms| format!("{ms:.1}"))
        .collect::<Vec<_>>()
        .join(" ");
    let status = record.status.as_str();
    match &record.reason {
        Some(reason) => format!("{scenario} {current}: {status}: {reason}"),
        None => format!("{scenario} {current}: {status}, wall ms {headline}"),
    }
}
