//! The blocking family: a pool of parked OS threads pulling items from a shared counter, worker threads fed by
//! a bounded channel (crossbeam, flume or std), and a thread per item capped only by what the OS allows.
//!
//! Pools start parked on a gate ([`pipelines::blocking::parked_pool`]) and are released at once, so spawning
//! stays out of the timed window and every thread starts on equal terms; a pool the OS cannot make is
//! skipped with the OS's reason, never run smaller. Threads stop taking new items at the deadline and finish
//! the call they are in. Every shape tells the job how many threads it started
//! ([`crate::job::Shared::started_threads`]: once per pool, once per run for a thread per item), which the
//! conformance check `skips_with_reason` reads.

use std::collections::VecDeque;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use measure::limits::ThreadLimits;
use pipelines::blocking::parked_pool::{run_parked, PoolError};

use crate::call::Call;
use crate::job::{Deadline, Job, JobMeter, RunError};

/// Stack of every thread a blocking contestant starts: 64 KiB, room for a call and its wait with margin, and
/// small enough that tens of thousands of threads cost little memory.
pub const THREAD_STACK_BYTES: usize = 64 * 1024;

/// Threads left to the rest of the machine when sizing against the OS's limits.
pub const THREAD_MARGIN: u64 = 512;

/// The bounded channel feeding worker threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelFlavor {
    /// `crossbeam_channel::bounded`, receivers shared by every worker.
    Crossbeam,
    /// `flume::bounded`, sync `recv`, receivers shared by every worker.
    Flume,
    /// `std::sync::mpsc::sync_channel`, its single receiver behind a `Mutex` the workers take turns on.
    Std,
}

impl ChannelFlavor {
    /// Short name used in contestant names.
    pub fn name(self) -> &'static str {
        match self {
            ChannelFlavor::Crossbeam => "crossbeam",
            ChannelFlavor::Flume => "flume",
            ChannelFlavor::Std => "std",
        }
    }
}

/// How the blocking contestant bounds and runs its calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockingShape {
    /// `limit` parked threads, each taking the next item from a shared counter and blocking on its call.
    Pool,
    /// A producer thread sending items into a bounded channel of `limit` slots, `limit` worker threads
    /// receiving and calling.
    ChannelWorkers(ChannelFlavor),
    /// A thread spawned per item as the run goes, with no admission control: only when the OS refuses another
    /// thread, or the number alive reaches what the OS's limits allow, does the spawner wait for the oldest.
    ThreadPerItem,
}

/// Whether `threads` more threads fit on this machine; the OS's limits as the reason if not.
pub(crate) fn threads_fit(threads: usize) -> Result<(), RunError> {
    match ThreadLimits::read().refuse(threads as u64, THREAD_MARGIN) {
        None => Ok(()),
        Some(reason) => Err(RunError::Skipped(reason)),
    }
}

fn pool_error(e: PoolError) -> RunError {
    match e {
        PoolError::Spawn { .. } => RunError::Skipped(e.to_string()),
        PoolError::Panicked { .. } => RunError::Broken(e.to_string()),
    }
}

/// Run `job` in `shape`; `go` is called once every up-front thread is parked, right before they are released.
pub(crate) fn run<M: JobMeter>(shape: BlockingShape, job: &Job<M>, go: &mut dyn FnMut()) -> Result<(), RunError> {
    match shape {
        BlockingShape::Pool => pool(job, go),
        BlockingShape::ChannelWorkers(flavor) => channel_workers(flavor, job, go),
        BlockingShape::ThreadPerItem => thread_per_item(job, go),
    }
}

/// A parked pool of `threads` threads running `work`, after checking that they fit; the threads it started
/// (all of them, or as many as the OS made before refusing one) are told to the job.
fn parked<M: JobMeter>(
    job: &Job<M>,
    threads: usize,
    go: &mut dyn FnMut(),
    work: impl Fn(usize) + Sync,
) -> Result<(), RunError> {
    threads_fit(threads)?;
    let result = run_parked(threads, THREAD_STACK_BYTES, go, work);
    let started = match &result {
        Err(PoolError::Spawn { started, .. }) => *started,
        Ok(()) | Err(PoolError::Panicked { .. }) => threads,
    };
    job.shared.started_threads(started as u64);
    result.map_err(pool_error)
}

fn pool<M: JobMeter>(job: &Job<M>, go: &mut dyn FnMut()) -> Result<(), RunError> {
    let next = AtomicU64::new(0);
    parked(job, job.limit, go, |_| job.take_from(&next, Call::call_blocking))
}

/// The two ends of a bounded channel, in whichever flavor.
enum Channel {
    Crossbeam(Mutex<Option<crossbeam_channel::Sender<u64>>>, crossbeam_channel::Receiver<u64>),
    Flume(Mutex<Option<flume::Sender<u64>>>, flume::Receiver<u64>),
    Std(Mutex<Option<std::sync::mpsc::SyncSender<u64>>>, Mutex<std::sync::mpsc::Receiver<u64>>),
}

