//! What one run of a chain contestant is asked to do ([`Job`]), what it returns ([`Outcome`], [`ChainError`]),
//! and the test-only stage behaviours (counting, failing or panicking at an element).

use std::convert::Infallible;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use measure::meter::NoMeter;

use pipelines::cancel::CallerCancel;
use pipelines::{InjectedPanic, LiveStages, PipelineError};

/// What the consumer at the end of the pipeline does with the items (`Sum` is the measured work; the others
/// serve the conformance checks), and what an injected fault does: the conformance kit's own.
pub use pipelines::conformance::{Consume as Consumer, FaultAction};

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

    fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for StageName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A fault injected into one stage at its `at`-th element (counting from 0, in the order that stage sees them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    /// Which stage.
    pub stage: StageName,
    /// At which of its elements.
    pub at: u64,
    /// Error or panic.
    pub action: FaultAction,
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

/// Per-stage element counters, and at most one fault: the test-only behaviour of the stages.
#[derive(Debug, Default)]
pub struct Instruments {
    seen: [AtomicU64; 3],
    fault: Option<Fault>,
    cancel: Option<Arc<CallerCancel>>,
}

impl Instruments {
    /// Count elements per stage, and inject `fault` if given.
    pub fn new(fault: Option<Fault>) -> Self {
        Instruments { seen: Default::default(), fault, cancel: None }
    }

    /// Count elements per stage; the caller cancels the run with `cancel` when `map1` reaches its point.
    pub fn cancelled_by(cancel: Arc<CallerCancel>) -> Self {
        Instruments { seen: Default::default(), fault: None, cancel: Some(cancel) }
    }

    /// The caller's cancellation, if the run has one.
    pub fn cancel(&self) -> Option<&Arc<CallerCancel>> {
        self.cancel.as_ref()
    }

    /// Elements `stage` has seen so far.
    pub fn seen(&self, stage: StageName) -> u64 {
        self.seen[stage.index()].load(Ordering::Relaxed)
    }

    /// Count one element of `stage`, failing or panicking if that is where the fault is.
    pub(crate) fn tick(&self, stage: StageName) -> Result<(), StageError> {
        let n = self.seen[stage.index()].fetch_add(1, Ordering::Relaxed);
        if let (StageName::Map1, Some(cancel)) = (stage, &self.cancel) {
            cancel.pass(n);
        }
        match self.fault {
            Some(f) if f.stage == stage && f.at == n => match f.action {
                FaultAction::Error => Err(StageError { stage, at: n }),
                FaultAction::Panic => std::panic::panic_any(InjectedPanic { stage: stage.as_str(), at: n }),
            },
            _ => Ok(()),
        }
    }
}

/// How the stages behave besides their formulas.
#[derive(Debug, Clone, Default)]
pub enum Behaviour {
    /// Nothing else: the measured configuration. Contestants are instantiated with stages whose error type is
    /// `Infallible`, so the error path does not exist in the measured machine code.
    #[default]
    Clean,
    /// Count elements per stage and maybe inject a fault (conformance checks only).
    Instrumented(Arc<Instruments>),
}

impl Behaviour {
    /// The caller's cancellation of an instrumented run, if it has one.
    pub fn cancel(&self) -> Option<&Arc<CallerCancel>> {
        match self {
            Behaviour::Clean => None,
            Behaviour::Instrumented(instruments) => instruments.cancel(),
        }
    }
}

/// One run of a chain contestant, metering outstanding items with `M` ([`NoMeter`] when timed).
#[derive(Debug)]
pub struct Job<'a, M = NoMeter> {
    /// The input values (shared, so stage tasks that need `'static` data can hold a reference count).
    pub input: &'a Arc<[u64]>,
    /// Rounds of mixing in `map1`.
    pub work: u32,
    /// Clean, or instrumented for a conformance check.
    pub behaviour: &'a Behaviour,
    /// What the consumer does.
    pub consumer: Consumer,
    /// Counts items handed into the pipeline's first channel and not yet consumed (or dropped by the filter).
    /// Only contestants that hand items between threads or tasks use it.
    pub meter: M,
    /// Live stage threads and tasks.
    pub live: &'a Arc<LiveStages>,
}

/// What a run produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The wrapping sum of every item ([`Consumer::Sum`]).
    Sum(u64),
    /// The items received, in arrival order ([`Consumer::Collect`], [`Consumer::Take`] and [`Consumer::Cancellable`]).
    Items(Vec<u64>),
}

impl From<Vec<u64>> for Outcome {
    /// The items a collecting consumer received, in arrival order.
    fn from(items: Vec<u64>) -> Outcome {
        Outcome::Items(items)
    }
}

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
