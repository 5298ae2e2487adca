//! The overload scenario's contestants: every limiter in all three families, plus one unbounded contestant per
//! stream and blocking family. Names are `<family>-<limiter>`.
//!
//! - [`stream`]: `stream-<limiter>`, one demand-driven stream whose concurrent width follows the gate
//!   ([`limited_unordered`](crate::stream_ext::LimitedStreamExt::limited_unordered)) on a multi-thread tokio
//!   runtime; and `stream-unbounded`, `buffer_unordered` as wide as the whole run: every call issued at once.
//! - [`blocking`]: `blocking-<limiter>`, a pool of OS threads as large as the limiter's ceiling, each acquiring
//!   a permit from the gate before every call and waiting on the call's completion; and `blocking-unbounded`,
//!   as many threads as `unbounded-threads` (the OS caps what is possible), each issuing calls back to back with
//!   no admission control.
//! - [`coroutine`]: `coroutine-<limiter>`, a pool of `may` coroutines as large as the limiter's ceiling, on 2
//!   carrier threads, each acquiring a permit before every call and waiting on the call's completion; both waits
//!   park the coroutine, not its carrier.
//! - [`congestion_limiter`]: `stream-congestion-limiter`, one stream admitting through the `congestion-limiter`
//!   crate's own `DefaultLimiter` (its `Aimd`), its limit mirrored into the gate.
//!
//! Every contestant calls the same [`Dependency`](dependency::Dependency) and records each call in the same
//! [`Ledger`](crate::ledger::Ledger) the same way ([`crate::job::finish_call`]): one latency clock for every family, from
//! the call's admission at the gate (the [`Permit`](crate::limit::Permit) records when) to the moment its caller
//! sees the reply; the permit is released with that latency and the outcome, and the gate wait (asking →
//! admission) is recorded beside it. Unbounded calls have no gate: their clock starts at issue.

pub mod blocking;
pub mod congestion_limiter;
pub mod coroutine;
pub(crate) mod pool;
pub mod stream;

use measure::summary::{ContestantInfo, Family, Role};

pub use crate::job::{Job, Prepared, THREAD_STACK_BYTES};

use crate::config::OverloadConfig;
use crate::config::{limiter_ceiling, limiter_description, LIMITERS};
use crate::error::RunError;
use crate::limit::LimiterKind;

/// Why `stream-congestion-limiter` fails its `within_limit` check, as its source shows (`DefaultLimiter::release`
/// in `congestion-limiter` 0.1): a cut takes the excess permits off its semaphore from a background task that
/// must first acquire them, so until that task wins them back the semaphore still admits up to the old limit.
pub const PEER_ADMITS_ABOVE_A_CUT: &str = "the `congestion-limiter` crate lowers its limit by a background task \
     that must first acquire the excess permits, so right after a cut its semaphore still admits up to the old \
     limit, which the `within_limit` check counts";

/// One contestant: how it issues its calls and, for the bounded ones, through which limiter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contestant {
    /// A stream admitting through a gate with this limiter.
    Stream(LimiterKind),
    /// A thread pool admitting through a gate with this limiter.
    Blocking(LimiterKind),
    /// A coroutine pool admitting through a gate with this limiter.
    Coroutine(LimiterKind),
    /// A stream with no admission control.
    StreamUnbounded,
    /// Threads with no admission control.
    BlockingUnbounded,
}

impl Contestant {
    /// Every contestant, in report order.
    pub fn all() -> Vec<Contestant> {
        let mut all: Vec<Contestant> = LIMITERS.into_iter().map(Contestant::Stream).collect();
        all.extend(LIMITERS.into_iter().map(Contestant::Blocking));
        all.extend(LIMITERS.into_iter().map(Contestant::Coroutine));
        all.extend([Contestant::StreamUnbounded, Contestant::BlockingUnbounded]);
        all.push(Contestant::Stream(LimiterKind::CongestionLimiter));
        all
    }

    /// The gated contestants of `kind`, one per family, in report order: stream, blocking, coroutine.
    pub fn gated(kind: LimiterKind) -> [Contestant; 3] {
        [Contestant::Stream(kind), Contestant::Blocking(kind), Contestant::Coroutine(kind)]
    }

