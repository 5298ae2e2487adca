//! What the blocking contestants share besides the parked pool itself
//! ([`run_parked`](pipelines::blocking::parked_pool::run_parked)): how they time idle calls.

use std::time::{Duration, Instant};

use dependency::Dependency;

/// `n` calls on `dependency`, one at a time, each waited for on this thread.
pub(crate) fn idle_waited(dependency: &Dependency, n: u32) -> Vec<Duration> {
    (0..n)
        .map(|i| {
            let issued = Instant::now();
            let _ = dependency.call(u64::from(i)).wait();
            issued.elapsed()
        })
        .collect()
}
