//! When a limit has settled: the rule that triggers the capacity drop once every limit has stopped moving, and
//! the same rule read back from a run's limit history (settled before the drop, and how long after it).
//!
//! The rule: a limit has **settled** at time `t` when, over the `hold` before `t`, its largest value is at most
//! `band` times its smallest (`band` = 1.25 by default: an AIMD sawtooth of one 0.9 cut stays inside it; a limit
//! still ramping or falling does not).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// The settle rule and when the healthy phase ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DropRule {
    /// The healthy phase lasts at least this long.
    pub healthy_min: Duration,
    /// A limit has settled when it stayed within the band for this long.
    pub hold: Duration,
    /// The band: largest ≤ `band` × smallest over the hold.
    pub band: f64,
    /// The drop happens at this time at the latest, settled or not (the trial's `settled_before_drop` check then
    /// fails).
    pub healthy_max: Duration,
}

impl DropRule {
    /// Whether the drop is due at `elapsed` since the start, with `samples` the limit's readings (time since
    /// the start, limit) in time order, the latest last; `None` samples (no gate) count as settled.
    pub fn due(&self, elapsed: Duration, samples: &VecDeque<(Duration, usize)>) -> bool {
        if elapsed >= self.healthy_max {
            return true;
        }
        if elapsed < self.healthy_min.max(self.hold) {
            return false;
        }
        let from = elapsed.saturating_sub(self.hold);
        // The reading in force at `from` (the last at or before it) and every later one.
        let first = samples.iter().rposition(|(at, _)| *at <= from).unwrap_or(0);
        let window = samples.iter().skip(first).map(|&(_, limit)| limit);
        within_band(window, self.band)
    }
}

/// Whether the largest of `limits` is at most `band` times the smallest (true when empty).
pub fn within_band(limits: impl Iterator<Item = usize>, band: f64) -> bool {
    let (mut lo, mut hi) = (usize::MAX, 0usize);
    for limit in limits {
        lo = lo.min(limit);
        hi = hi.max(limit);
    }
    hi == 0 || hi as f64 <= band * lo as f64
}

/// The limit's readings a watcher keeps: one per poll, the oldest dropped once older than `keep`.
#[derive(Debug)]
pub struct Readings {
    started: Instant,
    keep: Duration,
    samples: VecDeque<(Duration, usize)>,
}

impl Readings {
    /// Readings from `started`, kept for `keep`.
    pub fn new(started: Instant, keep: Duration) -> Readings {
        Readings { started, keep, samples: VecDeque::new() }
    }

    /// Records `limit` now; returns the time since the start.
    pub fn push(&mut self, limit: usize) -> Duration {
        let now = self.started.elapsed();
        self.samples.push_back((now, limit));
        // Keep the reading in force at `now - keep`.
        while self.samples.len() > 1 && self.samples[1].0 + self.keep <= now {
            self.samples.pop_front();
        }
        now
    }

    /// The readings kept, oldest first.
    pub fn samples(&self) -> &VecDeque<(Duration, usize)> {
        &self.samples
    }
}

/// From a limit history (microseconds, limit; in time order, the first at or before `from`): whether the limit
/// stayed within `band` over `[to - hold, to]`.
pub fn settled_at(points: &[(u64, usize)], to: u64, hold: u64, band: f64) -> bool {
    let from = to.saturating_sub(hold);
    let first = points.partition_point(|(at, _)| *at <= from).saturating_sub(1);
    let last = points.partition_point(|(at, _)| *at <= to);
    within_band(points[first..last.max(first + 1).min(points.len())].iter().map(|&(_, l)| l), band)
}

