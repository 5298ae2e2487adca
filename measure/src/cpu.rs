//! CPU time and context switches from `getrusage`, for the whole process or the calling thread, and the
//! settling step that lets tick-based accounting book other threads' time before it is read.
//!
//! # The settling trap
//!
//! The kernel books a thread's CPU time (`sum_exec_runtime`) when it is switched out and at scheduler ticks;
//! when the process-wide clock is read, only the *calling* thread's pending time is brought up to date. A
//! worker that has just signalled the end of a run and is on its way to park is still running on another CPU,
//! so reading the process's CPU right after the run ends can miss what it used since it was last booked.
//! [`settled_process_mark`] therefore waits [`SETTLE_WAIT`] before reading; the caller measures its own thread
//! across the wait (a [`CpuMark::thread`] before and after) and subtracts it.
//!
//! Measured on the lab's 2-vCPU VM by `cargo run --release -p measure --example settle_wait` (40 rounds of two
//! threads that burn 30 ms each, signal, then park): read at once, the process total missed up to 1.7 ms (median
//! 17–33 µs); read 1, 2, 4, 8, 10 or 20 ms later it missed about 2 µs at most, as it did for threads that were
//! joined (whole even at once: a thread's time is folded into the process's when it exits). The time is booked when the worker parks, not at the next tick, so the
//! wait needs to cover the signal-to-park path, not a tick. 5 ms is five times what the measurement needed;
//! it was 20 ms (two ticks at `HZ=100`) until that measurement, 15 ms of every iteration spent waiting.
//!
//! `sysconf(_SC_CLK_TCK)` cannot tell the real tick: it reports `USER_HZ`, which is 100 whatever the kernel's
//! `CONFIG_HZ`, so the wait is a fixed, documented constant instead.
//!
//! Both ends of a measurement are [`CpuMark`]s: `getrusage`'s user/system split and switch counts, with the
//! CPU total of a difference taken from the nanosecond clocks (`CLOCK_PROCESS_CPUTIME_ID`,
//! `CLOCK_THREAD_CPUTIME_ID`). [`crate::probe::Probe`] starts from [`CpuMark::process`] and ends with
//! [`settled_process_mark`].

use std::time::Duration;

use crate::units::Nanos;

/// How long [`settled_process_mark`] waits for other threads' CPU time to be booked: 5 ms, five times the
/// longest a parking worker's time was seen unbooked on the lab's VM (see the module's doc).
pub const SETTLE_WAIT: Duration = Duration::from_millis(5);

/// A reading of `getrusage`: CPU time split into user and system, and context switches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// User CPU time.
    pub user_ns: Nanos,
    /// System CPU time.
    pub system_ns: Nanos,
    /// Voluntary context switches (blocking, sleeping).
    pub voluntary_switches: u64,
    /// Involuntary context switches (preempted).
    pub involuntary_switches: u64,
}

impl Usage {
    /// User plus system CPU time.
    pub fn cpu_ns(&self) -> Nanos {
        self.user_ns + self.system_ns
    }
    /// Voluntary plus involuntary switches.
    pub fn switches(&self) -> u64 {
        self.voluntary_switches + self.involuntary_switches
    }
    /// `self - earlier`, saturating at zero field by field.
    pub fn since(&self, earlier: &Usage) -> Usage {
        Usage {
            user_ns: self.user_ns.saturating_sub(earlier.user_ns),
            system_ns: self.system_ns.saturating_sub(earlier.system_ns),
            voluntary_switches: self.voluntary_switches.saturating_sub(earlier.voluntary_switches),
            involuntary_switches: self.involuntary_switches.saturating_sub(earlier.involuntary_switches),
        }
    }
}

/// Converts a `timeval` (seconds and microseconds) to nanoseconds, treating negative fields as zero.
fn timeval_ns(tv: libc::timeval) -> Nanos {
    let secs = u64::try_from(tv.tv_sec).unwrap_or(0);
    let micros = u64::try_from(tv.tv_usec).unwrap_or(0);
    secs.saturating_mul(1_000_000_000).saturating_add(micros.saturating_mul(1_000))
}