    /// Every pair of families of every limiter (stream / blocking, stream / coroutine, blocking / coroutine), as
    /// contestant names, in report order.
    pub fn family_pairs() -> Vec<(String, String)> {
        let mut pairs = Vec::new();
        for kind in LIMITERS {
            let names = Contestant::gated(kind).map(|c| c.name());
            for (i, a) in names.iter().enumerate() {
                pairs.extend(names[i + 1..].iter().map(|b| (a.clone(), b.clone())));
            }
        }
        pairs
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
            Contestant::Coroutine(kind) => format!("coroutine-{}", kind.name()),
            Contestant::StreamUnbounded => "stream-unbounded".to_string(),
            Contestant::BlockingUnbounded => "blocking-unbounded".to_string(),
        }
    }

    /// Its limiter (`None` for the unbounded contestants).
    pub fn limiter(&self) -> Option<LimiterKind> {
        match self {
            Contestant::Stream(kind) | Contestant::Blocking(kind) | Contestant::Coroutine(kind) => Some(*kind),
            Contestant::StreamUnbounded | Contestant::BlockingUnbounded => None,
        }
    }

    /// Its family.
    pub fn family(&self) -> Family {
        match self {
            Contestant::Stream(_) | Contestant::StreamUnbounded => Family::Stream,
            Contestant::Blocking(_) | Contestant::BlockingUnbounded => Family::Blocking,
            Contestant::Coroutine(_) => Family::Coroutine,
        }
    }

    /// Name, family and a description for reports.
    pub fn info(&self) -> ContestantInfo {
        let limiter = self.limiter().map(limiter_description).unwrap_or_default();
        let description = match self {
            Contestant::Stream(LimiterKind::CongestionLimiter) => format!(
                "one stream on a multi-thread tokio runtime (2 workers, timer on), each call's token from the \
                 crate's `acquire_timeout` (`then`), `buffer_unordered` as wide as the limiter's maximum; {limiter}"
            ),
            Contestant::Stream(_) => format!(
                "one stream on a multi-thread tokio runtime (2 workers), `limited_unordered`: `buffer_unordered` \
                 whose width is whatever the gate admits, pulling the next call only once admitted; {limiter}"
            ),
            Contestant::Blocking(_) => format!(
                "a pool of OS threads (128 KiB stacks) as large as the limiter's ceiling, started and parked before \
                 timing; each thread acquires a permit (blocking) before every call and waits on its completion; \
                 {limiter}"
            ),
            Contestant::Coroutine(_) => format!(
                "a pool of `may` coroutines as large as the limiter's ceiling ({}), spawned and parked before \
                 timing; each coroutine acquires a permit before every call and waits on its completion, both \
                 waits parking the coroutine, not its carrier; {limiter}",
                crate::job::coroutine_config().describe()
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
        let role = match self {
            Contestant::StreamUnbounded | Contestant::BlockingUnbounded => Role::Pathology,
            _ => Role::Candidate,
        };
        let info = ContestantInfo::new(self.name(), self.family(), description).with_role(role);
        match self {
            Contestant::Stream(LimiterKind::CongestionLimiter) => info.expected_to_fail(PEER_ADMITS_ABOVE_A_CUT),
            _ => info,
        }
    }

    /// Build what the contestant needs before its iterations (a runtime; the pool size).
    pub fn prepare(&self, config: &OverloadConfig) -> Result<Box<dyn Prepared>, RunError> {
        match self {
            Contestant::Stream(LimiterKind::CongestionLimiter) => {
                Ok(Box::new(congestion_limiter::CrateLimited::new(config.limits)?))
            }
            Contestant::Stream(_) | Contestant::StreamUnbounded => Ok(Box::new(stream::StreamRuntime::new()?)),
            Contestant::Blocking(kind) => {
                Ok(Box::new(blocking::ThreadPool::new(limiter_ceiling(*kind, &config.limits))))
            }
            Contestant::BlockingUnbounded => Ok(Box::new(blocking::ThreadPool::new(config.unbounded_threads))),
            Contestant::Coroutine(kind) => {
                let size = limiter_ceiling(*kind, &config.limits);
                match crate::job::coroutine_refusal(size) {
                    None => Ok(Box::new(coroutine::GatedCoroutines::new(size))),
                    Some(reason) => Err(RunError::Refused(reason)),
                }
            }
        }
    }
}
