//! Why a contestant of either scenario could not be prepared, or one of its runs could not finish ([`RunError`]:
//! one error type for both), and what a ledger's verification found wrong ([`LedgerError`]); their texts are the
//! ones check details and reports have always shown.

use std::time::Duration;

use pipelines::blocking::parked_pool::PoolError;

/// Why a contestant could not be prepared, or a run of it could not finish.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A gated contestant was handed no gate (the words say which, and what for).
    #[error("{0}")]
    NoGate(&'static str),
    /// The overload scenario's drop watcher thread could not be started.
    #[error("cannot start the drop watcher: {0}")]
    Watcher(std::io::Error),
    /// The simulated dependency could not be started.
    #[error("cannot start the dependency: {0}")]
    Dependency(std::io::Error),
    /// The tokio runtime could not be built.
    #[error("cannot build the tokio runtime: {0}")]
    Runtime(std::io::Error),
    /// A parked pool's threads could not all be started, or some panicked.
    #[error(transparent)]
    Pool(#[from] PoolError),
    /// Some of a pool's coroutines panicked.
    #[error("{0} coroutine(s) panicked")]
    Panicked(usize),
    /// `may`'s map limit leaves no room for the pool (the text says why).
    #[error("{0}")]
    Refused(String),
    /// The run's call count does not fit this machine's `usize`.
    #[error("too many calls for this machine")]
    TooManyCalls,
    /// Calls that got no token from the `congestion-limiter` crate's limiter within the wait.
    #[error("{calls} calls got no token from the crate's limiter within {within:?}")]
    NoToken {
        /// How many.
        calls: u64,
        /// The wait.
        within: Duration,
    },
    /// A service pool's thread could not be started.
    #[error("cannot start thread {n} of {threads}: {source}")]
    Thread {
        /// Which thread (0-based).
        n: usize,
        /// Of how many.
        threads: usize,
        /// The OS's refusal.
        source: std::io::Error,
    },
    /// An arrival's coroutine could not be spawned.
    #[error("cannot spawn a coroutine: {0}")]
    Coroutine(std::io::Error),
    /// An arrival was handed to a service pool already closed.
    #[error("the pool was closed")]
    PoolClosed,
    /// An arrival was handed to a service pool whose threads are gone.
    #[error("the pool's threads are gone")]
    PoolGone,
    /// A service pool's thread panicked.
    #[error("a pool thread panicked")]
    ThreadPanicked,
    /// Arrivals still being handled when the run's drain limit passed.
    #[error("{live} arrivals still being handled {} s after the last one", limit.as_secs())]
    Undrained {
        /// How many.
        live: u64,
        /// The limit.
        limit: Duration,
    },
}

/// What a ledger's verification found wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LedgerError {
    /// Not every call was recorded exactly once with the right answer.
    #[error(
        "{missing} calls never completed, {duplicates} completed twice, {wrong} wrong answers, {out_of_range} \
         unknown call numbers (of {calls} calls)"
    )]
    NotAllOnce {
        /// Calls never recorded.
        missing: usize,
        /// Calls recorded twice.
        duplicates: u64,
        /// Successes with a wrong answer.
        wrong: u64,
        /// Records of call numbers beyond the run.
        out_of_range: u64,
        /// The run's calls.
        calls: usize,
    },
    /// A call recorded twice, a wrong answer or an unknown call number (calls never recorded allowed).
    #[error("{duplicates} completed twice, {wrong} wrong answers, {out_of_range} unknown call numbers")]
    NotDeliveredOnce {
        /// Calls recorded twice.
        duplicates: u64,
        /// Successes with a wrong answer.
        wrong: u64,
        /// Records of call numbers beyond the run.
        out_of_range: u64,
    },
}

impl From<LedgerError> for String {
    fn from(e: LedgerError) -> String {
        e.to_string()
    }
}

impl From<RunError> for String {
    fn from(e: RunError) -> String {
        e.to_string()
    }
}