/// Converts a `timespec` to nanoseconds, treating negative fields as zero.
fn timespec_ns(ts: libc::timespec) -> Nanos {
    let secs = u64::try_from(ts.tv_sec).unwrap_or(0);
    let nanos = u64::try_from(ts.tv_nsec).unwrap_or(0);
    secs.saturating_mul(1_000_000_000).saturating_add(nanos)
}

/// `getrusage(who)`, or all zeros if the call fails (it cannot with a valid `who`).
fn rusage(who: libc::c_int) -> Usage {
    let mut ru = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `ru` is a valid, writable `rusage`; getrusage only writes into it.
    let rc = unsafe { libc::getrusage(who, ru.as_mut_ptr()) };
    if rc != 0 {
        return Usage::default();
    }
    // SAFETY: zero-initialised and, on success, filled in by the kernel; every field is plain data.
    let ru = unsafe { ru.assume_init() };
    Usage {
        user_ns: timeval_ns(ru.ru_utime),
        system_ns: timeval_ns(ru.ru_stime),
        voluntary_switches: u64::try_from(ru.ru_nvcsw).unwrap_or(0),
        involuntary_switches: u64::try_from(ru.ru_nivcsw).unwrap_or(0),
    }
}

/// `clock_gettime(clock)` in nanoseconds, or `None` if the clock is not available.
fn clock_ns(clock: libc::clockid_t) -> Option<Nanos> {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable `timespec`.
    let rc = unsafe { libc::clock_gettime(clock, &mut ts) };
    (rc == 0).then(|| timespec_ns(ts))
}

/// The whole process so far, exited threads included (`RUSAGE_SELF`).
pub fn process_usage() -> Usage {
    rusage(libc::RUSAGE_SELF)
}

/// The calling thread so far (`RUSAGE_THREAD`; all zeros on systems without it).
pub fn thread_usage() -> Usage {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        rusage(libc::RUSAGE_THREAD)
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        Usage::default()
    }
}

/// CPU time of the whole process from `CLOCK_PROCESS_CPUTIME_ID` (nanosecond resolution), `None` if unavailable.
pub fn process_cpu_clock_ns() -> Option<Nanos> {
    clock_ns(libc::CLOCK_PROCESS_CPUTIME_ID)
}

