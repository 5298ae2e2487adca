//! How a multi-stage pipeline (threads or tasks) failed.

use std::fmt;

/// Why a pipeline of stage threads or tasks did not finish cleanly. `E` is the stages' own error type.
///
/// A stage that finds its downstream gone (the consumer stopped early, or a later stage failed) ends quietly:
/// only the stage where the failure started is reported.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError<E: fmt::Debug + fmt::Display> {
    /// A stage returned an error.
    #[error("stage `{stage}` failed: {error}")]
    Stage {
        /// The stage's name.
        stage: &'static str,
        /// What it returned.
        error: E,
    },
    /// A stage panicked; the panic was caught when the stage was joined.
    #[error("stage `{stage}` panicked: {message}")]
    Panicked {
        /// The stage's name.
        stage: &'static str,
        /// The panic message.
        message: String,
    },
    /// The OS refused to start a stage thread.
    #[error("could not spawn stage `{stage}`: {source}")]
    Spawn {
        /// The stage's name.
        stage: &'static str,
        /// What the OS said.
        source: std::io::Error,
    },
    /// A stage task was cancelled (its runtime shut down) before it finished.
    #[error("stage `{stage}` was cancelled")]
    Cancelled {
        /// The stage's name.
        stage: &'static str,
    },
}
