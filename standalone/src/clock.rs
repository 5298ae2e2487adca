//! Wall and process CPU around one iteration: [`Start::now`] before the work, [`Start::stop`] after it.
//!
//! The wall clock is `Instant`; CPU is `CLOCK_PROCESS_CPUTIME_ID`, every thread of the process. The kernel books
//! a thread's time when it is switched out and at ticks, so a thread still on its way to park on another core (a
//! runtime's worker) can be counted as of its last booking when the clock is read; after the wall clock has stopped,
//! [`Start::stop`] therefore waits [`SETTLE`] before reading CPU and takes out what the calling thread itself used
//! meanwhile, as the lab does for its contestants (its `measure::cpu::SETTLE_WAIT`). The wait is outside the
//! wall time; it only lets `cpu_ns` over `wall_ns` (cores used) compare like with like.

use std::time::{Duration, Instant};

/// How long CPU accounting is left to settle before it is read: 5 ms, the lab's `measure::cpu::SETTLE_WAIT`.
pub const SETTLE: Duration = Duration::from_millis(5);

/// What one iteration cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    /// Wall-clock time, in nanoseconds.
    pub wall_ns: u64,
    /// CPU time of every thread of the process over that time, in nanoseconds.
    pub cpu_ns: u64,
}

/// The clocks' readings when an iteration started.
#[derive(Debug, Clone, Copy)]
pub struct Start {
    cpu_ns: u64,
    wall: Instant,
}

impl Start {
    /// Read the process's CPU, then the wall clock.
    pub fn now() -> Start {
        let cpu_ns = cpu_ns(libc::CLOCK_PROCESS_CPUTIME_ID);
        Start { cpu_ns, wall: Instant::now() }
    }

    /// Stop the wall clock, let CPU accounting settle, and read the process's CPU less what this thread used while
    /// it waited.
    pub fn stop(self) -> Sample {
        let wall = self.wall.elapsed();
        let waiting = cpu_ns(libc::CLOCK_THREAD_CPUTIME_ID);
        std::thread::sleep(SETTLE);
        let waited = cpu_ns(libc::CLOCK_THREAD_CPUTIME_ID).saturating_sub(waiting);
        let cpu = cpu_ns(libc::CLOCK_PROCESS_CPUTIME_ID).saturating_sub(self.cpu_ns).saturating_sub(waited);
        Sample { wall_ns: u64::try_from(wall.as_nanos()).unwrap_or(u64::MAX), cpu_ns: cpu }
    }
}

/// The CPU clock `clock` in nanoseconds (0 where it cannot be read, which Linux never does for these two).
fn cpu_ns(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime(2) writes one timespec through a pointer to a live, writable one; nothing else.
    let status = unsafe { libc::clock_gettime(clock, &mut ts) };
    if status != 0 {
        return 0;
    }
    let secs = u64::try_from(ts.tv_sec).unwrap_or(0);
    let nanos = u64::try_from(ts.tv_nsec).unwrap_or(0);
    secs.saturating_mul(1_000_000_000).saturating_add(nanos)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_iteration_reads_its_wall_time_and_some_cpu() {
        let start = Start::now();
        let spin = Instant::now();
        let mut x = 0u64;
        while spin.elapsed() < Duration::from_millis(10) {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let sample = start.stop();
        assert!(sample.wall_ns >= 10_000_000, "{sample:?}");
        assert!(sample.cpu_ns > 0, "{sample:?}");
    }
}
