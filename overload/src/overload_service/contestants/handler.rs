//! How the service's families receive an arrival: what one run's handlers share ([`Calls`]), what a contestant
//! keeps across its runs ([`Prepared`]) and one run's handler of arrivals ([`Handler`]), with the steps every
//! family takes for a call in the same order (see the registry, `contestants/mod.rs`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use dependency::{CallResult, Dependency};
use pipelines::LiveStages;
use tokio::runtime::Runtime;

use crate::book::{Book, Fate};
use crate::error::RunError;
use crate::job::{coroutine_config as coroutines, THREAD_STACK_BYTES};
use crate::limit::{Gate, Outcome, Permit};

/// What one run's handlers share: the dependency, the gate, the book, the schedule and the deadline.
#[derive(Debug)]
pub struct Calls {
    /// The dependency every call goes to.
    pub dependency: Dependency,
    /// The admission gate (`None`: unbounded).
    pub gate: Option<Arc<Gate>>,
    /// Where every arrival's fate is written.
    pub book: Book,
    /// Scheduled start of every arrival, µs from the book's start.
    pub schedule: Arc<[u64]>,
    /// The deadline, in µs from the scheduled start.
    pub deadline_us: u64,
    /// Handlers started and not yet returned.
    pub live: AtomicU64,
}

impl Calls {
    /// Ask the gate for arrival `index`: `None` when it was shed (already recorded), else the permit (`None`
    /// inside when there is no gate).
    pub fn admit(&self, index: u64) -> Option<Option<Permit>> {
        match &self.gate {
            None => Some(None),
            Some(gate) => match gate.try_acquire() {
                Some(permit) => Some(Some(permit)),
                None => {
                    self.book.record(index, Fate::Shed, Instant::now());
                    None
                }
            },
        }
    }

    /// Record arrival `index`'s result as its caller sees it now, and release its permit: a right answer within
    /// the deadline is a success, a late one or a rejection a drop, any other failure is not measured.
    pub fn finish(&self, index: u64, result: CallResult, permit: Option<Permit>) {
        let seen = Instant::now();
        let fate = match &result {
            Ok(reply) if reply.value == Dependency::answer(index) => Fate::Answered,
            Ok(_) => Fate::Wrong,
            Err(_) => Fate::Failed,
        };
        if let Some(permit) = permit {
            let scheduled = usize::try_from(index).ok().and_then(|i| self.schedule.get(i)).copied().unwrap_or(0);
            let since_start = u64::try_from(seen.saturating_duration_since(self.book.start()).as_micros()).unwrap_or(0);
            let late = since_start.saturating_sub(scheduled) > self.deadline_us;
            let outcome = match (&result, late) {
                (Ok(_), false) => Outcome::Success,
                (Ok(_), true) | (Err(dependency::CallError::Overloaded), _) => Outcome::Dropped,
                (Err(_), _) => Outcome::Ignore,
            };
            permit.finish(seen, outcome);
        }
        self.book.record(index, fate, seen);
    }

    /// One admitted arrival handled by a thread or coroutine that may block: call, wait, finish.
    fn serve_blocking(&self, index: u64, permit: Option<Permit>) {
        let result = self.dependency.call(index).wait();
        self.finish(index, result, permit);
        self.live.fetch_sub(1, Ordering::AcqRel);
    }

    /// One admitted arrival handled by a task: call, await, finish.
    async fn serve_async(self: Arc<Self>, index: u64, permit: Option<Permit>) {
        let result = self.dependency.call(index).await;
        self.finish(index, result, permit);
        self.live.fetch_sub(1, Ordering::AcqRel);
    }
}

/// What a contestant keeps across the runs of its trial.
#[derive(Debug)]
pub enum Prepared {
    /// The tokio runtime its tasks run on.
    Tasks(Runtime),
    /// Its coroutines' live count.
    Coroutines(Arc<LiveStages>),
    /// A thread pool, started per run.
    Pool,
}

