//! A pool of parked threads: start them all, wait until every one is parked, let the caller start its clock,
//! release them at once, and join them. Spawning (and thread start-up) is thereby kept out of whatever the caller
//! measures after `go`.
//!
//! ```
//! use std::sync::atomic::{AtomicUsize, Ordering};
//! use pipelines::blocking::parked_pool::run_parked;
//!
//! let sum = AtomicUsize::new(0);
//! let mut started = None;
//! run_parked(8, 128 * 1024, &mut || started = Some(std::time::Instant::now()), |index| {
//!     sum.fetch_add(index, Ordering::Relaxed);
//! })?;
//! assert_eq!(sum.into_inner(), 28);
//! assert!(started.is_some());
//! # Ok::<(), pipelines::blocking::parked_pool::PoolError>(())
//! ```

use std::io;
use std::sync::{Condvar, Mutex, PoisonError};
use std::thread;

use crate::panic::panic_message;

/// Why a parked pool could not run.
#[derive(Debug, thiserror::Error)]
pub enum PoolError {
    /// The OS refused to start thread `started + 1` of `wanted` (`started` had started and left without running).
    #[error(
        "the OS refused thread {} of {} ({} started): {source}",
        grouped(.started.saturating_add(1)),
        grouped(*.wanted),
        grouped(*.started)
    )]
    Spawn {
        /// Threads asked for.
        wanted: usize,
        /// Threads that had started (they left without running `work`).
        started: usize,
        /// What the OS said.
        source: io::Error,
    },
    /// Threads panicked while running `work`.
    #[error("{}", panicked(*.count, .first))]
    Panicked {
        /// How many threads panicked.
        count: usize,
        /// The panic message of the first of them, in index order.
        first: String,
    },
}

/// Start `threads` scoped threads of `stack_bytes` stacks, each parked until every one has started; then call
/// `go()` on this thread (so a caller can start its clock after spawning, excluding spawn time from the
/// measurement), release them all at once, run `work(index)` on each (index 0..threads), and join them all.
///
/// `go` is called once every thread is running and parked, and before any `work` runs. If the OS refuses a
/// thread, `go` is not called, the threads already started leave without running `work`, and the error says how
/// many had started. A panic in `work` ends only its own thread: every thread is still joined, and the panics are
/// reported together. With `threads == 0`, `go` is called and nothing else happens.
pub fn run_parked<W: Fn(usize) + Sync>(
    threads: usize,
    stack_bytes: usize,
    go: &mut dyn FnMut(),
    work: W,
) -> Result<(), PoolError> {
    run_parked_refusing(threads, stack_bytes, go, work, None)
}

/// [`run_parked`], with a seam for tests: the spawn of thread `refuse_at` (0-based), if given, fails as the OS
/// would.
fn run_parked_refusing<W: Fn(usize) + Sync>(
    threads: usize,
    stack_bytes: usize,
    go: &mut dyn FnMut(),
    work: W,
    refuse_at: Option<usize>,
) -> Result<(), PoolError> {
    let latch = Latch::new(threads);
    let (latch, work) = (&latch, &work);
    thread::scope(|scope| {
        let mut handles = Vec::with_capacity(threads);
        for index in 0..threads {
            let spawned = if refuse_at == Some(index) {
                Err(io::Error::from(io::ErrorKind::WouldBlock))
            } else {
                thread::Builder::new().stack_size(stack_bytes).spawn_scoped(scope, move || {
                    if latch.arrive_and_wait() {
                        work(index);
                    }
                })
            };
            match spawned {
                Ok(handle) => handles.push(handle),
                Err(source) => {
                    latch.release(false);
                    // Leaving the scope joins the threads already started; they leave without running `work`.
                    return Err(PoolError::Spawn { wanted: threads, started: index, source });
                }
            }
        }
        latch.wait_for_all();
        go();
        latch.release(true);
        let mut panicked = 0;
        let mut first = None;
        for handle in handles {
            if let Err(payload) = handle.join() {
                panicked += 1;
                first.get_or_insert_with(|| panic_message(&*payload));
            }
        }
        match first {
            None => Ok(()),
            Some(first) => Err(PoolError::Panicked { count: panicked, first }),
        }
    })
}

/// Where the latch stands: how many threads have parked on it, and whether it was opened (`Some(true)`) or
/// aborted (`Some(false)`).
#[derive(Debug, Default)]
struct LatchState {
    arrived: usize,
    open: Option<bool>,
}

/// A start latch: pool threads park on it until the run begins, or leave if it is aborted; the starting thread
/// can wait until all of them have parked.
#[derive(Debug)]
struct Latch {
    expected: usize,
    state: Mutex<LatchState>,
    /// Signalled when the latch is opened or aborted.
    released: Condvar,
    /// Signalled when the last expected thread has parked.
    all_arrived: Condvar,
}

