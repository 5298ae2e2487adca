//! How many more threads the OS lets this process start (Linux), so a scenario can refuse a thread count that
//! cannot fit before it tries and fails halfway.
//!
//! Every thread is a task with its own PID, so `kernel.pid_max` and `kernel.threads-max` less the tasks already
//! on the system (the total in the fourth field of `/proc/loadavg`) bound it, and so does `RLIMIT_NPROC` where
//! the kernel enforces it (not for root). Every thread started by Rust's `std` takes about four memory maps (its
//! stack and the signal stack `std` gives each thread, each with a guard page: measured 3.8 to 4.3 per parked
//! thread on Linux 6.18), so a quarter of what `vm.max_map_count` leaves over this process's current maps
//! (`/proc/self/maps`) bounds it too. That bound matters most: when it runs out, a thread that did start cannot
//! map its signal stack and the whole process aborts, instead of the spawn failing cleanly.
//!
//! The parsing is pure ([`parse_loadavg_tasks`], [`parse_number`], [`count_lines`]) and [`ThreadLimits`] has
//! public fields, so [`ThreadLimits::headroom`] and [`ThreadLimits::refuse`] can be checked on fixed numbers.

use crate::units::thousands;
use std::fmt::Write as _;

/// Memory maps one thread started by `std` takes: its stack and its signal stack, each with a guard page.
const MAPS_PER_THREAD: u64 = 4;

/// The OS limits on thread creation as read now, each `None` where unreadable.
#[derive(Debug, Clone, PartialEq)]
pub struct ThreadLimits {
    /// `kernel.pid_max`: one more than the largest PID (every thread takes one).
    pub pid_max: Option<u64>,
    /// Tasks (threads of every process) that exist on the system now, from `/proc/loadavg`.
    pub tasks_on_system: Option<u64>,
    /// `kernel.threads-max`: the most tasks the system may have.
    pub threads_max: Option<u64>,
    /// The soft `RLIMIT_NPROC`; `None` when unlimited or not enforced (this process runs as root).
    pub nproc_limit: Option<u64>,
    /// `vm.max_map_count`: the most memory maps one process may have.
    pub max_map_count: Option<u64>,
    /// Memory maps this process has now, from `/proc/self/maps`.
    pub maps_in_use: Option<u64>,
}

/// Which limit a bound comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Limit {
    PidMax,
    ThreadsMax,
    Nproc,
    MaxMapCount,
}

/// One readable bound: the limit, its value, what is already used of it, and how many more threads it allows.
#[derive(Debug, Clone, Copy)]
struct Bound {
    limit: Limit,
    value: u64,
    used: u64,
    allows: u64,
}

impl Bound {
    /// Full wording for the binding limit, such as `kernel.pid_max is 32,768 with 412 tasks running on the system`.
    fn describe(&self) -> String {
        let (value, used) = (thousands(self.value), thousands(self.used));
        match self.limit {
            Limit::PidMax => format!("kernel.pid_max is {value} with {used} tasks running on the system"),
            Limit::ThreadsMax => format!("kernel.threads-max is {value} with {used} tasks running on the system"),
            Limit::Nproc => format!("RLIMIT_NPROC is {value} with {used} tasks running on the system"),
            Limit::MaxMapCount => format!(
                "vm.max_map_count is {value} with {used} memory maps in use by this process and four taken by every \
                 thread (its stack and its signal stack, each with a guard page)"
            ),
        }
    }

    /// Short wording for a further limit that does not fit either, such as `kernel.pid_max 32,768 allows 32,356`.
    fn brief(&self) -> String {
        let (value, allows) = (thousands(self.value), thousands(self.allows));
        match self.limit {
            Limit::PidMax => format!("kernel.pid_max {value} allows {allows}"),
            Limit::ThreadsMax => format!("kernel.threads-max {value} allows {allows}"),
            Limit::Nproc => format!("RLIMIT_NPROC {value} allows {allows}"),
            Limit::MaxMapCount => {
                format!("vm.max_map_count {value} allows about {allows} at four maps per thread")
            }
        }
    }
}

