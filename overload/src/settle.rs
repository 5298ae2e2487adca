//! When a limit has settled: the rule that triggers the capacity drop once the limit has stopped moving, and the
//! same rule read back from a run's limit history (settled before the drop, and how long after it the first
//! settled span began).
//!
//! The rule: a limit has **settled** at time `t` when, over the `hold` before `t`, (1) its time-weighted mean
//! over the second half is within `drift` (a fraction, default 10%) of its mean over the first half, and (2) its
//! value at `t` lies within the range it took over the first half. A limit still climbing or falling moves its
//! mean from one half to the next, and leaves the first half's range (a slow ramp, whose mean moves by less than
//! `drift`, still fails the second test); a limit that has reached its level, or the steady oscillation of its
//! algorithm (an AIMD sawtooth, Vegas stepping around its target), passes both.

use std::time::Duration;

use crate::clocks::duration_us;
use crate::limit::Gate;

/// The settle rule and when the healthy phase ends.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DropRule {
    /// The healthy phase lasts at least this long.
    pub healthy_min: Duration,
    /// A limit has settled when its mean over the second half of this span is within `drift` of its mean over
    /// the first half.
    pub hold: Duration,
    /// The largest change of the mean from one half of the hold to the next, as a fraction of the larger mean.
    pub drift: f64,
    /// The drop happens at this time at the latest, settled or not (the trial's `settled_before_drop` check then
    /// fails).
    pub healthy_max: Duration,
    /// The published experiment's rule instead (`drop-at-call`): a timed run's capacity drops when this call is
    /// issued, settled or not (`settled_before_drop` then says whether the limit had). `None` (the default):
    /// the settle rule above.
    pub at_call: Option<u64>,
}

impl DropRule {
    /// Whether the drop is due `elapsed` into the healthy phase, with `points` the limit's history
    /// (microseconds, limit; in time order, the first in force at `now_us - hold` or earlier) and `now_us` the
    /// history's clock now; `None` (no limit to settle) is due at once.
    pub fn due(&self, elapsed: Duration, history: Option<(&[(u64, usize)], u64)>) -> bool {
        let Some((points, now_us)) = history else { return true };
        if elapsed >= self.healthy_max {
            return true;
        }
        elapsed >= self.healthy_min.max(self.hold) && settled_at(points, now_us, duration_us(self.hold), self.drift)
    }
}

/// The limit history of `gate` (empty without one): the limit at the gate's start and at each change, in
/// microseconds since `from` on the gate's clock.
pub fn points(gate: Option<&Gate>, from: Duration) -> Vec<(u64, usize)> {
    let history = gate.map(Gate::limit_history).unwrap_or_default();
    history.into_iter().map(|(t, limit)| (duration_us(t.saturating_sub(from)), limit)).collect()
}

/// The limit in force at `t` in a history of `(time, limit)` changes in time order: the last change at or before
/// it, `None` before the first.
pub fn limit_at(points: &[(u64, usize)], t: u64) -> Option<usize> {
    points[..points.partition_point(|(at, _)| *at <= t)].last().map(|&(_, l)| l)
}

/// The time-weighted mean of the limit over `[from, to)` (`to` after `from`), `before` in force until the
/// history's first change.
pub fn limit_mean(points: &[(u64, usize)], from: u64, to: u64, before: usize) -> f64 {
    let (mut total, mut at, mut limit) = (0.0, from, limit_at(points, from).unwrap_or(before));
    for &(t, l) in points.iter().filter(|(t, _)| *t > from && *t < to) {
        total += (t - at) as f64 * limit as f64;
        (at, limit) = (t, l);
    }
    total += (to - at) as f64 * limit as f64;
    total / (to - from) as f64
}

/// The time-weighted mean of the limit over `[from, to)`, nothing in force before the history's first change
/// (the limit in force at `from` for an empty span).
fn mean(points: &[(u64, usize)], from: u64, to: u64) -> f64 {
    if to <= from {
        return limit_at(points, from).unwrap_or(0) as f64;
    }
    limit_mean(points, from, to, 0)
}

/// Whether the limit had settled at `to`: its mean over the second half of `[to - hold, to]` within `drift` of
/// its mean over the first half.
pub fn settled_at(points: &[(u64, usize)], to: u64, hold: u64, drift: f64) -> bool {
    let from = to.saturating_sub(hold);
    let mid = from + (to - from) / 2;
    let (a, b) = (mean(points, from, mid), mean(points, mid, to));
    let larger = a.max(b);
    let no_drift = larger == 0.0 || (a - b).abs() <= drift * larger;
    // The first half's range: the value in force at `from` and every change before `mid`.
    let first = points.partition_point(|(at, _)| *at <= from).saturating_sub(1);
    let before_mid = points.partition_point(|(at, _)| *at < mid).max(first + 1).min(points.len());
    let range = points[first..before_mid].iter().map(|&(_, l)| l);
    let (lo, hi) = range.fold((usize::MAX, 0), |(lo, hi), l| (lo.min(l), hi.max(l)));
    let last = points[..points.partition_point(|(at, _)| *at <= to)].last().map_or(0, |&(_, l)| l);
    no_drift && (points.is_empty() || (lo..=hi).contains(&last))
}

/// Step of the search for the settle time after the drop.
const STEP_US: u64 = 1_000;