/// From a limit history: the first time `t ≥ from` at which the limit entered a band it then held for `hold`
/// (within `end`), as microseconds after `from`; `None` if it never did.
pub fn settle_time(points: &[(u64, usize)], from: u64, end: u64, hold: u64, band: f64) -> Option<u64> {
    // Candidate starts: `from`, then every change after it.
    let starts = std::iter::once(from).chain(points.iter().map(|&(at, _)| at).filter(|&at| at > from));
    // A sliding window over the points in force during [t, t + hold], with monotonic deques for min and max.
    let mut lo: VecDeque<usize> = VecDeque::new();
    let mut hi: VecDeque<usize> = VecDeque::new();
    let mut next = points.partition_point(|(at, _)| *at <= from).saturating_sub(1);
    for t in starts {
        if t + hold > end {
            return None;
        }
        // Add every point in force up to t + hold.
        while next < points.len() && (points[next].0 <= t + hold) {
            let value = points[next].1;
            while lo.back().is_some_and(|&i| points[i].1 >= value) {
                lo.pop_back();
            }
            lo.push_back(next);
            while hi.back().is_some_and(|&i| points[i].1 <= value) {
                hi.pop_back();
            }
            hi.push_back(next);
            next += 1;
        }
        // Drop points no longer in force at t: those followed by another at or before t.
        let in_force = points.partition_point(|(at, _)| *at <= t).saturating_sub(1);
        while lo.front().is_some_and(|&i| i < in_force) {
            lo.pop_front();
        }
        while hi.front().is_some_and(|&i| i < in_force) {
            hi.pop_front();
        }
        if let (Some(&l), Some(&h)) = (lo.front(), hi.front()) {
            if points[h].1 as f64 <= band * points[l].1 as f64 {
                return Some(t - from);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule() -> DropRule {
        DropRule {
            healthy_min: Duration::from_millis(100),
            hold: Duration::from_millis(50),
            band: 1.25,
            healthy_max: Duration::from_millis(1_000),
        }
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn the_drop_waits_for_the_healthy_minimum_then_for_a_settled_hold() {
        let rule = rule();
        let flat: VecDeque<_> = [(ms(0), 500)].into_iter().collect();
        assert!(!rule.due(ms(99), &flat), "not before the healthy minimum");
        assert!(rule.due(ms(100), &flat));
        // Still climbing 10 ms before: 300 → 500 within the hold is outside the band.
        let climbing: VecDeque<_> = [(ms(0), 20), (ms(80), 300), (ms(140), 500)].into_iter().collect();
        assert!(!rule.due(ms(150), &climbing));
        assert!(!rule.due(ms(189), &climbing));
        assert!(rule.due(ms(190), &climbing), "500 held for 50 ms");
        // A sawtooth of one 0.9 cut stays inside the band.
        let saw: VecDeque<_> = [(ms(0), 500), (ms(120), 450), (ms(130), 480), (ms(140), 500)].into_iter().collect();
        assert!(rule.due(ms(150), &saw));
        assert!(rule.due(ms(1_000), &climbing), "the cap drops whatever the limit does");
    }

    #[test]
    fn a_history_is_settled_when_its_hold_is_in_the_band() {
        let points = [(0, 20), (80_000, 300), (140_000, 500)];
        assert!(!settled_at(&points, 150_000, 50_000, 1.25));
        assert!(settled_at(&points, 190_000, 50_000, 1.25));
        assert!(settled_at(&points, 60_000, 50_000, 1.25), "20 held since 0");
    }

    #[test]
    fn the_settle_time_is_when_the_last_band_began() {
        // Drop at 100 ms: the limit falls 500 → 300 → 120 → 100 → 110 → 105, then stays.
        let points = [(0, 500), (110_000, 300), (120_000, 120), (130_000, 100), (140_000, 110), (150_000, 105)];
        assert_eq!(settle_time(&points, 100_000, 1_000_000, 50_000, 1.25), Some(20_000));
        assert_eq!(settle_time(&points, 100_000, 160_000, 50_000, 1.25), None, "the run ended first");
        let flat = [(0, 500)];
        assert_eq!(settle_time(&flat, 100_000, 1_000_000, 50_000, 1.25), Some(0));
        let saw: Vec<(u64, usize)> =
            (0..100).map(|i| (100_000 + i * 1_000, if i % 2 == 0 { 20 } else { 200 })).collect();
        assert_eq!(settle_time(&saw, 100_000, 1_000_000, 50_000, 1.25), Some(99_000), "only after its last move");
    }
}
