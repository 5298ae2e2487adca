//! Why a contestant could not be prepared, or one of its runs could not finish.

use std::time::Duration;

/// Why a contestant could not be prepared, or a run of it could not finish.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The simulated dependency could not be started.
    #[error("cannot start the dependency: {0}")]
    Dependency(std::io::Error),
    /// The tokio runtime could not be built.
    #[error("cannot build the tokio runtime: {0}")]
    Runtime(std::io::Error),
    /// A thread could not be started.
    #[error("cannot start thread `{name}`: {source}")]
    Thread {
        /// Its name.
        name: String,
        /// What the OS said.
        source: std::io::Error,
    },
    /// A coroutine could not be spawned.
    #[error("cannot spawn a coroutine: {0}")]
    Coroutine(std::io::Error),
    /// An admitted request found the service's entry closed or full (the entry holds every admitted request).
    #[error("the service refused an admitted request at its entry")]
    EntryRefused,
    /// Requests still outstanding when the wait for them ended.
    #[error("{outstanding} request(s) still outstanding {limit:?} after the last arrival")]
    Undrained {
        /// How many.
        outstanding: u64,
        /// The wait.
        limit: Duration,
    },
    /// A thread, task or coroutine of the service panicked.
    #[error("a stage of the service panicked")]
    Panicked,
}