impl ThreadLimits {
    /// Read every limit now from `/proc` and `getrlimit`; each one that cannot be read (off Linux, say) is `None`.
    pub fn read() -> ThreadLimits {
        let file = |path: &str| std::fs::read_to_string(path).ok();
        ThreadLimits::from_texts(
            file("/proc/sys/kernel/pid_max").as_deref(),
            file("/proc/sys/kernel/threads-max").as_deref(),
            file("/proc/sys/vm/max_map_count").as_deref(),
            file("/proc/loadavg").as_deref(),
            file("/proc/self/maps").as_deref(),
            nproc_limit(),
        )
    }

    /// The limits from the texts of `/proc/sys/kernel/pid_max`, `/proc/sys/kernel/threads-max`,
    /// `/proc/sys/vm/max_map_count`, `/proc/loadavg` and `/proc/self/maps`, and the enforced `RLIMIT_NPROC`.
    fn from_texts(
        pid_max: Option<&str>,
        threads_max: Option<&str>,
        max_map_count: Option<&str>,
        loadavg: Option<&str>,
        self_maps: Option<&str>,
        nproc_limit: Option<u64>,
    ) -> ThreadLimits {
        ThreadLimits {
            pid_max: pid_max.and_then(parse_number),
            tasks_on_system: loadavg.and_then(parse_loadavg_tasks),
            threads_max: threads_max.and_then(parse_number),
            nproc_limit,
            max_map_count: max_map_count.and_then(parse_number),
            maps_in_use: self_maps.map(count_lines),
        }
    }

    /// Every bound that can be computed (a limit is only usable together with what is already used of it), in
    /// the order pid, threads, nproc, maps.
    fn bounds(&self) -> Vec<Bound> {
        let tasks = |limit: Limit, value: Option<u64>| {
            let (value, used) = (value?, self.tasks_on_system?);
            Some(Bound { limit, value, used, allows: value.saturating_sub(used) })
        };
        let maps = self.max_map_count.zip(self.maps_in_use).map(|(value, used)| Bound {
            limit: Limit::MaxMapCount,
            value,
            used,
            allows: value.saturating_sub(used) / MAPS_PER_THREAD,
        });
        [
            tasks(Limit::PidMax, self.pid_max),
            tasks(Limit::ThreadsMax, self.threads_max),
            tasks(Limit::Nproc, self.nproc_limit),
            maps,
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// Most threads this process could still start: the minimum over the readable bounds (pid_max − tasks,
    /// threads_max − tasks, nproc − tasks, (max_map_count − maps)/4). None if nothing was readable.
    ///
    /// `RLIMIT_NPROC` counts only this user's tasks; taking every task on the system errs on the safe side.
    pub fn headroom(&self) -> Option<u64> {
        self.bounds().iter().map(|b| b.allows).min()
    }

    /// `None` if `wanted` more threads fit within headroom minus `margin` (threads to leave for everything else);
    /// otherwise a one-sentence reason naming the binding limit(s) with the numbers read, e.g. "100,000 threads do
    /// not fit: kernel.pid_max is 32,768 with 412 tasks running on the system, so at most 32,356 more threads can
    /// exist (vm.max_map_count 65,530 allows about 32,000 at four maps per thread)". Uses thousands
    /// separators. Also `None` when no limit could be read: there is nothing to refuse on.
    pub fn refuse(&self, wanted: u64, margin: u64) -> Option<String> {
        let needed = wanted.saturating_add(margin);
        let mut short: Vec<Bound> = self.bounds().into_iter().filter(|b| b.allows < needed).collect();
        // The binding limit first; the others that fall short too keep their order (the sort is stable).
        short.sort_by_key(|b| b.allows);
        let (binding, others) = short.split_first()?;
        let mut reason = format!("{} threads", thousands(wanted));
        if margin > 0 {
            let _ = write!(reason, " (plus {} kept for everything else)", thousands(margin));
        }
        let _ = write!(
            reason,
            " do not fit: {}, so at most {} more threads can exist",
            binding.describe(),
            thousands(binding.allows)
        );
        if !others.is_empty() {
            let briefs: Vec<String> = others.iter().map(Bound::brief).collect();
            let _ = write!(reason, " ({})", briefs.join("; "));
        }
        Some(reason)
    }
}

/// Tasks on the system from the text of `/proc/loadavg` (`0.33 1.02 1.24 1/81 14350`): the total after the slash
/// in the fourth field (`81`). `None` if the text is not in that form.
pub fn parse_loadavg_tasks(text: &str) -> Option<u64> {
    let field = text.split_whitespace().nth(3)?;
    let (_running, total) = field.split_once('/')?;
    total.parse().ok()
}

/// The single number in a `/proc/sys` file's text, such as `32768\n`; `None` if it is not one.
pub fn parse_number(text: &str) -> Option<u64> {
    text.trim().parse().ok()
}

/// Lines of a text, such as the memory maps listed in `/proc/self/maps` (one per line).
pub fn count_lines(text: &str) -> u64 {
    text.lines().count() as u64
}

/// The soft `RLIMIT_NPROC` where the kernel enforces it: `None` when unlimited, unreadable, or this process runs
/// as root (the kernel does not hold root to it).
#[cfg(target_os = "linux")]
fn nproc_limit() -> Option<u64> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        return None;
    }
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: `limit` is a valid, writable rlimit for the duration of the call.
    let rc = unsafe { libc::getrlimit(libc::RLIMIT_NPROC, &mut limit) };
    if rc != 0 || limit.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    Some(limit.rlim_cur)
}

