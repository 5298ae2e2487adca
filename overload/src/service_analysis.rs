//! A service run's figures, computed once its clocks have stopped from the schedule, the book and the limit's
//! history: per phase (before and after the drop) the calls answered within the deadline per second (goodput),
//! the callers' latency from each arrival's scheduled start, the calls shed at the gate and those answered too
//! late; and per window of [`WINDOW`](crate::service_config::WINDOW) the same over time.
//!
//! Every call belongs to the phase, and the window, its scheduled start falls in: a phase's goodput is its
//! arrivals answered in time divided by the phase's length, so it can never read above the rate the calls
//! arrived at (counting answers by the moment they came would let a queue that drains faster than it filled
//! read above it).

use std::collections::BTreeMap;

use measure::latency::LatencyRecorder;
use measure::record::{Mark, MetricValues, Series};

use crate::book::{Entry, Fate};
use crate::settle;

/// The deciding metric of the goodput question: calls answered within the deadline per second after the drop.
pub const GOODPUT_AFTER: &str = "after_drop.goodput_per_sec";
/// The deciding metric of the tail question: the callers' p99 from the scheduled start after the drop.
pub const CALLER_P99_AFTER: &str = "after_drop.caller_latency_p99_us";

/// What one run's analysis needs besides the book.
#[derive(Debug, Clone)]
pub struct Frame<'a> {
    /// Scheduled start of every arrival, µs from the run's start.
    pub schedule: &'a [u64],
    /// When the capacity dropped, µs from the run's start (where the charts mark it).
    pub drop_us: u64,
    /// The healthy phase's scheduled end, µs from the run's start: an arrival scheduled before it belongs to the
    /// before-drop phase, any other to the after-drop one (the load generator drops the capacity before it hands
    /// over the first arrival due at or after it), so a phase's arrivals span exactly its length.
    pub healthy_us: u64,
    /// When the after-drop phase ends, µs from the run's start.
    pub end_us: u64,
    /// The deadline, µs from the scheduled start.
    pub deadline_us: u64,
    /// The arrival rate, per second.
    pub rate: f64,
    /// The dependency's ceiling before and after the drop, calls per second.
    pub ceilings: (f64, f64),
    /// The limit's history, `(µs from the run's start, limit)`, in time order (empty: no gate).
    pub limits: &'a [(u64, usize)],
    /// Width of one window of the series, µs.
    pub window_us: u64,
    /// The drop's label on the charts.
    pub mark: String,
}

/// Metrics and series of one run.
#[derive(Debug, Clone, Default)]
pub struct ServiceAnalysis {
    /// Every figure, named as the reports read it.
    pub metrics: MetricValues,
    /// Every over-time series.
    pub series: BTreeMap<String, Series>,
    /// Arrivals never recorded.
    pub missing: u64,
    /// Arrivals answered with a wrong value.
    pub wrong: u64,
    /// Arrivals the dependency failed.
    pub failed: u64,
}

/// Counts of one phase's arrivals, by scheduled start.
#[derive(Debug, Default)]
struct Tally {
    arrivals: u64,
    shed: u64,
    timed_out: u64,
    failed: u64,
    in_time: u64,
    latency: LatencyRecorder,
}

