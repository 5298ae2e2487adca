//! What one run of a chain contestant is asked to do ([`Job`]), what it returns ([`Outcome`], [`ChainError`]),
//! and the test-only stage behaviours (counting, failing or panicking at an element).

use std::convert::Infallible;
use std::fmt;
use std::sync::Arc;

use measure::meter::NoMeter;

use pipelines::conformance as kit;
use pipelines::{InjectedPanic, PipelineError};

/// What the consumer at the end of the pipeline does with the items (`Sum` is the measured work; the others
/// serve the conformance checks), what an injected fault does, and what a run returns (a sum, neither counted
/// nor checked for order, or the items): the items contract's own.
pub use pipelines::conformance::{Consume as Consumer, FaultAction, Outcome};

/// Channel sizing shared by every contestant of one trial.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChainConfig {
    /// Most items per message for the batched contestants (at least 1).
    pub batch: usize,
    /// Items every channel can hold (at least 1), batched or not.
    pub capacity: usize,
    /// Messages a batched channel holds at least, room for the sender to run ahead (at least 1): a batch is
    /// `capacity / messages` items, at most `batch`.
    pub messages: usize,
}

impl Default for ChainConfig {
    fn default() -> Self {
        ChainConfig { batch: 256, capacity: 1024, messages: 16 }
    }
}

impl ChainConfig {
    /// Items one message carries: 1 unbatched; batched, `capacity / messages` (at least 1), at most `batch`.
    pub fn items_per_message(&self, batched: bool) -> usize {
        if batched {
            (self.capacity / self.messages.max(1)).clamp(1, self.batch.max(1))
        } else {
            1
        }
    }

    /// Messages a channel holds: `capacity / items_per_message`, at least 1, so every channel holds the same
    /// items batched or not.
    pub fn messages_per_channel(&self, batched: bool) -> usize {
        (self.capacity / self.items_per_message(batched)).max(1)
    }

    /// Items per message and messages per channel, batched or not.
    pub fn message_sizes(&self, batched: bool) -> (usize, usize) {
        (self.items_per_message(batched), self.messages_per_channel(batched))
    }
}

/// A stage of the chain that can be instrumented.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StageName {
    /// `x → x·3+1` then `work` rounds of mixing.
    Map1,
    /// Keep even values.
    Filter,
    /// `x → x ^ (x >> 7)`.
    Map2,
}

impl StageName {
    /// Every instrumentable stage, in pipeline order.
    pub const ALL: [StageName; 3] = [StageName::Map1, StageName::Filter, StageName::Map2];

    /// `map1`, `filter` or `map2`.
    pub fn as_str(self) -> &'static str {
        match self {
            StageName::Map1 => "map1",
            StageName::Filter => "filter",
            StageName::Map2 => "map2",
        }
    }
}

impl kit::Site for StageName {
    fn name(self) -> &'static str {
        self.as_str()
    }
}

impl fmt::Display for StageName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error an injected [`FaultAction::Error`] returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("injected error in stage `{stage}` at its element {at}")]
pub struct StageError {
    /// The stage that failed.
    pub stage: StageName,
    /// The element it failed at.
    pub at: u64,
}

/// A fault injected into one stage at its `at`-th element (counting from 0, in the order that stage sees them).
pub type Fault = kit::Fault<StageName>;

/// Counts `map1`'s elements (the source's), holds at most one fault and the caller's cancel: the test-only
/// behaviour of the stages.
pub type Instruments = kit::Instruments<StageName>;

/// How the stages behave besides their formulas: `Clean` (the measured configuration; contestants are
/// instantiated with stages whose error type is `Infallible`, so the error path does not exist in the measured
/// machine code) or instrumented for a conformance check.
pub type Behaviour = kit::Behaviour<StageName>;

/// One run of a chain contestant, metering outstanding items with `M` ([`NoMeter`] when timed): the input values
/// (shared, so stage tasks that need `'static` data can hold a reference count), the rounds of mixing in `map1`
/// (`work`), the behaviour, the consumer, the meter (items handed into the pipeline's first channel and not yet
/// consumed or dropped by the filter; only contestants that hand items between threads or tasks use it) and the
/// live stage threads and tasks.
pub type Job<'a, M = NoMeter> = kit::Job<'a, Arc<[u64]>, StageName, M>;

/// Why a run, or preparing a contestant, failed.
#[derive(Debug, thiserror::Error)]
pub enum ChainError {
    /// A stage returned an (injected) error.
    #[error(transparent)]
    Stage(#[from] StageError),
    /// A stage, thread or task panicked; the panic was caught.
    #[error("`{stage}` panicked: {message}")]
    Panicked {
        /// The stage (or `caller` for single-threaded contestants) that panicked.
        stage: String,
        /// The panic message.
        message: String,
    },
    /// The OS refused to start a thread.
    #[error("could not spawn `{stage}`: {source}")]
    Spawn {
        /// The stage.
        stage: String,
        /// What the OS said.
        source: std::io::Error,
    },
    /// A stage task was cancelled before it finished.
    #[error("stage `{stage}` was cancelled")]
    Cancelled {
        /// The stage.
        stage: String,
    },
    /// The runtime or thread pool could not be built.
    #[error("could not prepare `{contestant}`: {message}")]
    Prepare {
        /// The contestant.
        contestant: String,
        /// What the library said.
        message: String,
    },
}

impl From<Infallible> for ChainError {
    fn from(never: Infallible) -> Self {
        match never {}
    }
}

impl ChainError {
    /// A caught panic of `stage` (the stage name, taken from an [`InjectedPanic`] payload when there is one).
    pub fn from_panic(stage: &str, payload: &(dyn std::any::Any + Send)) -> Self {
        let stage = payload.downcast_ref::<InjectedPanic>().map_or(stage, |p| p.stage);
        ChainError::Panicked { stage: stage.to_string(), message: pipelines::panic_message(payload) }
    }

    /// Convert a pipeline builder's error whose stage error converts into a `ChainError`.
    pub fn from_pipeline<E>(err: PipelineError<E>) -> Self
    where
        E: Into<ChainError> + fmt::Debug + fmt::Display,
    {
        match err {
            PipelineError::Stage { error, .. } => error.into(),
            PipelineError::Panicked { stage, message } => ChainError::Panicked { stage: stage.to_string(), message },
            PipelineError::Spawn { stage, source } => ChainError::Spawn { stage: stage.to_string(), source },
            PipelineError::Cancelled { stage } => ChainError::Cancelled { stage: stage.to_string() },
        }
    }
}

/// Call `go`, then run `f` on the calling thread, its panic caught as [`catch_panics`] does and its stage error
/// converted (the contestants that neither spawn nor hand off).
pub(crate) fn on_caller<E: Into<ChainError>>(
    go: &mut dyn FnMut(),
    f: impl FnOnce() -> Result<Outcome, E>,
) -> Result<Outcome, ChainError> {
    go();
    catch_panics(f)?.map_err(Into::into)
}

/// Run `f`, turning a panic into [`ChainError::Panicked`] (for contestants that run on the calling thread).
pub(crate) fn catch_panics<T>(f: impl FnOnce() -> T) -> Result<T, ChainError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .map_err(|payload| ChainError::from_panic("caller", &*payload))
}
