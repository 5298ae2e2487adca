//! The overload scenario's contestants: every limiter in both families, plus one unbounded contestant per
//! family.
//!
//! - [`stream`]: `stream-<limiter>`, one demand-driven stream whose concurrent width follows the gate
//!   ([`limited_unordered`](crate::stream_ext::LimitedStreamExt::limited_unordered)) on a multi-thread tokio
//!   runtime.
//! - [`blocking`]: `blocking-<limiter>`, a pool of OS threads as large as the limiter's ceiling, each acquiring
//!   a permit from the gate before every call and waiting on the call's completion.
//! - [`stream_unbounded`]: `stream-unbounded`, `buffer_unordered` as wide as the whole run: every call issued at
//!   once.
//! - [`blocking_unbounded`]: `blocking-unbounded`, as many threads as `unbounded-threads` (the OS caps what is
//!   possible), each issuing calls back to back with no admission control.
//!
//! Every contestant calls the same [`Dependency`] and records each call in the same [`Ledger`] the same way:
//! take the time, issue the call, wait for (or await) its completion, take the time, release the permit with the
//! latency and outcome, record.

pub mod blocking;
pub mod blocking_unbounded;
mod pool;
pub mod stream;
pub mod stream_unbounded;

use std::sync::Arc;
use std::time::{Duration, Instant};

use dependency::{CallError, Dependency, Reply};
use measure::summary::{ContestantInfo, Family};

use crate::config::OverloadConfig;
use crate::config::{limiter_ceiling, limiter_description, LIMITERS};
use crate::ledger::Ledger;
use crate::limit::{Gate, LimiterKind, Outcome, Permit};

/// One contestant: how it issues its calls and, for the bounded ones, through which limiter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contestant {
    /// A stream admitting through a gate with this limiter.
    Stream(LimiterKind),
    /// A thread pool admitting through a gate with this limiter.
    Blocking(LimiterKind),
    /// A stream with no admission control.
    StreamUnbounded,
    /// Threads with no admission control.
    BlockingUnbounded,
}

/// One iteration's shared state: the dependency, where calls are recorded, how many, and the gate (bounded
/// contestants only).
#[derive(Debug)]
pub struct Job<'a> {
    /// The dependency every call goes to.
    pub dependency: &'a Dependency,
    /// Where every call is recorded.
    pub ledger: &'a Ledger,
    /// Calls `0..calls` to make.
    pub calls: u64,
    /// The admission gate (`None` for the unbounded contestants).
    pub gate: Option<Arc<Gate>>,
}

/// A contestant ready to run iterations (its runtime built, its sizes fixed).
pub trait Prepared {
    /// Make every call of `job`. `go` is called exactly once, when everything is set up (threads started and
    /// parked) and right before the first call is issued: the trial starts measuring there.
    fn run(&self, job: &Job<'_>, go: &mut dyn FnMut()) -> Result<(), String>;

    /// Latency of `n` calls made one at a time on an idle `dependency`, waited for the way this contestant
    /// waits (awaited on its runtime, or blocking on a thread).
    fn idle_latencies(&self, dependency: &Dependency, n: u32) -> Vec<Duration>;
}

impl Contestant {
    /// Every contestant, in report order.
    pub fn all() -> Vec<Contestant> {
        let mut all: Vec<Contestant> = LIMITERS.into_iter().map(Contestant::Stream).collect();
        all.extend(LIMITERS.into_iter().map(Contestant::Blocking));
        all.extend([Contestant::StreamUnbounded, Contestant::BlockingUnbounded]);
        all
    }

    /// The contestant named `name`.
    pub fn find(name: &str) -> Option<Contestant> {
        Contestant::all().into_iter().find(|c| c.name() == name)
    }

    /// Its name: `stream-aimd`, `blocking-fixed`, `stream-unbounded`, ...
    pub fn name(&self) -> String {
        match self {
            Contestant::Stream(kind) => format!("stream-{}", kind.name()),
            Contestant::Blocking(kind) => format!("blocking-{}", kind.name()),
            Contestant::StreamUnbounded => "stream-unbounded".to_string(),
            Contestant::BlockingUnbounded => "blocking-unbounded".to_string(),
        }
    }

    /// Its limiter (`None` for the unbounded contestants).
    pub fn limiter(&self) -> Option<LimiterKind> {
        match self {
            Contestant::Stream(kind) | Contestant::Blocking(kind) => Some(*kind),
            Contestant::StreamUnbounded | Contestant::BlockingUnbounded => None,
        }
    }

    /// Its family.
    pub fn family(&self) -> Family {
        match self {
            Contestant::Stream(_) | Contestant::StreamUnbounded => Family::Stream,
            Contestant::Blocking(_) | Contestant::BlockingUnbounded => Family::Blocking,
        }
    }

    /// Name, family and a description for reports.
    pub fn info(&self) -> ContestantInfo {
        let limiter = self.limiter().map(limiter_description).unwrap_or_default();
        let description = match self {
            Contestant::Stream(_) => format!(
                "one stream on a multi-thread tokio runtime (2 workers), `limited_unordered`: `buffer_unordered` \
                 whose width is whatever the gate admits, pulling the next call only once admitted; {limiter}"
            ),
            Contestant::Blocking(_) => format!(
                "a pool of OS threads (128 KiB stacks) as large as the limiter's ceiling, started and parked before \
                 timing; each thread acquires a permit (blocking) before every call and waits on its completion; \
                 {limiter}"
            ),
            Contestant::StreamUnbounded => {
                "one stream on a multi-thread tokio runtime, `buffer_unordered(calls)`: every \
                call issued at once, no admission control"
                    .to_string()
            }
            Contestant::BlockingUnbounded => {
                "`unbounded-threads` OS threads (128 KiB stacks; default 10,000, a third of \
                what this machine allows), started and parked before timing, each issuing calls back to back with no \
                admission control: at most that many calls outstanding"
                    .to_string()
            }
        };
        ContestantInfo { name: self.name(), family: self.family(), description }
    }

    /// Build what the contestant needs before its iterations (a runtime; the pool size).
    pub fn prepare(&self, config: &OverloadConfig) -> Result<Box<dyn Prepared>, String> {
        match self {
            Contestant::Stream(_) => Ok(Box::new(stream::LimitedStream::new()?)),
            Contestant::StreamUnbounded => Ok(Box::new(stream_unbounded::UnboundedStream::new()?)),
            Contestant::Blocking(kind) => {
                Ok(Box::new(blocking::GatedPool::new(limiter_ceiling(*kind, &config.limits))))
            }
            Contestant::BlockingUnbounded => {
                Ok(Box::new(blocking_unbounded::UnboundedThreads::new(config.unbounded_threads)))
            }
        }
    }
}

/// Stack size of every pool thread: callers only wait on completions, so a small stack is plenty.
pub const THREAD_STACK_BYTES: usize = 128 * 1024;

/// What every contestant does once a call is done: release the permit (if any) with the call's latency and
/// outcome, then record the call.
pub(crate) fn finish_call(
    ledger: &Ledger,
    index: u64,
    issued: Instant,
    result: Result<Reply, CallError>,
    permit: Option<Permit>,
) {
    let seen = Instant::now();
    let value = result.map(|reply| reply.value);
    if let Some(permit) = permit {
        let outcome = if value.is_ok() { Outcome::Success } else { Outcome::Dropped };
        permit.release(seen.saturating_duration_since(issued), outcome);
    }
    ledger.record(index, issued, seen, &value);
}
