//! The service's contestants: how each family handles an arrival. One load generator (an OS thread outside every
//! runtime, as requests come from the network) follows the schedule and hands each arrival over the way the
//! family receives a request:
//!
//! - `stream-<limiter>`: a tokio task per admitted arrival, spawned onto a multi-thread runtime (one worker per
//!   CPU), as a hyper or axum server spawns one per request; the task awaits the call.
//! - `blocking-<limiter>`: a pool of OS threads (128 KiB stacks) as large as the limiter's ceiling, fed through
//!   one crossbeam channel, as a servlet container's worker pool is; the thread that takes the arrival waits on
//!   the call. Only the gate bounds what is admitted, so no admitted arrival waits for a thread.
//! - `coroutine-<limiter>`: a `may` coroutine per admitted arrival (one carrier per CPU), as a virtual thread per
//!   request; it waits on the call, parking the coroutine.
//! - `<family>-unbounded`: the same without a gate; the blocking pool then has `unbounded-threads` threads and
//!   arrivals beyond them wait in its channel.
//!
//! Every family takes the same steps in the same order: the gate is asked as the arrival is handed over
//! ([`Calls::admit`], on the generator's thread, the same event in every family), then the call, then
//! [`Calls::finish`]. A full limit sheds the arrival at once (Netflix's `SimpleLimiter.acquire` returns empty;
//! asking inside a blocking pool's thread instead would queue arrivals for a thread and never shed), and a reply later than the
//! deadline from the arrival's scheduled start is reported to the limiter as a drop. The caller still waits for
//! that reply (the dependency cannot know the caller gave up), so the gate's count is what the dependency holds.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use dependency::{CallResult, Dependency};
use measure::summary::{ContestantInfo, Family, Role};
use pipelines::LiveStages;
use tokio::runtime::Runtime;

use crate::book::{Book, Fate};
use crate::config::limiter_description;
use crate::error::RunError;
use crate::job::{coroutine_config as coroutines, THREAD_STACK_BYTES};
use crate::limit::{Gate, LimiterKind, Outcome, Permit};

/// The limiters every family runs in the service, in report order.
pub const LIMITERS: [LimiterKind; 4] =
    [LimiterKind::Fixed, LimiterKind::Aimd, LimiterKind::Gradient2, LimiterKind::Vegas];

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

/// One contestant of the service: a family, and the limiter of its gate (`None`: unbounded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServiceContestant {
    /// Its family.
    pub family: Family,
    /// Its limiter (`None`: no gate).
    pub limiter: Option<LimiterKind>,
}

impl ServiceContestant {
    /// Every contestant, in report order: each family with every limiter, then each family unbounded.
    pub fn all() -> Vec<ServiceContestant> {
        let families = [Family::Stream, Family::Blocking, Family::Coroutine];
        let mut all: Vec<ServiceContestant> = families
            .iter()
            .flat_map(|&family| LIMITERS.iter().map(move |&kind| ServiceContestant { family, limiter: Some(kind) }))
            .collect();
        all.extend(families.iter().map(|&family| ServiceContestant { family, limiter: None }));
        all
    }

    /// The contestant named `name`.
    pub fn find(name: &str) -> Option<ServiceContestant> {
        ServiceContestant::all().into_iter().find(|c| c.name() == name)
    }

    /// `<family>-<limiter>` or `<family>-unbounded`.
    pub fn name(&self) -> String {
        format!("{}-{}", self.family.as_str(), self.limiter.map_or("unbounded", LimiterKind::name))
    }

    /// Name, family, role and description for reports.
    pub fn info(&self) -> ContestantInfo {
        let handler = match self.family {
            Family::Stream => {
                "a tokio task per arrival on a multi-thread runtime (one worker per CPU), spawned by the load \
                 generator as a server spawns one per request"
                    .to_string()
            }
            Family::Blocking if self.limiter.is_some() => "a pool of OS threads (128 KiB stacks) as large as the \
                               limiter's ceiling, started before timing and fed through one crossbeam channel"
                .to_string(),
            Family::Blocking => "a pool of `unbounded-threads` OS threads (128 KiB stacks, default 2,000), started \
                                 before timing and fed through one crossbeam channel: arrivals beyond them wait in \
                                 the channel"
                .to_string(),
            _ => format!("a `may` coroutine per arrival ({})", coroutines().describe()),
        };
        let description = match self.limiter {
            Some(kind) => format!(
                "{handler}; each asks the gate without waiting (`try_acquire`: a full limit sheds the arrival) and \
                 waits on its call; {}",
                limiter_description(kind)
            ),
            None => format!("{handler}; no admission control: every arrival is called"),
        };
        let role = if self.limiter.is_some() { Role::Candidate } else { Role::Pathology };
        ContestantInfo::new(self.name(), self.family, description).with_role(role)
    }

    /// What the contestant builds once per trial process (a runtime; `may`'s carriers).
    pub fn prepare(&self) -> Result<Prepared, RunError> {
        match self.family {
            Family::Stream => {
                let runtime = tokio::runtime::Builder::new_multi_thread()
                    .thread_name("service-worker")
                    .build()
                    .map_err(RunError::Runtime)?;
                Ok(Prepared::Tasks(runtime))
            }
            Family::Coroutine => {
                coroutines().apply();
                Ok(Prepared::Coroutines(Arc::new(LiveStages::new())))
            }
            _ => Ok(Prepared::Pool),
        }
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
