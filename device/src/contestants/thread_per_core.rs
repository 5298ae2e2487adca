//! Thread-per-core (`stream-thread-per-core`): one current-thread tokio runtime per core the process may use, each on its own OS thread, each running `buffer_unordered(its share of limit)` over every n-th item.
//!
//! There are as many shards as `std::thread::available_parallelism()` gives the trial process (which honours its CPU
//! pin), fewer only when the limit is smaller; the limit is split as evenly as it goes, so the shares add up to it
//! exactly. The shard threads and their runtimes are built in [`Contestant::prepare`](super::Contestant::prepare),
//! before any clock starts, and wait for orders between runs. A run builds each shard's pipeline, calls `go`, then
//! hands every shard its pipeline at once (the threads are already parked on their order channel: the start line). Each
//! shard spawns its pipeline as one task on its own runtime (wrapped in [`tokio::task::coop::unconstrained`] in the
//! `-unconstrained` variant), as the multi-thread shapes do.
//!
//! The deadline and the caller's cancel are watched by the calling thread alone (one small current-thread
//! runtime of its own, with no thread: [`crate::job::Deadline::cancelled`] wakes one waiter), which tells every
//! shard to cut through one `tokio::sync::watch` channel; each shard aborts its pipeline task, which drops every
//! call it holds, and reports back. The run returns once every shard has reported, so nothing it started is
//! still running and no answer arrives after it returned.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc as std_mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use tokio::runtime::{Handle, Runtime};
use tokio::sync::{mpsc, watch};

use super::stream::{spawn, timed_calls, unordered_share, until_cut, workers};
use crate::job::{Job, JobMeter, RunError, RELEASE_GRACE};

/// Work handed to a shard thread: it runs it with its own runtime.
type Order = Box<dyn FnOnce(&Runtime) + Send>;

/// What one shard reports after a run: `Ok(true)` when its pipeline finished, `Ok(false)` when it was cut.
type ShardOutcome = Result<bool, RunError>;

/// One shard: its OS thread, the channel it takes orders from, and its runtime's handle (for its metrics).
#[derive(Debug)]
struct Shard {
    orders: Option<std_mpsc::Sender<Order>>,
    handle: Handle,
    thread: Option<JoinHandle<()>>,
}

/// The prepared shards of a thread-per-core contestant, and the calling thread's own small runtime that watches
/// the deadline.
#[derive(Debug)]
pub struct Shards {
    shards: Vec<Shard>,
    watcher: Runtime,
    /// A run gave up waiting for a shard: its thread may never end, so dropping the shards does not join them.
    stuck: AtomicBool,
}

/// A current-thread runtime with timers, as every shard and the watcher run.
fn current_thread() -> Result<Runtime, RunError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .map_err(|e| RunError::Broken(format!("could not start a current-thread tokio runtime: {e}")))
}

impl Shards {
    /// One shard per core ([`workers`]), each a current-thread runtime on a thread of its own (`tpc-shard-k`),
    /// waiting for orders.
    pub(crate) fn start() -> Result<Shards, RunError> {
        let cores = workers();
        let mut shards = Vec::with_capacity(cores);
        for k in 0..cores {
            let runtime = current_thread()?;
            let handle = runtime.handle().clone();
            let (orders, inbox) = std_mpsc::channel::<Order>();
            let thread = std::thread::Builder::new()
                .name(format!("tpc-shard-{k}"))
                .spawn(move || {
                    while let Ok(order) = inbox.recv() {
                        order(&runtime);
                    }
                })
                .map_err(|e| RunError::Broken(format!("could not start shard thread {k}: {e}")))?;
            shards.push(Shard { orders: Some(orders), handle, thread: Some(thread) });
        }
        Ok(Shards { shards, watcher: current_thread()?, stuck: AtomicBool::new(false) })
    }

    /// Tasks still alive on the shards' runtimes: after a run returns, anything but 0 is work it left behind.
    pub(crate) fn live_tasks(&self) -> usize {
        self.shards.iter().map(|s| s.handle.metrics().num_alive_tasks()).sum()
    }

    /// Hand `order` to shard `k`; `false` if its thread is gone.
    fn send(&self, k: usize, order: Order) -> bool {
        self.shards.get(k).and_then(|s| s.orders.as_ref()).is_some_and(|orders| orders.send(order).is_ok())
    }