/// From a limit history: how long after `from` the limit had settled again: the start of the first span of
/// `hold` (in steps of 1 ms, from `from` on, ending by `end`) over which [`settled_at`] holds, as microseconds
/// after `from`; `None` if no such span fits before `end`.
///
/// The span's *start*, not its end: the rule needs a whole `hold` of evidence, so the first moment it can say
/// "settled" is `hold` after the limit stopped moving. Read at the span's end, every limit that settles within
/// half a hold of the drop would read as `hold` (the committed run's 200 ms for most limiters) and none could
/// read less; read at its start, a limit that never moves reads 0 and one that falls in 10 ms reads about 10.
pub fn settle_time(points: &[(u64, usize)], from: u64, end: u64, hold: u64, drift: f64) -> Option<u64> {
    let mut start = from;
    while start.checked_add(hold)? <= end {
        if settled_at(points, start + hold, hold, drift) {
            return Some(start - from);
        }
        start += STEP_US;
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
            drift: 0.1,
            healthy_max: Duration::from_millis(1_000),
            at_call: None,
        }
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn the_drop_waits_for_the_healthy_minimum_then_for_a_settled_hold() {
        let rule = rule();
        let flat = [(0, 500)];
        assert!(!rule.due(ms(99), Some((&flat, 99_000))), "not before the healthy minimum");
        assert!(rule.due(ms(100), Some((&flat, 100_000))));
        // Climbing 20 → 500 until 140 ms: the halves' means differ until 500 has held most of the hold.
        let climbing: Vec<(u64, usize)> = (0..=48).map(|i| (i * 3_000, 20 + i as usize * 10)).collect();
        assert!(!rule.due(ms(150), Some((&climbing, 150_000))));
        assert!(rule.due(ms(200), Some((&climbing, 200_000))), "500 held for 50 ms");
        // A sawtooth around a level has settled: each half holds the same mix.
        let saw: Vec<(u64, usize)> = (0..200).map(|i| (i * 1_000, if i % 5 < 2 { 100 } else { 200 })).collect();
        assert!(rule.due(ms(150), Some((&saw, 150_000))));
        assert!(rule.due(ms(1_000), Some((&climbing, 100_000))), "the cap drops whatever the limit does");
        assert!(rule.due(ms(0), None), "no limit: at once");
    }

    #[test]
    fn a_healthy_minimum_shorter_than_the_hold_still_waits_one_whole_hold() {
        let rule = DropRule { healthy_min: ms(1), hold: ms(20), ..rule() };
        let flat = [(0, 40)];
        assert!(!rule.due(ms(19), Some((&flat, 19_000))), "a limit flat from the start has not held for a hold yet");
        assert!(rule.due(ms(20), Some((&flat, 20_000))));
    }

    #[test]
    fn a_slow_ramp_has_not_settled_though_its_mean_barely_moves() {
        // +1 every 9 ms from 200: about 2% per half of a 100 ms hold, but always beyond the first half's range.
        let ramp: Vec<(u64, usize)> = (0..100).map(|i| (i * 9_000, 200 + i as usize)).collect();
        assert!(!settled_at(&ramp, 600_000, 100_000, 0.1));
        let mut flat = ramp.clone();
        flat.push((900_000, 300));
        assert!(settled_at(&flat, 1_200_000, 100_000, 0.1));
    }

    #[test]
    fn means_are_weighted_by_time() {
        let points = [(0, 100), (50, 300)];
        assert_eq!(mean(&points, 0, 100), 200.0);
        assert_eq!(mean(&points, 50, 100), 300.0);
        assert_eq!(mean(&points, 25, 75), 200.0);
    }

    #[test]
    fn before_the_first_change_the_given_limit_is_in_force() {
        let points = [(50, 100), (100, 300)];
        assert_eq!((limit_at(&points, 49), limit_at(&points, 100)), (None, Some(300)));
        assert_eq!(limit_mean(&points, 0, 100, 0), 50.0);
        assert_eq!(limit_mean(&points, 0, 100, 100), 100.0);
        assert_eq!(limit_mean(&points, 50, 150, 0), 200.0);
    }

    #[test]
    fn the_settle_time_is_when_the_first_settled_hold_after_the_drop_begins() {
        // Drop at 100 ms: the limit falls from 500 to 100 over 40 ms, then stays.
        let mut points = vec![(0, 500)];
        points.extend((0..=40).map(|i| (100_000 + i * 1_000, 500 - i as usize * 10)));
        let settle = settle_time(&points, 100_000, 1_000_000, 50_000, 0.1).expect("settles");
        assert!(settle > 20_000 && settle <= 40_000, "near the end of the fall, not a hold later: {settle}");
        assert!(settled_at(&points, 100_000 + settle + 50_000, 50_000, 0.1));
        assert!(!settled_at(&points, 100_000 + settle + 49_000, 50_000, 0.1));
        assert_eq!(settle_time(&points, 100_000, 140_000, 50_000, 0.1), None, "the run ended first");
    }

    #[test]
    fn a_limit_that_settles_at_once_reads_less_than_the_hold() {
        // The old reading (the end of the first settled hold) could never go below the hold: a limit that fell
        // in 5 ms read as 200 ms, and one that never moved did too.
        let hold = 200_000;
        let fall: Vec<(u64, usize)> = vec![(0, 500), (100_000, 300), (102_000, 150), (105_000, 120)];
        let settle = settle_time(&fall, 100_000, 2_000_000, hold, 0.1).expect("settles");
        assert!(settle < 20_000, "fell in 5 ms, settled within a few ms of it: {settle}");
        let flat = [(0, 500)];
        assert_eq!(settle_time(&flat, 100_000, 2_000_000, hold, 0.1), Some(0), "never moved: settled at the drop");
        assert_eq!(settle_time(&flat, 100_000, 250_000, hold, 0.1), None, "no whole hold after the drop");
    }
}
