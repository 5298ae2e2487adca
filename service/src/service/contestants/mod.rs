//! Every contestant of the service scenario: a style's request path, as its experts write a service, each with
//! the same admission bound (`admission`: requests inside the service at once, an arrival beyond is shed at the
//! door), the same bound on calls to the dependency (`dependency-bound`), the same channel room between stages
//! (`queue`) and runtimes sized to the cores. [`Contestant`] is the registry.
//!
//! | name | the request path |
//! |---|---|
//! | `stream-buffer-unordered` | one stream of requests (`ReceiverStream` of a bounded `tokio::sync::mpsc`): `map` each to a spawned task running its stages in turn, `buffer_unordered(queue)`, then `map` to the dependency call, `buffer_unordered(dependency-bound)`, `for_each` reply |
//! | `stream-stage-tasks` | a tokio task per stage behind bounded `mpsc` channels of `queue`, then a stream of the last channel calling the dependency under `buffer_unordered(dependency-bound)` |
//! | `blocking-stage-threads` | an OS thread per stage behind bounded crossbeam channels of `queue`, then a pool of `dependency-bound` threads each making one blocking call at a time |
//! | `blocking-pool` | a pool of `dependency-bound` threads fed by one bounded crossbeam channel, each thread running a whole request: its stages in turn, the blocking call, the reply |
//! | `coroutine-per-request` | a `may` coroutine per admitted request running its stages in turn, then the call under a `may::sync::Semphore` of `dependency-bound` permits |
//! | `coroutine-stage-coroutines` | a `may` coroutine per stage behind bounded channels of `queue` ([`pipelines::coroutine::bounded`]), then `dependency-bound` coroutines each making one call at a time |
//!
//! The load generator (an OS thread outside every runtime, as requests come from the network) asks
//! [`Requests::admit`] for each arrival and hands the admitted ones over ([`Running::submit`]); the entry of every
//! style has room for every admitted request, so the generator never waits on a style.

mod blocking;
mod coroutine;
pub mod run;
mod stream;

use std::sync::Arc;
use std::time::{Duration, Instant};

use measure::summary::{ContestantInfo, Family};
use pipelines::LiveStages;
use tokio::runtime::Runtime;

use crate::config::ServiceConfig;
use crate::error::RunError;
use crate::requests::Requests;

measure::registry! {
    /// A contestant of the service scenario.
    Contestant {
        /// One stream of requests with `buffer_unordered`.
        StreamBufferUnordered => "stream-buffer-unordered",
        /// A tokio task per stage behind bounded channels.
        StreamStageTasks => "stream-stage-tasks",
        /// An OS thread per stage behind bounded channels, a pool for the calls.
        BlockingStageThreads => "blocking-stage-threads",
        /// A bounded pool of threads, one request per thread at a time.
        BlockingPool => "blocking-pool",
        /// A coroutine per request.
        CoroutinePerRequest => "coroutine-per-request",
        /// A coroutine per stage behind bounded channels, coroutines for the calls.
        CoroutineStageCoroutines => "coroutine-stage-coroutines",
    }
}

/// A service that has started and takes requests until it is closed.
pub trait Running {
    /// Take admitted request `index`, without waiting.
    fn submit(&self, index: u64) -> Result<(), RunError>;

    /// Close the entry, wait (at most `limit`) until every admitted request is answered, and end every thread,
    /// task and coroutine the service started.
    fn close(self: Box<Self>, requests: &Requests, limit: Duration) -> Result<(), RunError>;
}

/// What a contestant keeps across the runs of its trial.
#[derive(Debug)]
pub enum Prepared {
    /// The tokio runtime its tasks run on (one worker per CPU).
    Runtime(Runtime),
    /// Nothing: its threads are started per run, parked before the clock starts.
    Threads,
    /// Its coroutines' live count (`may` configured with one carrier per CPU).
    Coroutines(Arc<LiveStages>),
}

impl Contestant {
    /// Its family.
    pub fn family(self) -> Family {
        match self {
            Contestant::StreamBufferUnordered | Contestant::StreamStageTasks => Family::Stream,
            Contestant::BlockingStageThreads | Contestant::BlockingPool => Family::Blocking,
            Contestant::CoroutinePerRequest | Contestant::CoroutineStageCoroutines => Family::Coroutine,
        }
    }

