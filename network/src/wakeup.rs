//! The wake-up probe: how long one of the client's threads takes to wake another on this machine, measured in the
//! trial process (pinned like the client) before any timed iteration, so a reader can tell the machine's cost of a
//! cross-thread wake-up from the cost of a programming model that wakes threads often.
//!
//! Two threads hand a turn back and forth with `std::thread::park`/`unpark` (futex waits, as a blocked socket read
//! or a condvar is); each round trip is two wake-ups. Measured twice: with the partner on the client's core (a
//! client thread waking another: a context switch on that core) and with the partner on the server's core (a
//! thread there waking a client thread, as a loopback reply does: a cross-core wake-up).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use measure::record::MetricValues;

/// Round trips the probe makes (after [`WARMUP`] more that are not recorded).
pub const ROUND_TRIPS: usize = 2_000;

/// Round trips made before recording.
pub const WARMUP: usize = 100;

/// What the probe measured: one wake-up (half a round trip) in microseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WakeUp {
    /// The median, both threads on the client's core.
    pub p50_us: f64,
    /// The 99th percentile, both threads on the client's core.
    pub p99_us: f64,
    /// The median with the partner on the server's core, if pinned apart.
    pub cross_p50_us: Option<f64>,
}

impl WakeUp {
    /// Both probes: the partner on the calling thread's cores, then on `other_core` (the server's) if given;
    /// `None` if the first could not run.
    pub fn measure(other_core: Option<usize>) -> Option<WakeUp> {
        let (p50_us, p99_us) = ping_pong(None)?;
        let cross_p50_us = other_core.and_then(|core| ping_pong(Some(core))).map(|(p50, _)| p50);
        Some(WakeUp { p50_us, p99_us, cross_p50_us })
    }

    /// `wakeup_p50_us`, `wakeup_p99_us` and, when measured, `wakeup_cross_core_p50_us`.
    pub fn metrics(&self) -> MetricValues {
        let mut m = MetricValues::new();
        m.insert("wakeup_p50_us".to_string(), self.p50_us);
        m.insert("wakeup_p99_us".to_string(), self.p99_us);
        if let Some(cross) = self.cross_p50_us {
            m.insert("wakeup_cross_core_p50_us".to_string(), cross);
        }
        m
    }
}

/// One ping-pong between the calling thread and a partner it starts (on `core` if given, else inheriting the
/// caller's pinning): the median and 99th percentile of half a round trip, in microseconds; `None` if the partner
/// could not start or stopped answering within a second.
fn ping_pong(core: Option<usize>) -> Option<(f64, f64)> {
    let turn = Arc::new(AtomicU64::new(0));
    let main = std::thread::current();
    let total = (ROUND_TRIPS + WARMUP) as u64;
    let partner = {
        let turn = Arc::clone(&turn);
        std::thread::Builder::new()
            .name("wakeup-probe".to_string())
            .spawn(move || {
                if let Some(core) = core {
                    let _ = crate::affinity::pin_current_thread(&[core]);
                }
                // Odd turns are the partner's: answer each by handing the next (even) turn back.
                for n in 0..total {
                    let mine = 2 * n + 1;
                    if !wait_turn(&turn, mine, Instant::now()) {
                        return;
                    }
                    turn.store(mine + 1, Ordering::Release);
                    main.unpark();
                }
            })
            .ok()?
    };
    let mut halves = Vec::with_capacity(ROUND_TRIPS);
    let mut ok = true;
    for n in 0..total {
        let started = Instant::now();
        turn.store(2 * n + 1, Ordering::Release);
        partner.thread().unpark();
        ok = wait_turn(&turn, 2 * n + 2, started);
        if !ok {
            break;
        }
        if n >= WARMUP as u64 {
            halves.push(started.elapsed().as_secs_f64() * 1e6 / 2.0);
        }
    }
    let _ = partner.join();
    if !ok || halves.is_empty() {
        return None;
    }
    halves.sort_by(f64::total_cmp);
    let at = |q: f64| halves[((halves.len() - 1) as f64 * q).round() as usize];
    Some((at(0.5), at(0.99)))
}

/// Wait (parked, 100 ms at a time) until `turn` is `n`; false once a second has passed `since` without it.
fn wait_turn(turn: &AtomicU64, n: u64, since: Instant) -> bool {
    while turn.load(Ordering::Acquire) != n {
        if since.elapsed() > Duration::from_secs(1) {
            return false;
        }
        std::thread::park_timeout(Duration::from_millis(100));
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wake_up_is_measured_and_ordered() {
        let other = crate::affinity::allowed_cores().last().copied();
        let wake = WakeUp::measure(other).expect("two threads can hand a turn back and forth");
        assert!(wake.p50_us > 0.0 && wake.p50_us <= wake.p99_us, "{wake:?}");
        assert!(wake.cross_p50_us.is_some_and(|c| c > 0.0), "{wake:?}");
        assert_eq!(wake.metrics().len(), 3);
    }
}