/// The soft `RLIMIT_NPROC`: not read off Linux.
#[cfg(not(target_os = "linux"))]
fn nproc_limit() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This machine's limits with `tasks` on the system and `maps` in use by this process, root (no nproc).
    fn machine(tasks: u64, maps: u64) -> ThreadLimits {
        ThreadLimits {
            pid_max: Some(32_768),
            tasks_on_system: Some(tasks),
            threads_max: Some(192_730),
            nproc_limit: None,
            max_map_count: Some(65_530),
            maps_in_use: Some(maps),
        }
    }

    #[test]
    fn loadavg_gives_the_total_tasks() {
        assert_eq!(parse_loadavg_tasks("0.33 1.02 1.24 1/81 14350\n"), Some(81));
        assert_eq!(parse_loadavg_tasks("0.00 0.00 0.00 12/34567 1"), Some(34_567));
        assert_eq!(parse_loadavg_tasks("0.33 1.02 1.24"), None);
        assert_eq!(parse_loadavg_tasks("0.33 1.02 1.24 81 14350"), None);
        assert_eq!(parse_loadavg_tasks("0.33 1.02 1.24 1/x 14350"), None);
    }

    #[test]
    fn sysctl_numbers_and_map_lines_parse() {
        assert_eq!(parse_number("32768\n"), Some(32_768));
        assert_eq!(parse_number(" 65530 "), Some(65_530));
        assert_eq!(parse_number(""), None);
        assert_eq!(parse_number("max"), None);
        let maps = "55d0-55d1 r--p 00000000 08:01 1 /bin/x\n7ffd-7ffe rw-p 00000000 00:00 0 [stack]\n";
        assert_eq!(count_lines(maps), 2);
        assert_eq!(count_lines(""), 0);
    }

    #[test]
    fn texts_become_limits() {
        let limits = ThreadLimits::from_texts(
            Some("32768\n"),
            Some("192730\n"),
            Some("65530\n"),
            Some("0.33 1.02 1.24 1/81 14350\n"),
            Some("a\nb\nc\n"),
            Some(96_365),
        );
        assert_eq!(
            limits,
            ThreadLimits {
                pid_max: Some(32_768),
                tasks_on_system: Some(81),
                threads_max: Some(192_730),
                nproc_limit: Some(96_365),
                max_map_count: Some(65_530),
                maps_in_use: Some(3),
            }
        );
        let unreadable = ThreadLimits::from_texts(None, Some("junk"), None, Some("1 2 3"), None, None);
        assert_eq!(unreadable.headroom(), None);
    }

    #[test]
    fn pid_max_binds_and_map_count_is_named_too() {
        // With vm.max_map_count raised: pid 32,768 − 412 = 32,356 < maps (131,060 − 1,000) / 4 = 32,515.
        let limits = ThreadLimits { max_map_count: Some(131_060), ..machine(412, 1_000) };
        assert_eq!(limits.headroom(), Some(32_356));
        assert_eq!(
            limits.refuse(100_000, 0).as_deref(),
            Some(
                "100,000 threads do not fit: kernel.pid_max is 32,768 with 412 tasks running on the system, so at \
                 most 32,356 more threads can exist (vm.max_map_count 131,060 allows about 32,515 at four maps per \
                 thread)"
            )
        );
        // Only pid_max falls short of 32,400 threads: no parenthesis.
        assert_eq!(
            limits.refuse(32_400, 0).as_deref(),
            Some(
                "32,400 threads do not fit: kernel.pid_max is 32,768 with 412 tasks running on the system, so at \
                 most 32,356 more threads can exist"
            )
        );
    }

    #[test]
    fn map_count_binds() {
        // maps: (65,530 − 1,530) / 4 = 16,000; pid: 32,356; threads: 192,318; nproc: 95,953.
        let limits = ThreadLimits { nproc_limit: Some(96_365), ..machine(412, 1_530) };
        assert_eq!(limits.headroom(), Some(16_000));
        assert_eq!(
            limits.refuse(30_000, 1_000).as_deref(),
            Some(
                "30,000 threads (plus 1,000 kept for everything else) do not fit: vm.max_map_count is 65,530 with \
                 1,530 memory maps in use by this process and four taken by every thread (its stack and its signal \
                 stack, each with a guard page), so at most 16,000 more threads can exist"
            )
        );
        // Every limit that falls short is named, the binding one first, the others in their order.
        let reason = limits.refuse(100_000, 0).expect("100,000 do not fit");
        assert!(
            reason.ends_with(
                "so at most 16,000 more threads can exist (kernel.pid_max 32,768 allows 32,356; RLIMIT_NPROC 96,365 \
                 allows 95,953)"
            ),
            "{reason}"
        );
        assert_eq!(limits.refuse(16_000, 0), None);
        assert!(limits.refuse(16_000, 1).is_some());
    }

    #[test]
    fn nothing_readable_refuses_nothing() {
        let limits = ThreadLimits {
            pid_max: None,
            tasks_on_system: None,
            threads_max: None,
            nproc_limit: None,
            max_map_count: None,
            maps_in_use: None,
        };
        assert_eq!(limits.headroom(), None);
        assert_eq!(limits.refuse(u64::MAX, u64::MAX), None);
        // A limit without what is used of it is no bound either.
        let half = ThreadLimits { pid_max: Some(32_768), max_map_count: Some(65_530), ..limits };
        assert_eq!(half.headroom(), None);
    }

    #[test]
    fn what_fits_is_not_refused() {
        let limits = machine(412, 1_530);
        assert_eq!(limits.refuse(10_000, 1_000), None);
        assert_eq!(limits.refuse(15_000, 1_000), None);
        assert_eq!(limits.refuse(0, 0), None);
        assert!(limits.refuse(15_001, 1_000).is_some());
    }

    #[test]
    fn used_beyond_the_limit_leaves_no_headroom() {
        let limits = machine(40_000, 70_000);
        assert_eq!(limits.headroom(), Some(0));
        assert!(limits.refuse(1, 0).is_some());
    }

    #[test]
    fn this_machine_reads() {
        let limits = ThreadLimits::read();
        if cfg!(target_os = "linux") {
            assert!(limits.pid_max.is_some(), "{limits:?}");
        }
    }
}
