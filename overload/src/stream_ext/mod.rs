//! Stream adapters of the overload scenario, one per file.
//!
//! - [`LimitedUnordered`] (`limited_unordered`): `buffer_unordered` whose width follows an admission
//!   [`Gate`](crate::limit::Gate) instead of a constant.

mod limited_unordered;

pub use limited_unordered::LimitedUnordered;

use std::future::Future;
use std::sync::Arc;

use futures::Stream;

use crate::limit::{Gate, Permit};

/// Extension methods for streams: the adaptive counterpart of `StreamExt::buffer_unordered`.
pub trait LimitedStreamExt: Stream + Sized {
    /// Turn each item into a future with `make`, running as many at once as `gate` admits, and yield their
    /// outputs as they complete (unordered).
    ///
    /// Demand-driven: the next item is pulled from upstream only once the gate has admitted it, so a falling
    /// limit stops the stream from pulling (nothing already running is cancelled). `make` receives the item and
    /// its [`Permit`]; the future it returns owns the permit and releases it, with the call's latency and
    /// outcome, when the call is done.
    fn limited_unordered<F, Fut>(self, gate: Arc<Gate>, make: F) -> LimitedUnordered<Self, F, Fut>
    where
        F: FnMut(Self::Item, Permit) -> Fut,
        Fut: Future,
    {
        LimitedUnordered::new(self, gate, make)
    }
}

impl<S: Stream + Sized> LimitedStreamExt for S {}
