//! The round-trip probe: what one TCP exchange costs with nothing else in flight, and what the server's timer
//! alone costs, measured in the trial process before any timed iteration, so the report can say what bounds the
//! batches per second.
//!
//! A batch of the tcp scenario is ⌈exchanges ÷ connections⌉ rounds of one exchange per connection; the
//! connections run side by side, so a round can take no less than one exchange alone. Two readings:
//! - *one exchange alone*: serial exchanges on one connection of its own to the session's server, each timed
//!   from writing the request to reading the reply (the server's timer, the loopback both ways, both wake-ups);
//! - *the server's timer*: `tokio::time::sleep` of the server's delay on a current-thread tokio runtime, the
//!   runtime and call the server makes (`network/src/server.rs`), timed from the call to the wake-up. Tokio's
//!   timer counts in whole milliseconds and rounds a deadline up to the next tick, so a 1 ms sleep lasts more
//!   than 1 ms.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use measure::record::MetricValues;

use crate::tcp_exchange::{connect_std, exchange_std};

/// Readings the probe takes of each (after [`WARMUP`] more that are not recorded).
pub const READINGS: usize = 40;

/// Readings taken before recording.
pub const WARMUP: usize = 5;

/// Sequence numbers of the probe's exchanges start here, far above any run's, so no reply is mistaken for one.
const FIRST_SEQ: u64 = 1 << 60;

/// What the probe measured, in microseconds (medians of [`READINGS`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RoundTrip {
    /// One exchange alone on its own connection: request written to reply read.
    pub solo_exchange_p50_us: f64,
    /// `tokio::time::sleep` of the server's delay on a current-thread runtime: call to wake-up.
    pub timer_p50_us: f64,
}

impl RoundTrip {
    /// Both readings against the server at `addr` whose timer is `delay_us`; `None` if either could not be taken.
    pub fn measure(addr: SocketAddr, delay_us: u64) -> Option<RoundTrip> {
        Some(RoundTrip { solo_exchange_p50_us: solo_exchange(addr)?, timer_p50_us: timer(delay_us)? })
    }

    /// The readings as metrics: `solo_exchange_p50_us`, `timer_p50_us`.
    pub fn metrics(&self) -> MetricValues {
        MetricValues::from([
            ("solo_exchange_p50_us".to_string(), self.solo_exchange_p50_us),
            ("timer_p50_us".to_string(), self.timer_p50_us),
        ])
    }

    /// The batches per second one exchange alone allows when a batch is `rounds` rounds: `1 / (rounds × one
    /// exchange alone)`.
    pub fn batches_per_sec_bound(&self, rounds: f64) -> f64 {
        1e6 / (rounds * self.solo_exchange_p50_us.max(f64::MIN_POSITIVE))
    }
}

/// The median of `readings` microseconds (sorted in place); `None` when empty.
fn median(readings: &mut [f64]) -> Option<f64> {
    readings.sort_by(f64::total_cmp);
    readings.get(readings.len() / 2).copied()
}

/// The median of serial exchanges on one connection of its own to `addr`, in microseconds.
fn solo_exchange(addr: SocketAddr) -> Option<f64> {
    let stream = connect_std(addr).ok()?;
    let mut readings = Vec::with_capacity(READINGS);
    for i in 0..(WARMUP + READINGS) {
        let start = Instant::now();
        exchange_std(&stream, addr, FIRST_SEQ + i as u64, 0).ok()?;
        if i >= WARMUP {
            readings.push(start.elapsed().as_secs_f64() * 1e6);
        }
    }
    median(&mut readings)
}

/// The median of `tokio::time::sleep(delay_us)` on a current-thread runtime, in microseconds.
fn timer(delay_us: u64) -> Option<f64> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().ok()?;
    let delay = Duration::from_micros(delay_us);
    let mut readings = runtime.block_on(async {
        let mut readings = Vec::with_capacity(READINGS);
        for i in 0..(WARMUP + READINGS) {
            let start = Instant::now();
            tokio::time::sleep(delay).await;
            if i >= WARMUP {
                readings.push(start.elapsed().as_secs_f64() * 1e6);
            }
        }
        readings
    });
    median(&mut readings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_is_one_exchange_alone_per_round() {
        let probe = RoundTrip { solo_exchange_p50_us: 2_500.0, timer_p50_us: 2_000.0 };
        assert!((probe.batches_per_sec_bound(4.0) - 100.0).abs() < 1e-9);
        assert_eq!(probe.metrics().len(), 2);
    }

    #[test]
    fn a_timer_sleeps_at_least_its_delay() {
        let reading = timer(1_000).expect("a current-thread runtime");
        assert!(reading >= 1_000.0, "tokio never wakes a sleep early: {reading} µs");
    }

    #[test]
    fn the_median_is_the_middle_reading() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&mut []), None);
    }
}