    /// Name, family and description for reports.
    pub fn info(&self) -> ContestantInfo {
        let description = match self {
            Contestant::StreamBufferUnordered => {
                "one stream of requests (a bounded tokio `mpsc` as a `ReceiverStream`): each `map`ped to a spawned \
                 task running its stages in turn, `buffer_unordered(queue)`, then `map`ped to the dependency call, \
                 `buffer_unordered(dependency-bound)`, `for_each` reply; tokio's multi-thread runtime, one worker \
                 per CPU"
            }
            Contestant::StreamStageTasks => {
                "a tokio task per stage behind bounded `mpsc` channels of `queue`, then a stream of the last channel \
                 calling the dependency under `buffer_unordered(dependency-bound)`; one worker per CPU"
            }
            Contestant::BlockingStageThreads => {
                "an OS thread per stage behind bounded crossbeam channels of `queue`, then a pool of \
                 `dependency-bound` threads each making one blocking call at a time"
            }
            Contestant::BlockingPool => {
                "a pool of `dependency-bound` OS threads fed by one bounded crossbeam channel, each running a whole \
                 request at a time: its stages in turn, the blocking call, the reply"
            }
            Contestant::CoroutinePerRequest => {
                "a `may` coroutine per admitted request (one carrier per CPU) running its stages in turn, then the \
                 call under a `may::sync::Semphore` of `dependency-bound` permits"
            }
            Contestant::CoroutineStageCoroutines => {
                "a `may` coroutine per stage behind bounded channels of `queue`, then `dependency-bound` coroutines \
                 each making one call at a time (one carrier per CPU)"
            }
        };
        ContestantInfo::new(self.name(), self.family(), description)
    }

    /// What the contestant builds once per trial process.
    pub fn prepare(self) -> Result<Prepared, RunError> {
        match self.family() {
            Family::Stream => tokio::runtime::Builder::new_multi_thread()
                .thread_name("service-worker")
                .enable_time()
                .build()
                .map(Prepared::Runtime)
                .map_err(RunError::Runtime),
            Family::Coroutine => {
                overload::job::coroutine_config().apply();
                Ok(Prepared::Coroutines(Arc::new(LiveStages::new())))
            }
            _ => Ok(Prepared::Threads),
        }
    }

    /// Start the service for one run over `requests`.
    pub fn start<'a>(
        self,
        prepared: &'a Prepared,
        requests: &Arc<Requests>,
        config: &ServiceConfig,
    ) -> Result<Box<dyn Running + 'a>, RunError> {
        match (self, prepared) {
            (Contestant::StreamBufferUnordered, Prepared::Runtime(runtime)) => {
                Ok(Box::new(stream::buffer_unordered(runtime, requests, config)))
            }
            (Contestant::StreamStageTasks, Prepared::Runtime(runtime)) => {
                Ok(Box::new(stream::stage_tasks(runtime, requests, config)))
            }
            (Contestant::BlockingStageThreads, _) => Ok(Box::new(blocking::stage_threads(requests, config)?)),
            (Contestant::BlockingPool, _) => Ok(Box::new(blocking::pool(requests, config)?)),
            (Contestant::CoroutinePerRequest, Prepared::Coroutines(live)) => {
                Ok(Box::new(coroutine::per_request(live, requests, config)))
            }
            (Contestant::CoroutineStageCoroutines, Prepared::Coroutines(live)) => {
                Ok(Box::new(coroutine::stage_coroutines(live, requests, config)?))
            }
            _ => Err(RunError::Runtime(std::io::Error::other("prepared for another family"))),
        }
    }
}

/// Wait (at most `limit`, polling every millisecond) until `requests` has nothing outstanding and `idle` holds.
pub(crate) fn drain(requests: &Requests, limit: Duration, idle: impl Fn() -> bool) -> Result<(), RunError> {
    let began = Instant::now();
    while requests.outstanding.now() > 0 || !idle() {
        if began.elapsed() > limit {
            return Err(RunError::Undrained { outstanding: requests.outstanding.now(), limit });
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    Ok(())
}
