//! The scheduling probe: a 1 ms tick, as a tokio task in the async contestants, as a thread in the blocking
//! ones and as a `may` coroutine in the coroutine ones, recording how late each tick runs. Blocking calls on a runtime's workers show as late ticks.
//!
//! The tokio timer has a resolution of 1 ms, so a tokio tick can run up to about 1 ms late on an idle runtime;
//! `std::thread::sleep` has no such rounding. Compare tokio contestants with each other on this figure.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use measure::latency::LatencyRecorder;

/// The probe's period.
pub const PERIOD: Duration = Duration::from_millis(1);

/// Tick on the current tokio runtime until `stop` is set, recording into `late` (made before the start line); how
/// late each tick ran, in microseconds.
pub async fn ticks_async(stop: Arc<AtomicBool>, mut late: LatencyRecorder) -> LatencyRecorder {
    while !stop.load(Ordering::Relaxed) {
        let due = Instant::now() + PERIOD;
        tokio::time::sleep_until(due.into()).await;
        late.record_us(lateness_us(due));
    }
    late
}

/// Tick as a `may` coroutine until `stop` is set (`may::coroutine::sleep`, whole milliseconds, on `may`'s
/// timer thread), recording into `late`; how late each tick ran, in microseconds. A carrier blocked by a
/// thread-blocking call shows here as it does for a tokio worker.
pub fn ticks_coroutine(stop: &AtomicBool, late: LatencyRecorder) -> LatencyRecorder {
    ticks_sleeping(stop, late, may::coroutine::sleep)
}

/// Tick on the calling thread until `stop` is set, recording into `late`; how late each tick ran, in microseconds.
pub fn ticks_thread(stop: &AtomicBool, late: LatencyRecorder) -> LatencyRecorder {
    ticks_sleeping(stop, late, std::thread::sleep)
}

/// Tick by `sleep`ing a period at a time until `stop` is set, recording how late each tick ran into `late`.
fn ticks_sleeping(stop: &AtomicBool, mut late: LatencyRecorder, sleep: impl Fn(Duration)) -> LatencyRecorder {
    while !stop.load(Ordering::Relaxed) {
        let due = Instant::now() + PERIOD;
        sleep(PERIOD);
        late.record_us(lateness_us(due));
    }
    late
}

fn lateness_us(due: Instant) -> u64 {
    u64::try_from(Instant::now().saturating_duration_since(due).as_micros()).unwrap_or(u64::MAX)
}