/// The analysis of one run's `entries` (in arrival order) within `frame`.
pub fn analyse(entries: &[Option<Entry>], frame: &Frame<'_>) -> ServiceAnalysis {
    let mut out = ServiceAnalysis::default();
    let mut phases = [Tally::default(), Tally::default()];
    let slots = usize::try_from(frame.end_us.div_ceil(frame.window_us.max(1))).unwrap_or(0);
    let mut per_window = PerWindow::new(slots);
    for (index, entry) in entries.iter().enumerate() {
        let scheduled = frame.schedule.get(index).copied().unwrap_or(0);
        let phase = usize::from(scheduled >= frame.healthy_us);
        let tally = &mut phases[phase];
        tally.arrivals += 1;
        let Some(entry) = entry else {
            out.missing += 1;
            continue;
        };
        let waited = entry.seen_us.saturating_sub(scheduled);
        let slot = usize::try_from(scheduled / frame.window_us.max(1)).unwrap_or(usize::MAX);
        match entry.fate {
            Fate::Shed => {
                tally.shed += 1;
                per_window.bump(Kind::Shed, slot);
            }
            Fate::Failed => {
                tally.failed += 1;
                out.failed += 1;
            }
            Fate::Wrong => out.wrong += 1,
            Fate::Answered => {
                tally.latency.record_us(waited);
                per_window.latency(slot, waited);
                if waited > frame.deadline_us {
                    tally.timed_out += 1;
                    per_window.bump(Kind::TimedOut, slot);
                } else {
                    tally.in_time += 1;
                    per_window.bump(Kind::Goodput, slot);
                }
            }
        }
    }
    let durations = [frame.healthy_us, frame.end_us.saturating_sub(frame.healthy_us)];
    let ceilings = [frame.ceilings.0, frame.ceilings.1];
    for (p, name) in ["before_drop", "after_drop"].iter().enumerate() {
        let tally = &phases[p];
        let secs = durations[p] as f64 / 1e6;
        let m = &mut out.metrics;
        m.insert(format!("{name}.arrivals"), tally.arrivals as f64);
        m.insert(format!("{name}.shed"), tally.shed as f64);
        m.insert(format!("{name}.timed_out"), tally.timed_out as f64);
        m.insert(format!("{name}.failed"), tally.failed as f64);
        m.insert(format!("{name}.in_time"), tally.in_time as f64);
        if secs > 0.0 {
            m.insert(format!("{name}.offered_per_sec"), tally.arrivals as f64 / secs);
            m.insert(format!("{name}.shed_per_sec"), tally.shed as f64 / secs);
            m.insert(format!("{name}.timed_out_per_sec"), tally.timed_out as f64 / secs);
            let per_sec = tally.in_time as f64 / secs;
            m.insert(format!("{name}.goodput_per_sec"), per_sec);
            let servable = frame.rate.min(ceilings[p]);
            if servable > 0.0 {
                m.insert(format!("{name}.goodput_share"), per_sec / servable);
            }
        }
        if tally.arrivals > 0 {
            m.insert(format!("{name}.shed_share"), tally.shed as f64 / tally.arrivals as f64);
            m.insert(format!("{name}.timed_out_share"), tally.timed_out as f64 / tally.arrivals as f64);
        }
        m.extend(tally.latency.metrics(&format!("{name}.caller_")));
        let span = [(0, frame.drop_us), (frame.drop_us, frame.end_us)][p];
        if let Some(mean) = limit_mean(frame.limits, span.0, span.1) {
            m.insert(format!("{name}.limit_mean"), mean);
        }
    }
    if !frame.limits.is_empty() {
        out.metrics.insert("limit_at_drop".to_string(), limit_at(frame.limits, frame.drop_us) as f64);
        out.metrics.insert("limit_at_end".to_string(), limit_at(frame.limits, frame.end_us) as f64);
    }
    out.metrics.insert("arrivals".to_string(), entries.len() as f64);
    out.series = per_window.series(frame);
    out
}

/// The limit in force at `t`: the last change at or before it (the first before it, 0 without a history).
fn limit_at(points: &[(u64, usize)], t: u64) -> usize {
    settle::limit_at(points, t).or(points.first().map(|p| p.1)).unwrap_or(0)
}

/// The limit's mean over `[from, to)`, weighted by time (the first value before the first change); `None`
/// without a history or an empty span.
fn limit_mean(points: &[(u64, usize)], from: u64, to: u64) -> Option<f64> {
    let first = points.first().filter(|_| to > from)?;
    Some(settle::limit_mean(points, from, to, first.1))
}

/// Which per-window count (its index in [`PerWindow::counts`]).
#[derive(Debug, Clone, Copy)]
enum Kind {
    Goodput,
    TimedOut,
    Shed,
}

/// Per-window counts and latencies.
#[derive(Debug)]
struct PerWindow {
    /// Goodput, timed out and shed per window, indexed by [`Kind`].
    counts: [Vec<u64>; 3],
    latency: Vec<LatencyRecorder>,
}

impl PerWindow {
    fn new(slots: usize) -> PerWindow {
        PerWindow {
            counts: std::array::from_fn(|_| vec![0; slots]),
            latency: (0..slots).map(|_| LatencyRecorder::new()).collect(),
        }
    }

    fn bump(&mut self, kind: Kind, slot: usize) {
        if let Some(c) = self.counts[kind as usize].get_mut(slot) {
            *c += 1;
        }
    }

    fn latency(&mut self, slot: usize, us: u64) {
        if let Some(r) = self.latency.get_mut(slot) {
            r.record_us(us);
        }
    }

