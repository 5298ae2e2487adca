//! The tokio runtimes stream contestants run on. A long-lived application builds its runtime once; so does a
//! trial (outside the timed window), and every iteration reuses it.
//!
//! Neither enables the I/O or time drivers: the pipelines here neither wait on sockets nor sleep, and a
//! driver would only add work when a worker parks.
//!
//! [`settled_tasks`] counts the tasks a runtime still holds once it had [`TASK_RELEASE`] to release finished
//! ones, for checks that a run left nothing behind.

use std::io;
use std::thread;
use std::time::{Duration, Instant};

use tokio::runtime::{Builder, Runtime};

/// A current-thread runtime: `block_on` polls the given future (and any spawned task) on the calling thread.
pub fn current_thread() -> io::Result<Runtime> {
    Builder::new_current_thread().thread_name("stream-current").build()
}

/// A multi-thread (work-stealing) runtime with tokio's default worker count: one per logical CPU, or
/// `TOKIO_WORKER_THREADS` when that is set.
pub fn multi_thread() -> io::Result<Runtime> {
    Builder::new_multi_thread().thread_name("stream-worker").build()
}

/// How long after a run returns a tokio runtime may take to release its finished tasks.
pub const TASK_RELEASE: Duration = Duration::from_secs(5);

/// Tasks still alive once they had up to [`TASK_RELEASE`] to be released: reads `alive_tasks` every millisecond
/// until it says 0 or the time is up, and returns the last reading; `None` at once when `alive_tasks` has no
/// runtime to ask.
pub fn settled_tasks(mut alive_tasks: impl FnMut() -> Option<usize>) -> Option<usize> {
    let start = Instant::now();
    loop {
        let alive = alive_tasks()?;
        if alive == 0 || start.elapsed() > TASK_RELEASE {
            return Some(alive);
        }
        thread::sleep(Duration::from_millis(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_runtimes_run_a_future_to_completion() -> io::Result<()> {
        assert_eq!(current_thread()?.block_on(async { 1 + 1 }), 2);
        let rt = multi_thread()?;
        let handle = rt.spawn(async { 40 + 2 });
        assert_eq!(rt.block_on(handle).ok(), Some(42));
        Ok(())
    }

    #[test]
    fn tasks_settle_once_the_runtime_releases_them() {
        let mut alive = 3;
        let settled = settled_tasks(|| {
            alive -= 1;
            Some(alive)
        });
        assert_eq!(settled, Some(0));
        assert_eq!(settled_tasks(|| None), None, "no runtime, nothing to count");
    }
}
