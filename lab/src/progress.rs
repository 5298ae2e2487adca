//! Progress on standard error: a bar with the contestant, fork, iteration, elapsed time and an estimate of
//! what remains when standard error is a terminal, above which each finished trial leaves a line; that line
//! alone otherwise. A trial's line gives its headline figures, its CPU per item or call and its maximum of
//! outstanding work beside the bound its check stated.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use measure::probe::OutstandingFigures;
use measure::record::{TrialMessage, TrialRecord};
use measure::stats;
use measure::units::count;
use render::format::number;

use crate::plan::{self, PlannedTrial};
use crate::table;
use crate::term;

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
    headline: String,
    cpu: Option<String>,
}

impl Progress {
    /// Progress of `total` trials of `scenario`, whose lines show metric `headline` and CPU metric `cpu` (when
    /// `None`, the first CPU-per-unit metric a trial measured).
    pub(crate) fn new(scenario: &str, total: usize, headline: &str, cpu: Option<String>) -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(total as u64);
            let style = ProgressStyle::with_template(
                "{prefix} [{elapsed_precise}] {bar:30} {pos}/{len} trials, ~{eta} left  {wide_msg}",
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
            headline: headline.to_string(),
            cpu,
        }
    }

    /// A trial is starting.
    pub(crate) fn start(&mut self, trial: &PlannedTrial) {
        let r = &trial.request;
        let phase = r.phase.as_ref().map(|p| format!(" {p}")).unwrap_or_default();
        self.current = format!("{}{phase} {}", r.contestant, plan::fork_label(r.fork));
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
                bar.println(fit(&self.line(record), term::stderr_width()));
            }
            None => {
                let line = format!(
                    "[{}/{} {:.0}s] {}",
                    self.done,
                    self.total,
                    self.started.elapsed().as_secs_f64(),
                    self.line(record)
                );
                eprintln!("{}", fit(&line, term::stderr_width()));
            }
        }
    }

    /// The run is over.
    pub(crate) fn close(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// `line` cut to the terminal's width (ending in `…`), so that it never wraps into the bar; whole when standard
/// error is not a terminal and `COLUMNS` is not set.
fn fit(line: &str, width: Option<usize>) -> String {
    match width {
        Some(width) => term::truncate(line, width),
        None => line.to_string(),
    }
}

impl Progress {
    /// The finished trial's line: its status, then (when it passed) the headline metric of each measured
    /// iteration, the median CPU per item or call, and the maximum outstanding beside its bound.
    fn line(&self, record: &TrialRecord) -> String {
        let (scenario, current) = (&self.scenario, &self.current);
        let status = record.status.as_str();
        if let Some(reason) = &record.reason {
            return format!("{scenario} {current}: {status}: {reason}");
        }
        let measured = |metric: &str| -> Vec<f64> {
            record.iterations.iter().filter(|i| !i.warmup).filter_map(|i| i.metrics.get(metric).copied()).collect()
        };
        let values = measured(&self.headline);
        let mut parts = vec![status.to_string()];
        if !values.is_empty() {
            let values: Vec<String> = values.iter().map(|v| number(*v)).collect();
            parts.push(format!("{} {}", self.headline, values.join(" ")));
        }
        let cpu_metric = self
            .cpu
            .clone()
            .or_else(|| record.iterations.iter().flat_map(|i| i.metrics.keys()).find(|m| table::is_cpu(m)).cloned());
        if let Some(metric) = cpu_metric {
            if let Some(median) = stats::median(&measured(&metric)) {
                parts.push(format!("CPU {} {}", number(median), table::per_unit(&metric)));
            }
        }
        // The measured iterations' maximum, else the one the bound's check measured.
        let bound = record.checks.iter().find_map(OutstandingFigures::of);
        let max = measured("max_outstanding").into_iter().reduce(f64::max);
        if let Some(max) = max.or(bound.as_ref().map(|f| f.measured_max as f64)) {
            let bound = bound.map(|f| format!(" (bound {})", count(f.bound as f64))).unwrap_or_default();
            parts.push(format!("max outstanding {}{bound}", count(max)));
        }
        format!("{scenario} {current}: {}", parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_progress_line_never_runs_past_the_width() {
        let line =
            "chain blocking-crossbeam-fused-batched work_64 fork 3: ok, ms_per_million 12.3 12.4 12.5, CPU 1.2 s";
        assert!(term::columns(&fit(line, Some(40))) <= 40);
        assert!(fit(line, Some(40)).ends_with('…'));
        assert_eq!(fit(line, None), line);
    }
}