impl Latch {
    /// A latch that `expected` threads will park on.
    fn new(expected: usize) -> Latch {
        Latch { expected, state: Mutex::default(), released: Condvar::new(), all_arrived: Condvar::new() }
    }

    /// Park until the latch is opened (`true`) or aborted (`false`), counting this thread as arrived.
    fn arrive_and_wait(&self) -> bool {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.arrived += 1;
        if state.arrived == self.expected {
            self.all_arrived.notify_one();
        }
        loop {
            if let Some(open) = state.open {
                return open;
            }
            state = self.released.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Wait until every expected thread has parked.
    fn wait_for_all(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        while state.arrived < self.expected {
            state = self.all_arrived.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Let every waiter go: `true` to run, `false` to leave without running.
    fn release(&self, open: bool) {
        self.state.lock().unwrap_or_else(PoisonError::into_inner).open = Some(open);
        self.released.notify_all();
    }
}

/// `1 pool thread panicked: <first>` or `n pool threads panicked, the first with: <first>`.
fn panicked(count: usize, first: &str) -> String {
    if count == 1 {
        format!("1 pool thread panicked: {first}")
    } else {
        format!("{} pool threads panicked, the first with: {first}", grouped(count))
    }
}

/// `n` with a comma between every three digits: `32100` as `32,100`.
fn grouped(n: usize) -> String {
    measure::units::thousands(n as u64)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    use super::*;

    const STACK: usize = 128 * 1024;

    #[test]
    fn every_index_runs_exactly_once() {
        let threads = 200;
        let runs: Vec<AtomicUsize> = (0..threads).map(|_| AtomicUsize::new(0)).collect();
        let mut gos = 0;
        run_parked(threads, STACK, &mut || gos += 1, |index| {
            runs[index].fetch_add(1, Ordering::Relaxed);
        })
        .expect("the pool runs");
        assert_eq!(gos, 1);
        assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) == 1));
    }

    // In a process of its own: the count at go must be this pool's threads, not another test's.
    testkit::own_process! {
        #[test]
        fn go_runs_after_every_thread_is_parked_and_before_any_work() {
            let threads = 64;
            let went = AtomicBool::new(false);
            let worked = AtomicUsize::new(0);
            let before = measure::memory::thread_count();
            let mut go = || {
                assert_eq!(worked.load(Ordering::SeqCst), 0, "work ran before go");
                if let (Some(before), Some(count)) = (before, measure::memory::thread_count()) {
                    assert!(count >= before + threads as u64, "only {count} threads exist at go ({before} before)");
                }
                went.store(true, Ordering::SeqCst);
            };
            run_parked(threads, STACK, &mut go, |_| {
                assert!(went.load(Ordering::SeqCst), "work ran before go");
                worked.fetch_add(1, Ordering::SeqCst);
            })
            .expect("the pool runs");
            assert_eq!(worked.into_inner(), threads);
        }
    }

    #[test]
    fn panics_are_reported_and_every_other_thread_still_runs() {
        let threads = 16;
        let finished = AtomicUsize::new(0);
        let result = run_parked(threads, STACK, &mut || {}, |index| {
            if index == 3 || index == 11 {
                panic!("boom at {index}");
            }
            finished.fetch_add(1, Ordering::SeqCst);
        });
        match result {
            Err(PoolError::Panicked { count, ref first }) => {
                assert_eq!(count, 2);
                assert_eq!(first, "boom at 3");
            }
            other => panic!("expected Panicked, got {other:?}"),
        }
        assert_eq!(finished.into_inner(), threads - 2);
        let message = result.expect_err("it failed").to_string();
        assert_eq!(message, "2 pool threads panicked, the first with: boom at 3");
    }

    #[test]
    fn no_threads_still_calls_go() {
        let mut gos = 0;
        run_parked(0, STACK, &mut || gos += 1, |_| panic!("no work without threads")).expect("nothing to fail");
        assert_eq!(gos, 1);
    }

    #[test]
    fn a_refused_spawn_releases_the_started_threads_without_running_them() {
        let worked = AtomicUsize::new(0);
        let mut gos = 0;
        let result = run_parked_refusing(
            10,
            STACK,
            &mut || gos += 1,
            |_| {
                worked.fetch_add(1, Ordering::SeqCst);
            },
            Some(5),
        );
        assert!(matches!(result, Err(PoolError::Spawn { wanted: 10, started: 5, .. })), "{result:?}");
        assert_eq!(gos, 0);
        assert_eq!(worked.into_inner(), 0);
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn spawn_errors_read_with_thousands_separators() {
        let error = PoolError::Spawn { wanted: 100_000, started: 32_100, source: io::Error::from_raw_os_error(11) };
        assert_eq!(
            error.to_string(),
            "the OS refused thread 32,101 of 100,000 (32,100 started): Resource temporarily unavailable (os error 11)"
        );
        let one = PoolError::Panicked { count: 1, first: "bang".to_string() };
        assert_eq!(one.to_string(), "1 pool thread panicked: bang");
    }
}
