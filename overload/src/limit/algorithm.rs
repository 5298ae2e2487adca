//! The limit algorithm interface: one completed call in, the new limit out.

use std::time::Duration;

/// One completed call as the limit algorithm sees it.
///
/// Netflix's `AbstractLimiter` passes the in-flight count taken when the call was admitted, not when it
/// completed; so does the [`Gate`](super::Gate).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    /// How long the call took, as the caller measured it.
    pub latency: Duration,
    /// The gate's in-flight count when this call was admitted, including itself (so at least 1).
    pub in_flight: usize,
    /// Whether the dependency rejected the call or it failed ([`Outcome::Dropped`](super::Outcome::Dropped)).
    pub dropped: bool,
}

/// A pure limit algorithm: sample in, new limit out.
///
/// Deterministic and clock-free, so it can be driven by scripted sequences; the [`Gate`](super::Gate) calls it
/// under its lock, so it must be cheap and must not block. The limit it returns is at least 1.
pub trait LimitAlgorithm: Send + std::fmt::Debug {
    /// The algorithm's name as the CLI spells it (`"fixed"`, `"aimd"`, `"gradient2"`, `"vegas"`).
    fn name(&self) -> &'static str;

    /// The current limit: how many calls may be in flight at once.
    fn limit(&self) -> usize;

    /// Takes one completed call into account and returns the new limit (the same as [`limit`](Self::limit)
    /// afterwards).
    fn on_sample(&mut self, sample: &Sample) -> usize;

    /// The estimate behind [`limit`](Self::limit) before it is rounded down, for charts; algorithms that keep an
    /// integer limit return it as is.
    fn estimated_limit(&self) -> f64 {
        self.limit() as f64
    }
}