    /// Run `job` sharded across the runtimes; `go` is called once every shard's pipeline is built, right before
    /// they are handed out. Returns once every shard has finished, or once the deadline passed (or the caller
    /// cancelled) and every shard has let go of its calls.
    pub(crate) fn run<M: JobMeter>(&self, free: bool, job: &Job<M>, go: &mut dyn FnMut()) -> Result<(), RunError> {
        // As many shards as the bound allows, so every shard has at least one call in flight.
        let shards = self.shards.len().min(job.limit.max(1));
        let pipelines: Vec<_> = (0..shards).map(|k| unordered_share(job.clone(), k, shards)).collect();
        let (cut, cut_seen) = watch::channel(false);
        let (done, mut reports) = mpsc::unbounded_channel::<ShardOutcome>();
        go();
        let mut handed = 0;
        for (k, pipeline) in pipelines.into_iter().enumerate() {
            let (mut cut_seen, done) = (cut_seen.clone(), done.clone());
            let order: Order = Box::new(move |runtime: &Runtime| {
                let outcome = runtime.block_on(async move {
                    let outcome = until_cut(spawn(free, pipeline), cut_seen.wait_for(|cut| *cut)).await;
                    // A cut task is gone once the runtime has released it.
                    while !matches!(outcome, Ok(true)) && Handle::current().metrics().num_alive_tasks() > 0 {
                        tokio::time::sleep(Duration::from_millis(1)).await;
                    }
                    outcome
                });
                let _ =
                    done.send(outcome.map_err(|e| RunError::Broken(format!("shard {k}'s pipeline task failed: {e}"))));
            });
            if !self.send(k, order) {
                break;
            }
            handed += 1;
        }
        drop(done);
        if handed < shards {
            // A shard thread is gone: stop the shards already running and report the breakage.
            let _ = cut.send(true);
        }
        let outcomes = self.watcher.block_on(async move {
            // The time budget, or the caller's cancellation, whichever comes first: every shard is cut either way.
            let budget = job.deadline.reached();
            tokio::pin!(budget);
            let mut outcomes = Vec::with_capacity(handed);
            let mut give_up = None;
            while outcomes.len() < handed {
                let grace = async {
                    match give_up {
                        Some(at) => tokio::time::sleep_until(at).await,
                        None => std::future::pending().await,
                    }
                };
                tokio::select! {
                    biased;
                    report = reports.recv() => match report {
                        Some(outcome) => outcomes.push(outcome),
                        None => break,
                    },
                    () = &mut budget, if give_up.is_none() => {
                        let _ = cut.send(true);
                        give_up = Some(tokio::time::Instant::now() + RELEASE_GRACE);
                    }
                    () = grace => {
                        return Err(RunError::Broken(format!(
                            "{} of {handed} shards still running {RELEASE_GRACE:?} after the deadline",
                            handed - outcomes.len()
                        )));
                    }
                }
            }
            Ok(outcomes)
        });
        let outcomes = outcomes.inspect_err(|_| self.stuck.store(true, Ordering::Relaxed))?;
        if handed < shards {
            return Err(RunError::Broken(format!("{} of {shards} shard threads are gone", shards - handed)));
        }
        if outcomes.len() < handed {
            return Err(RunError::Broken(format!("{} of {handed} shards never reported", handed - outcomes.len())));
        }
        outcomes.into_iter().try_for_each(|o| o.map(drop))
    }

    /// `n` calls of `job`'s kind one after another on the first shard's runtime, each timed: an idle call's real
    /// duration.
    pub(crate) fn idle_calls<M: JobMeter>(&self, job: &Job<M>, n: u32) -> Vec<Duration> {
        let call = job.call.clone();
        let (tx, rx) = std_mpsc::channel();
        let order: Order = Box::new(move |runtime: &Runtime| {
            let times = runtime.block_on(timed_calls(call, n));
            let _ = tx.send(times);
        });
        if !self.send(0, order) {
            return Vec::new();
        }
        rx.recv().unwrap_or_default()
    }
}

impl Drop for Shards {
    /// Close every shard's order channel, so its thread ends, and join them (unless a run gave up on one).
    fn drop(&mut self) {
        for shard in &mut self.shards {
            shard.orders = None;
        }
        if self.stuck.load(Ordering::Relaxed) {
            return;
        }
        for shard in &mut self.shards {
            if let Some(thread) = shard.thread.take() {
                let _ = thread.join();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use measure::gauge::Outstanding;
    use measure::meter::GaugeMeter;

    use super::*;
    use crate::call::{expected_sum, Call};
    use crate::job::{Deadline, Shared};

    #[test]
    fn one_shard_per_core_and_the_shares_add_up_to_the_limit_exactly() {
        let shards = Shards::start().expect("shards");
        assert_eq!(shards.shards.len(), workers());
        // An odd limit, so the shares differ by one where there are two shards or more; calls long enough that
        // every shard fills its share before the first answer.
        for limit in [1, 5] {
            let gauge = Arc::new(Outstanding::new());
            let shared = Arc::new(Shared::new(GaugeMeter::new(Arc::clone(&gauge))));
            let items = 3 * limit as u64;
            let job = Job {
                items,
                limit,
                call: Call::OwnTimer(Duration::from_millis(50)),
                deadline: Deadline::new(Duration::from_secs(20)),
                shared: Arc::clone(&shared),
            };
            shards.run(false, &job, &mut || job.deadline.start()).expect("the run completes");
            let totals = shared.outcome();
            assert_eq!((totals.completed, totals.sum), (items, expected_sum(items)), "limit {limit}");
            assert_eq!(gauge.high_water(), limit as i64, "limit {limit}: every shard full, none over its share");
            assert_eq!((gauge.current(), shards.live_tasks()), (0, 0), "limit {limit}");
        }
    }
}
