//! The handle callers hold: [`Dependency::start`] spawns the timer threads, [`Dependency::call`] issues a call,
//! and the last handle dropped (or [`Dependency::shutdown`]) stops the threads and resolves what is pending.

use std::fmt;
use std::io;
use std::sync::{mpsc, Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crate::admission::{Core, Notify};
use crate::completion::{Completion, Reply};
use crate::config::Config;
use crate::cpu::ThreadCpu;
use crate::lock;
use crate::stats::{Stats, Timeline};
use crate::timer::{InService, Shard};

/// A running simulated dependency: `capacity` slots, a FIFO queue, a precise timer on its own threads.
/// Cheap to clone (an `Arc` inside); every clone is the same dependency. Dropping the last clone shuts it down.
#[derive(Clone)]
pub struct Dependency {
    handle: Arc<Handle>,
}

/// Owns the timer threads; shuts down when the last [`Dependency`] clone drops it.
struct Handle {
    shared: Arc<Shared>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

/// What callers and timer threads share.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) config: Config,
    /// Admission, queue, counters and timeline: the one lock callers contend on.
    pub(crate) core: Mutex<Core>,
    /// One shard of pending deadlines per timer thread.
    pub(crate) shards: Vec<Shard>,
    /// One CPU clock per timer thread.
    pub(crate) clocks: Vec<ThreadCpu>,
}

impl Dependency {
    /// Starts a dependency: validates `config` and spawns its timer threads (named `dep-timer-N`).
    ///
    /// # Errors
    ///
    /// [`io::ErrorKind::InvalidInput`] for a config that [`Config::validate`] refuses, or the OS's error if a
    /// thread cannot be spawned (threads already spawned are stopped and joined).
    pub fn start(config: Config) -> io::Result<Dependency> {
        config.validate()?;
        let start = Instant::now();
        let shared = Arc::new(Shared {
            core: Mutex::new(Core::new(&config, start)),
            shards: (0..config.timer_threads).map(|_| Shard::default()).collect(),
            clocks: (0..config.timer_threads).map(|_| ThreadCpu::default()).collect(),
            config,
        });
        let handle = Handle { shared: Arc::clone(&shared), threads: Mutex::new(Vec::new()) };
        let (ready_tx, ready_rx) = mpsc::channel();
        for index in 0..shared.config.timer_threads {
            let shared = Arc::clone(&shared);
            let ready = ready_tx.clone();
            // On error, dropping `handle` shuts down and joins the threads spawned so far.
            let thread = thread::Builder::new()
                .name(format!("dep-timer-{index}"))
                .spawn(move || timer_thread(shared, index, ready))?;
            lock(&handle.threads).push(thread);
        }
        drop(ready_tx);
        // Every timer thread has set its timer slack and registered its CPU clock before the first call.
        for _ in 0..shared.config.timer_threads {
            if ready_rx.recv().is_err() {
                return Err(io::Error::other("dependency: a timer thread died while starting"));
            }
        }
        Ok(Dependency { handle: Arc::new(handle) })
    }

    /// Issues a call now and returns its completion; never blocks beyond the dependency's short lock. The call
    /// starts service at once if a slot is free and nobody is queued, otherwise it queues (FIFO), or is
    /// rejected with [`crate::CallError::Overloaded`] if the queue is at `queue_limit`. After shutdown it
    /// resolves at once with [`crate::CallError::ShutDown`]. The reply's value is [`Dependency::answer`]`(input)`.
    pub fn call(&self, input: u64) -> Completion {
        let shared = &self.handle.shared;
        let issued = Instant::now();
        let (completer, completion) = Completion::pending();
        let admission = lock(&shared.core).issue(input, issued, completer, &shared.config, &shared.shards);
        match admission.notify {
            Notify::Nobody => {}
            Notify::One(shard) => shared.shards[shard].notify(),
            Notify::All => shared.shards.iter().for_each(Shard::notify),
        }
        if let Some((completer, error)) = admission.refused {
            completer.complete(Err(error));
        }
        completion
    }

    /// The value a call with `input` replies with: `input * 0x9E37_79B9_7F4A_7C15 ^ (input >> 29)` (wrapping),
    /// a cheap mix that is not the identity (except at 0), so callers can verify every reply.
    pub fn answer(input: u64) -> u64 {
        input.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (input >> 29)
    }

    /// The counters so far.
    pub fn stats(&self) -> Stats {
        lock(&self.handle.shared.core).stats()
    }

    /// The per-window records since [`Dependency::start`], up to now (or to shutdown).
    pub fn timeline(&self) -> Timeline {
        let now = Instant::now();
        lock(&self.handle.shared.core).recorder.timeline(now)
    }

    /// The capacity in force now (`usize::MAX` = unlimited).
    pub fn capacity(&self) -> usize {
        lock(&self.handle.shared.core).capacity()
    }

    /// Sets the capacity now (`usize::MAX` = unlimited), whatever the schedule says: a drop triggered by time
    /// or by the caller's own state rather than by a call's index. Calls in service keep their slots (a drop
    /// preempts nobody); queued calls start at once in slots a rise frees. [`Stats::capacity_changed_at`]
    /// records the first change, scheduled or set. Ignored after shutdown.
    pub fn set_capacity(&self, capacity: usize) {
        let shared = &self.handle.shared;
        let notify = lock(&shared.core).set_capacity(capacity, Instant::now(), &shared.shards);
        match notify {
            Notify::Nobody => {}
            Notify::One(shard) => shared.shards[shard].notify(),
            Notify::All => shared.shards.iter().for_each(Shard::notify),
        }
    }

    /// The config the dependency was started with.
    pub fn config(&self) -> &Config {
        &self.handle.shared.config
    }

    /// CPU time used so far by the timer threads together (user plus system; still counted after they exit), so
    /// the lab can report it apart from a contestant's own CPU. Zero on systems other than Linux.
    pub fn timer_cpu(&self) -> Duration {
        self.handle.shared.clocks.iter().map(ThreadCpu::read).sum()
    }

    /// Kernel thread ids (as in `/proc/self/task/<tid>`) of the timer threads still running.
    pub fn timer_thread_ids(&self) -> Vec<u32> {
        self.handle.shared.clocks.iter().filter_map(ThreadCpu::tid).collect()
    }

    /// Stops the dependency: later calls resolve at once with [`crate::CallError::ShutDown`], every queued or
    /// in-service call resolves with it too (a timer that has already fired still delivers its reply), and the
    /// timer threads are joined before this returns. Idempotent; also done when the last clone is dropped.
    pub fn shutdown(&self) {
        self.handle.shutdown();
    }
}

impl Handle {
    fn shutdown(&self) {
        let shared = &self.shared;
        let cancelled = lock(&shared.core).shut_down(Instant::now(), &shared.shards);
        for completer in cancelled {
            completer.complete(Err(crate::CallError::ShutDown));
        }
        // Held while joining, so a concurrent shutdown returns only once the threads are gone.
        let mut threads = lock(&self.threads);
        let me = thread::current().id();
        for thread in threads.drain(..) {
            // A timer thread cannot join itself (it could hold the last handle via a waker); it exits on its own.
            if thread.thread().id() != me {
                let _ = thread.join();
            }
        }
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.shutdown();
    }
}

impl Shared {
    /// Timer thread `shard`'s deadlines in `batch` fired at `fired`: free their slots, start queued calls, then
    /// complete the batch outside every lock.
    pub(crate) fn finish(&self, shard: usize, batch: &mut Vec<InService>, fired: Instant) {
        lock(&self.core).release(batch.len(), fired, &self.shards[shard]);
        for entry in batch.drain(..) {
            let InService { started, call, .. } = entry;
            let value = Dependency::answer(call.input);
            let reply = Reply { value, issued: call.issued, started, finished: fired };
            call.completer.complete(Ok(reply));
        }
    }
}

/// The body of timer thread `index`: set up, say so on `ready`, then fire the deadlines of its shard until the
/// dependency shuts down.
fn timer_thread(shared: Arc<Shared>, index: usize, ready: mpsc::Sender<()>) {
    set_timer_slack();
    let _tracking = shared.clocks[index].track_current();
    // The receiver only goes away if start() already failed; the shard is closed then and the loop ends.
    let _ = ready.send(());
    drop(ready);
    let shard = &shared.shards[index];
    let mut batch = Vec::new();
    while let Some(fired) = shard.next_batch(&mut batch) {
        shared.finish(index, &mut batch, fired);
    }
}

/// Sets the calling thread's timer slack to 1 ns (the default 50 µs would let the kernel defer every wake-up).
#[cfg(target_os = "linux")]
fn set_timer_slack() {
    // SAFETY: PR_SET_TIMERSLACK takes one integer argument and only affects the calling thread. If it fails
    // the thread keeps the default slack, which only costs precision.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong);
    }
}

#[cfg(not(target_os = "linux"))]
fn set_timer_slack() {}

impl fmt::Debug for Dependency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dependency")
            .field("config", &self.handle.shared.config)
            .field("capacity", &self.capacity())
            .finish_non_exhaustive()
    }
}
