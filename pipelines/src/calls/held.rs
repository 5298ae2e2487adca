//! What a process holds that a client run could leave behind: its threads and its open sockets, read from
//! `/proc/self`, and a bounded wait for them to come back down after a run.

use std::time::{Duration, Instant};

/// Threads and open sockets of this process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Held {
    /// Threads (`/proc/self/task`).
    pub threads: usize,
    /// Open sockets (`/proc/self/fd` entries linking to `socket:`).
    pub sockets: usize,
}

impl Held {
    /// What this process holds now.
    pub fn now() -> Held {
        let count = |dir: &str, keep: &dyn Fn(&std::fs::DirEntry) -> bool| {
            std::fs::read_dir(dir).map(|d| d.filter_map(Result::ok).filter(|e| keep(e)).count()).unwrap_or(0)
        };
        let is_socket = |e: &std::fs::DirEntry| {
            std::fs::read_link(e.path()).is_ok_and(|t| t.to_string_lossy().starts_with("socket:"))
        };
        Held { threads: count("/proc/self/task", &|_| true), sockets: count("/proc/self/fd", &is_socket) }
    }

    /// What this process holds once the count stops falling: read until two readings 10 ms apart agree (at most
    /// 500 ms), so the thread of a check that just answered, still ending, is not taken into a baseline (it
    /// would hide one thread left behind by the next run).
    pub fn steady() -> Held {
        let deadline = Instant::now() + Duration::from_millis(500);
        let mut last = Held::now();
        loop {
            std::thread::sleep(Duration::from_millis(10));
            let now = Held::now();
            if now == last || Instant::now() >= deadline {
                return Held { threads: now.threads.min(last.threads), sockets: now.sockets.min(last.sockets) };
            }
            last = now;
        }
    }

    /// Wait up to `wait` for this process to hold no more than `baseline`; what it holds then, if more.
    pub fn settle_to(baseline: Held, wait: Duration) -> Result<Held, Held> {
        let deadline = Instant::now() + wait;
        loop {
            let now = Held::now();
            if now.threads <= baseline.threads && now.sockets <= baseline.sockets {
                return Ok(now);
            }
            if Instant::now() >= deadline {
                return Err(now);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// The process's threads and sockets before a run, and once they had `within` to come back down after it.
#[derive(Debug, Clone, Copy)]
pub struct Leftovers {
    /// What the process held before the run.
    pub baseline: Held,
    /// What it held once back down to the baseline (`Ok`), or, still above it after the wait, then (`Err`).
    pub settled: Result<Held, Held>,
    /// How long it had to come back down.
    pub within: Duration,
}

impl Leftovers {
    /// Wait up to `within` for the process to come back down to `baseline`.
    pub fn settle(baseline: Held, within: Duration) -> Leftovers {
        Leftovers { baseline, settled: Held::settle_to(baseline, within), within }
    }

    /// What is still held `after` the run (`the return`, `the early stop`), if more than before.
    pub fn left(&self, after: &str) -> Option<String> {
        let (now, before) = (self.settled.err()?, self.baseline);
        Some(format!(
            "{} threads and {} sockets {} s after {after}, against {} and {} before",
            now.threads,
            now.sockets,
            self.within.as_secs(),
            before.threads,
            before.sockets
        ))
    }

    /// `threads and sockets back to <threads> and <sockets>`: what a passing check says of them.
    pub fn back_to(&self) -> String {
        format!("threads and sockets back to {} and {}", self.baseline.threads, self.baseline.sockets)
    }
}