    fn series(&self, frame: &Frame<'_>) -> BTreeMap<String, Series> {
        let period_ms = frame.window_us as f64 / 1e3;
        let per_sec = 1e6 / frame.window_us.max(1) as f64;
        let marks = vec![Mark { at_ms: frame.drop_us as f64 / 1e3, label: frame.mark.clone() }];
        let rate = |counts: &[u64]| counts.iter().map(|&c| c as f64 * per_sec).collect::<Vec<f64>>();
        let quantile = |q: &str| {
            self.latency
                .iter()
                .map(|r| r.metrics("").get(&format!("latency_{q}_us")).copied().unwrap_or(0.0))
                .collect::<Vec<f64>>()
        };
        let mut named = vec![
            ("goodput", rate(&self.counts[Kind::Goodput as usize])),
            ("timed_out", rate(&self.counts[Kind::TimedOut as usize])),
            ("shed", rate(&self.counts[Kind::Shed as usize])),
            ("caller_p50_us", quantile("p50")),
            ("caller_p99_us", quantile("p99")),
        ];
        if !frame.limits.is_empty() {
            let slots = self.latency.len() as u64;
            let w = frame.window_us;
            let limits = (0..slots).map(|i| limit_mean(frame.limits, i * w, (i + 1) * w).unwrap_or(0.0)).collect();
            named.push(("limit", limits));
        }
        named
            .into_iter()
            .map(|(name, values)| (name.to_string(), Series { period_ms, values, marks: marks.clone() }))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame<'a>(schedule: &'a [u64], limits: &'a [(u64, usize)]) -> Frame<'a> {
        Frame {
            schedule,
            drop_us: 1_000,
            healthy_us: 1_000,
            end_us: 2_000,
            deadline_us: 300,
            rate: 4_000.0,
            ceilings: (100_000.0, 2_000.0),
            limits,
            window_us: 500,
            mark: "drop".to_string(),
        }
    }

    #[test]
    fn each_phase_counts_its_arrivals_and_their_goodput_by_scheduled_start() {
        let schedule = [0, 250, 500, 750, 1_000, 1_250, 1_500, 1_750];
        let answered = |seen_us| Some(Entry { fate: Fate::Answered, seen_us });
        let entries = [
            answered(200),                                  // in time
            answered(400),                                  // in time
            Some(Entry { fate: Fate::Shed, seen_us: 500 }), // shed
            answered(1_200),                                // 450 µs: timed out, in the phase it arrived in
            answered(1_050),                                // in time
            answered(1_400),                                // in time
            Some(Entry { fate: Fate::Failed, seen_us: 1_600 }),
            None, // never recorded
        ];
        let limits = [(0, 10), (1_000, 4)];
        let a = analyse(&entries, &frame(&schedule, &limits));
        let m = |k: &str| a.metrics.get(k).copied().unwrap_or(f64::NAN);
        assert_eq!((a.missing, a.failed, a.wrong), (1, 1, 0));
        assert_eq!(m("before_drop.arrivals"), 4.0);
        assert_eq!(m("before_drop.shed"), 1.0);
        assert_eq!(m("before_drop.timed_out"), 1.0);
        // Two of the phase's four arrivals answered in time over its 1,000 µs.
        assert!((m("before_drop.goodput_per_sec") - 2_000.0).abs() < 1e-6);
        assert!((m("before_drop.offered_per_sec") - 4_000.0).abs() < 1e-6);
        assert!((m("after_drop.goodput_per_sec") - 2_000.0).abs() < 1e-6);
        // What could be served after the drop is the ceiling (2,000/s), below the rate (4,000/s).
        assert!((m("after_drop.goodput_share") - 1.0).abs() < 1e-9);
        assert_eq!(m("after_drop.limit_mean"), 4.0);
        assert_eq!(m("before_drop.limit_mean"), 10.0);
        assert_eq!(m("limit_at_drop"), 4.0);
        // Each window counts the calls scheduled in it, whenever they were answered.
        assert_eq!(a.series["goodput"].values, vec![4_000.0, 0.0, 4_000.0, 0.0]);
        assert_eq!(a.series["timed_out"].values, vec![0.0, 2_000.0, 0.0, 0.0]);
        assert_eq!(a.series["shed"].values, vec![0.0, 2_000.0, 0.0, 0.0]);
        // The limit's mean over each window: 10 until the drop at 1,000 µs, 4 after.
        assert_eq!(a.series["limit"].values, vec![10.0, 10.0, 4.0, 4.0]);
    }

    #[test]
    fn goodput_never_reads_above_the_rate_the_calls_arrived_at() {
        // After the drop the first answers wait in a queue and the later ones do not, so the answers bunch up
        // late in the phase: counted by the moment of the answer from one service time in, four answers would
        // fall in 900 µs (4,444/s, above the 4,000/s they arrived at).
        let schedule = [0, 1_000, 1_250, 1_500, 1_750];
        let answered = |seen_us| Some(Entry { fate: Fate::Answered, seen_us });
        let entries = [answered(100), answered(1_290), answered(1_295), answered(1_600), answered(1_760)];
        let a = analyse(&entries, &frame(&schedule, &[]));
        let m = |k: &str| a.metrics.get(k).copied().unwrap_or(f64::NAN);
        assert!((m("after_drop.offered_per_sec") - 4_000.0).abs() < 1e-6);
        assert!((m("after_drop.goodput_per_sec") - 4_000.0).abs() < 1e-6);
        assert!(a.series["goodput"].values.iter().all(|&g| g <= 4_000.0), "{:?}", a.series["goodput"].values);
    }

    #[test]
    fn the_limit_mean_weights_each_value_by_how_long_it_held() {
        let points = [(0, 10), (100, 20), (300, 40)];
        assert_eq!(limit_mean(&points, 0, 400), Some((100.0 * 10.0 + 200.0 * 20.0 + 100.0 * 40.0) / 400.0));
        assert_eq!(limit_mean(&points, 150, 250), Some(20.0));
        assert_eq!(limit_mean(&[], 0, 10), None);
    }
}