/// One run's handler of arrivals, ready before the run's clock starts.
#[derive(Debug)]
pub enum Handler<'a> {
    /// Spawns a task per arrival.
    Tasks(&'a Runtime),
    /// Spawns a coroutine per arrival.
    Coroutines(&'a Arc<LiveStages>),
    /// Sends each arrival to the pool's threads.
    Pool {
        /// The pool's channel (dropped to stop it).
        sender: Option<crossbeam_channel::Sender<(u64, Option<Permit>)>>,
        /// Its threads.
        threads: Vec<JoinHandle<()>>,
    },
}

impl Prepared {
    /// The handler of one run over `calls`: a blocking pool of `threads` threads is started here, parked on its
    /// channel before the clock starts.
    pub fn handler(&self, calls: &Arc<Calls>, threads: usize) -> Result<Handler<'_>, RunError> {
        match self {
            Prepared::Tasks(runtime) => Ok(Handler::Tasks(runtime)),
            Prepared::Coroutines(live) => Ok(Handler::Coroutines(live)),
            Prepared::Pool => {
                let (sender, receiver) = crossbeam_channel::unbounded::<(u64, Option<Permit>)>();
                let mut pool = Vec::with_capacity(threads);
                for n in 0..threads.max(1) {
                    let (receiver, calls) = (receiver.clone(), Arc::clone(calls));
                    let spawned = thread::Builder::new()
                        .name(format!("service-{n}"))
                        .stack_size(THREAD_STACK_BYTES)
                        .spawn(move || {
                            for (index, permit) in receiver {
                                calls.serve_blocking(index, permit);
                            }
                        });
                    match spawned {
                        Ok(thread) => pool.push(thread),
                        Err(e) => {
                            drop(sender);
                            pool.into_iter().for_each(|t| {
                                let _ = t.join();
                            });
                            return Err(RunError::Thread { n, threads, source: e });
                        }
                    }
                }
                Ok(Handler::Pool { sender: Some(sender), threads: pool })
            }
        }
    }
}

impl Handler<'_> {
    /// Ask the gate for arrival `index` as it arrives and, if admitted, hand it over without waiting for it.
    pub fn submit(&self, calls: &Arc<Calls>, index: u64) -> Result<(), RunError> {
        let Some(permit) = calls.admit(index) else {
            return Ok(());
        };
        calls.live.fetch_add(1, Ordering::AcqRel);
        match self {
            Handler::Tasks(runtime) => {
                drop(runtime.spawn(Arc::clone(calls).serve_async(index, permit)));
                Ok(())
            }
            Handler::Coroutines(live) => {
                let calls = Arc::clone(calls);
                pipelines::coroutine::spawn("arrival", coroutines().stack_words, live, move || {
                    calls.serve_blocking(index, permit)
                })
                .map(drop)
                .map_err(RunError::Coroutine)
            }
            Handler::Pool { sender, .. } => {
                sender.as_ref().ok_or(RunError::PoolClosed)?.send((index, permit)).map_err(|_| RunError::PoolGone)
            }
        }
    }

    /// Wait until every handler of the run has returned (at most `limit`), then stop the pool's threads.
    pub fn close(self, calls: &Calls, limit: Duration) -> Result<(), RunError> {
        let began = Instant::now();
        let live = || match &self {
            Handler::Coroutines(stages) => stages.current() as u64,
            _ => 0,
        };
        while calls.live.load(Ordering::Acquire) > 0 || live() > 0 {
            if began.elapsed() > limit {
                return Err(RunError::Undrained { live: calls.live.load(Ordering::Acquire), limit });
            }
            thread::sleep(Duration::from_millis(1));
        }
        if let Handler::Pool { mut sender, threads } = self {
            drop(sender.take());
            for thread in threads {
                thread.join().map_err(|_| RunError::ThreadPanicked)?;
            }
        }
        Ok(())
    }
}
