//! Starting a pool of parked threads, releasing them at once, and joining them: shared by the blocking
//! contestants so both start the same way.

use std::thread;
use std::time::{Duration, Instant};

use dependency::Dependency;

use super::latch::Latch;
use super::THREAD_STACK_BYTES;

/// Start `threads` scoped threads running `work` once released, parked on a latch; call `go`, release them all,
/// and join them. If the OS refuses a thread, the ones started leave without running and the error names how
/// many were started.
pub(crate) fn run<W>(threads: usize, go: &mut dyn FnMut(), work: W) -> Result<(), String>
where
    W: Fn() + Sync,
{
    let latch = Latch::default();
    thread::scope(|scope| {
        let mut handles = Vec::with_capacity(threads);
        for started in 0..threads {
            let spawned = thread::Builder::new().stack_size(THREAD_STACK_BYTES).spawn_scoped(scope, || {
                if latch.wait() {
                    work();
                }
            });
            match spawned {
                Ok(handle) => handles.push(handle),
                Err(e) => {
                    latch.release(false);
                    return Err(format!("the OS refused thread {} of {threads} ({started} started): {e}", started + 1));
                }
            }
        }
        go();
        latch.release(true);
        let panicked = handles.into_iter().map(|h| h.join()).filter(Result::is_err).count();
        if panicked == 0 {
            Ok(())
        } else {
            Err(format!("{panicked} pool threads panicked"))
        }
    })
}

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