impl Channel {
    fn bounded(flavor: ChannelFlavor, capacity: usize) -> Channel {
        match flavor {
            ChannelFlavor::Crossbeam => {
                let (tx, rx) = crossbeam_channel::bounded(capacity);
                Channel::Crossbeam(Mutex::new(Some(tx)), rx)
            }
            ChannelFlavor::Flume => {
                let (tx, rx) = flume::bounded(capacity);
                Channel::Flume(Mutex::new(Some(tx)), rx)
            }
            ChannelFlavor::Std => {
                let (tx, rx) = std::sync::mpsc::sync_channel(capacity);
                Channel::Std(Mutex::new(Some(tx)), Mutex::new(rx))
            }
        }
    }

    /// The producer: send `0..items` until the deadline or the workers are gone, then close the channel.
    fn produce(&self, items: u64, deadline: &Deadline) {
        fn send_all<T>(sender: &Mutex<Option<T>>, items: u64, deadline: &Deadline, send: impl Fn(&T, u64) -> bool) {
            let Some(tx) = sender.lock().unwrap_or_else(PoisonError::into_inner).take() else { return };
            for i in 0..items {
                if deadline.passed() || !send(&tx, i) {
                    break;
                }
            }
        }
        match self {
            Channel::Crossbeam(tx, _) => send_all(tx, items, deadline, |tx, i| tx.send(i).is_ok()),
            Channel::Flume(tx, _) => send_all(tx, items, deadline, |tx, i| tx.send(i).is_ok()),
            Channel::Std(tx, _) => send_all(tx, items, deadline, |tx, i| tx.send(i).is_ok()),
        }
    }

    /// The next item, or `None` once the channel is closed and empty.
    fn receive(&self) -> Option<u64> {
        match self {
            Channel::Crossbeam(_, rx) => rx.recv().ok(),
            Channel::Flume(_, rx) => rx.recv().ok(),
            Channel::Std(_, rx) => rx.lock().unwrap_or_else(PoisonError::into_inner).recv().ok(),
        }
    }
}

fn channel_workers<M: JobMeter>(flavor: ChannelFlavor, job: &Job<M>, go: &mut dyn FnMut()) -> Result<(), RunError> {
    let channel = Channel::bounded(flavor, job.limit);
    // Thread 0 produces; threads 1..=limit work.
    parked(job, job.limit + 1, go, |index| {
        if index == 0 {
            channel.produce(job.items, &job.deadline);
            return;
        }
        while let Some(i) = channel.receive() {
            job.make(i, Call::call_blocking);
        }
    })
}

/// How long the thread-per-item spawner waits before retrying after the OS refused a thread and none had
/// ended to wait for.
const RETRY_AFTER_REFUSAL: Duration = Duration::from_micros(100);

fn thread_per_item<M: JobMeter>(job: &Job<M>, go: &mut dyn FnMut()) -> Result<(), RunError> {
    let cap = ThreadLimits::read()
        .headroom()
        .map_or(usize::MAX, |room| usize::try_from(room.saturating_sub(THREAD_MARGIN)).unwrap_or(usize::MAX))
        .max(1);
    go();
    let mut alive: VecDeque<JoinHandle<()>> = VecDeque::new();
    let mut panicked = 0usize;
    let mut join = |handle: JoinHandle<()>| {
        if handle.join().is_err() {
            panicked += 1;
        }
    };
    let mut i = 0;
    let mut started = 0u64;
    while i < job.items && !job.deadline.passed() {
        while alive.front().is_some_and(JoinHandle::is_finished) {
            if let Some(done) = alive.pop_front() {
                join(done);
            }
        }
        if alive.len() >= cap {
            if let Some(oldest) = alive.pop_front() {
                join(oldest);
            }
            continue;
        }
        let in_flight = job.shared.in_flight_owned();
        let (call, shared) = (job.call.clone(), Arc::clone(&job.shared));
        let item = i;
        let spawned = thread::Builder::new().stack_size(THREAD_STACK_BYTES).spawn(move || {
            shared.record(call.call_blocking(item));
            drop(in_flight);
        });
        match spawned {
            Ok(handle) => {
                alive.push_back(handle);
                i += 1;
                started += 1;
            }
            // The OS refused: it is the cap. Wait for the oldest thread (or a moment) and try again.
            Err(_) => match alive.pop_front() {
                Some(oldest) => join(oldest),
                None => thread::sleep(RETRY_AFTER_REFUSAL),
            },
        }
    }
    for handle in alive {
        join(handle);
    }
    job.shared.started_threads(started);
    if panicked == 0 {
        Ok(())
    } else {
        Err(RunError::Broken(format!("{panicked} per-item threads panicked")))
    }
}
