//! The outstanding-work gauge: contestants bump it when items enter the pipeline and drop it when they leave.
//!
//! The hot path is one relaxed `fetch_add` plus a relaxed load; the exact high-water mark is raised with a
//! `fetch_max` only when a new high is reached.

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};

/// Items admitted into a pipeline and not yet out of it, with its exact high-water mark.
#[derive(Debug, Default)]
pub struct Outstanding {
    current: AtomicI64,
    high: AtomicI64,
    touched: AtomicBool,
}

impl Outstanding {
    /// A gauge at zero that nobody has touched.
    pub fn new() -> Self {
        Self::default()
    }

    /// `n` items entered the pipeline.
    #[inline]
    pub fn admit(&self, n: u64) {
        unimplemented!()
    }

    /// `n` items left the pipeline.
    #[inline]
    pub fn leave(&self, n: u64) {
        unimplemented!()
    }

    /// Items in the pipeline now.
    pub fn current(&self) -> i64 {
        unimplemented!()
    }

    /// The exact high-water mark since the last [`Outstanding::reset`].
    pub fn high_water(&self) -> i64 {
        unimplemented!()
    }

    /// Whether any contestant code has admitted anything since the last reset (sequential contestants,
    /// which hand nothing off, never do: their outstanding work is reported as not applicable).
    pub fn touched(&self) -> bool {
        unimplemented!()
    }

    /// Back to zero, untouched.
    pub fn reset(&self) {
        unimplemented!()
    }
}
