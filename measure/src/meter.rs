//! What a contestant calls at its hand-offs to count outstanding work, as a type it is generic over: a no-op in
//! timed iterations ([`NoMeter`], which compiles away), the shared gauge in accounting iterations
//! ([`GaugeMeter`]).
//!
//! A contestant is written once, generic over `M: Meter`, and instantiated twice: the timed instantiation carries
//! no counting at all in its machine code (no atomic, no branch), so a timed iteration runs the contestant exactly
//! as a user would; the accounting instantiation bumps [`Outstanding`] at every hand-off, so the exact
//! high-water mark and the sampled series come from a separate, untimed iteration.
//!
//! ```
//! use std::sync::Arc;
//! use measure::gauge::Outstanding;
//! use measure::meter::{GaugeMeter, Meter, NoMeter};
//!
//! fn pipeline<M: Meter>(meter: &M) -> u64 {
//!     let mut sum = 0;
//!     for x in 0..10u64 {
//!         meter.admit(1);
//!         sum += x;
//!         meter.leave(1);
//!     }
//!     sum
//! }
//! assert_eq!(pipeline(&NoMeter), 45);
//! let gauge = Arc::new(Outstanding::new());
//! assert_eq!(pipeline(&GaugeMeter::new(Arc::clone(&gauge))), 45);
//! assert_eq!(gauge.high_water(), 1);
//! ```

use std::sync::Arc;

use crate::gauge::Outstanding;

/// Counts items entering and leaving a pipeline; cheap to clone into every thread or `'static` task.
pub trait Meter: Clone + Send + Sync + 'static {
    /// Whether this meter counts anything (false for [`NoMeter`]): a contestant may skip work that only feeds
    /// the meter, and the harness knows which iterations have outstanding figures.
    const COUNTS: bool;

    /// `n` items entered the pipeline.
    fn admit(&self, n: u64);

    /// `n` items left the pipeline.
    fn leave(&self, n: u64);
}

/// The timed iterations' meter: counts nothing, and its calls compile to nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoMeter;

impl Meter for NoMeter {
    const COUNTS: bool = false;

    #[inline(always)]
    fn admit(&self, _n: u64) {}

    #[inline(always)]
    fn leave(&self, _n: u64) {}
}

/// The accounting iterations' meter: every call updates the shared [`Outstanding`] gauge that the sampler reads.
#[derive(Debug, Clone, Default)]
pub struct GaugeMeter {
    gauge: Arc<Outstanding>,
}

impl GaugeMeter {
    /// A meter that counts into `gauge`.
    pub fn new(gauge: Arc<Outstanding>) -> GaugeMeter {
        GaugeMeter { gauge }
    }

    /// The gauge it counts into.
    pub fn gauge(&self) -> &Arc<Outstanding> {
        &self.gauge
    }
}

impl Meter for GaugeMeter {
    const COUNTS: bool = true;

    #[inline]
    fn admit(&self, n: u64) {
        self.gauge.admit(n);
    }

    #[inline]
    fn leave(&self, n: u64) {
        self.gauge.leave(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_no_meter_is_free_and_counts_nothing() {
        assert_eq!(std::mem::size_of::<NoMeter>(), 0);
        const { assert!(!NoMeter::COUNTS) };
        NoMeter.admit(5);
        NoMeter.leave(5);
    }

    #[test]
    fn the_gauge_meter_counts_into_its_gauge() {
        let gauge = Arc::new(Outstanding::new());
        let meter = GaugeMeter::new(Arc::clone(&gauge));
        const { assert!(GaugeMeter::COUNTS) };
        meter.clone().admit(3);
        meter.leave(1);
        assert_eq!((gauge.current(), gauge.high_water()), (2, 3));
        assert!(Arc::ptr_eq(meter.gauge(), &gauge));
    }
}