/// CPU time of the calling thread from `CLOCK_THREAD_CPUTIME_ID` (nanosecond resolution, always up to date for
/// the caller), `None` if unavailable.
pub fn thread_cpu_clock_ns() -> Option<Nanos> {
    clock_ns(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// A CPU reading that pairs `getrusage` (user/system split, context switches) with the matching precise clock
/// (`CLOCK_PROCESS_CPUTIME_ID` or `CLOCK_THREAD_CPUTIME_ID`).
///
/// `getrusage` totals move in scheduler ticks for running threads; the clocks are exact to the nanosecond. A
/// difference of two marks ([`CpuMark::since`]) therefore takes its CPU total from the clocks and only the
/// user/system proportion from `getrusage`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuMark {
    /// The `getrusage` reading.
    pub usage: Usage,
    /// The precise clock, `None` where it is unavailable.
    pub clock_ns: Option<Nanos>,
}

impl CpuMark {
    /// The whole process now (exited threads included).
    pub fn process() -> Self {
        CpuMark { usage: process_usage(), clock_ns: process_cpu_clock_ns() }
    }

    /// The calling thread now.
    pub fn thread() -> Self {
        CpuMark { usage: thread_usage(), clock_ns: thread_cpu_clock_ns() }
    }

    /// Usage between `earlier` and `self`: the CPU total from the precise clocks when both have one, split into
    /// user and system in the proportion `getrusage` saw (all user when it saw none); switches from `getrusage`.
    pub fn since(&self, earlier: &CpuMark) -> Usage {
        let usage = self.usage.since(&earlier.usage);
        match (self.clock_ns, earlier.clock_ns) {
            (Some(end), Some(start)) => with_total(usage, end.saturating_sub(start)),
            _ => usage,
        }
    }
}

/// `usage` with its CPU total replaced by `total_ns`, keeping its user/system proportion (all user when it has
/// no CPU time).
pub fn with_total(usage: Usage, total_ns: Nanos) -> Usage {
    let seen = usage.cpu_ns();
    let system_ns = if seen == 0 {
        0
    } else {
        // u128 keeps the product exact; the quotient is at most `total_ns`.
        u64::try_from(u128::from(total_ns) * u128::from(usage.system_ns) / u128::from(seen)).unwrap_or(total_ns)
    };
    Usage { user_ns: total_ns - system_ns.min(total_ns), system_ns: system_ns.min(total_ns), ..usage }
}

/// Wait [`SETTLE_WAIT`] so CPU time of threads that just ended is booked, then read the whole process.
///
/// The wait is the caller's own (a sleep: a few microseconds of CPU and usually one voluntary switch); a caller
/// that must not count it takes a [`CpuMark::thread`] before and after and subtracts the difference.
pub fn settled_process_mark() -> CpuMark {
    std::thread::sleep(SETTLE_WAIT);
    CpuMark::process()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn burn_thread_cpu(ns: Nanos) {
        let start = thread_cpu_clock_ns().expect("thread CPU clock");
        let mut x = 0u64;
        while thread_cpu_clock_ns().expect("thread CPU clock") - start < ns {
            for i in 0..1000u64 {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
            }
        }
        std::hint::black_box(x);
    }

    #[test]
    fn with_total_keeps_the_user_system_proportion() {
        let u = Usage { user_ns: 300, system_ns: 100, voluntary_switches: 7, involuntary_switches: 8 };
        let t = with_total(u, 200);
        assert_eq!((t.user_ns, t.system_ns, t.voluntary_switches), (150, 50, 7));
        let none = with_total(Usage::default(), 40);
        assert_eq!((none.user_ns, none.system_ns), (40, 0));
    }

    #[test]
    fn since_saturates_field_by_field() {
        let a = Usage { user_ns: 10, system_ns: 5, voluntary_switches: 3, involuntary_switches: 1 };
        let b = Usage { user_ns: 4, system_ns: 9, voluntary_switches: 1, involuntary_switches: 2 };
        let d = a.since(&b);
        assert_eq!(d, Usage { user_ns: 6, system_ns: 0, voluntary_switches: 2, involuntary_switches: 0 });
        assert_eq!(a.cpu_ns(), 15);
        assert_eq!(a.switches(), 4);
    }

    #[test]
    fn thread_usage_sees_own_burn() {
        let before = thread_usage();
        burn_thread_cpu(30_000_000);
        let after = thread_usage();
        let used = after.since(&before).cpu_ns();
        // getrusage truncates to microseconds; the burn is measured on the precise thread clock.
        assert!(used >= 29_000_000, "thread usage {used} ns after a 30 ms burn");
    }

    #[test]
    fn process_usage_is_at_least_thread_usage_and_monotonic() {
        burn_thread_cpu(5_000_000);
        let thread = thread_usage();
        let p1 = CpuMark::process();
        let p2 = CpuMark::process();
        assert!(p1.usage.cpu_ns() + 1_000 >= thread.cpu_ns());
        assert!(p2.since(&p1).cpu_ns() < 1_000_000_000);
        assert!(p2.clock_ns >= p1.clock_ns);
        assert!(process_usage().cpu_ns() > 0);
    }

    #[test]
    fn settle_wait_costs_little_cpu() {
        let before = CpuMark::thread();
        let process = settled_process_mark();
        let own = CpuMark::thread().since(&before);
        assert!(process.usage.cpu_ns() > 0);
        // Sleeping is not burning: far less than the wait itself even on a loaded machine.
        assert!(own.cpu_ns() < SETTLE_WAIT.as_nanos() as u64 / 2, "own usage {own:?}");
    }
}
