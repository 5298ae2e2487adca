//! The outstanding-work gauge: contestants bump it (through [`crate::meter::GaugeMeter`], in accounting iterations
//! only) when items enter the pipeline and drop it when they leave.
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
        let n = to_i64(n);
        let now = self.current.fetch_add(n, Ordering::Relaxed).wrapping_add(n);
        // `high` only ever grows, so a stale load can only be too low: that costs a spare `fetch_max`, never a
        // missed high. Every value `current` takes is returned by exactly one `fetch_add`, so the mark is exact.
        if now > self.high.load(Ordering::Relaxed) {
            self.high.fetch_max(now, Ordering::Relaxed);
        }
        if !self.touched.load(Ordering::Relaxed) {
            self.touched.store(true, Ordering::Relaxed);
        }
    }

    /// `n` items left the pipeline.
    #[inline]
    pub fn leave(&self, n: u64) {
        self.current.fetch_sub(to_i64(n), Ordering::Relaxed);
    }

    /// Items in the pipeline now.
    pub fn current(&self) -> i64 {
        self.current.load(Ordering::Relaxed)
    }

    /// The exact high-water mark since the last [`Outstanding::reset`].
    pub fn high_water(&self) -> i64 {
        self.high.load(Ordering::Relaxed)
    }

    /// Whether any contestant code has admitted anything since the last reset (sequential contestants,
    /// which hand nothing off, never do: their outstanding work is reported as not applicable).
    pub fn touched(&self) -> bool {
        self.touched.load(Ordering::Relaxed)
    }

    /// Back to zero, untouched. Call it only while no contestant is admitting or leaving (the probe calls it
    /// before the iteration starts).
    pub fn reset(&self) {
        self.current.store(0, Ordering::Relaxed);
        self.high.store(0, Ordering::Relaxed);
        self.touched.store(false, Ordering::Relaxed);
    }
}

/// `n` as a gauge delta, saturating at `i64::MAX` (no pipeline holds that many items).
#[inline]
fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The gauge's current value, high-water mark and whether anything was admitted.
    fn state(g: &Outstanding) -> (i64, i64, bool) {
        (g.current(), g.high_water(), g.touched())
    }

    #[test]
    fn starts_untouched_at_zero() {
        let g = Outstanding::new();
        assert_eq!(state(&g), (0, 0, false));
    }

    #[test]
    fn tracks_current_and_high_water() {
        let g = Outstanding::new();
        g.admit(3);
        g.admit(4);
        g.leave(5);
        g.admit(1);
        assert_eq!(state(&g), (3, 7, true));
        g.leave(3);
        assert_eq!(state(&g), (0, 7, true));
    }

    #[test]
    fn leaving_first_goes_negative_admitting_zero_touches_and_reset_clears_everything() {
        let steps: [(fn(&Outstanding), _); 3] = [
            (|g| g.leave(2), (-2, 0, false)),
            (|g| g.admit(0), (0, 0, true)),
            (
                |g| {
                    g.admit(9);
                    g.reset();
                },
                (0, 0, false),
            ),
        ];
        for (step, expected) in steps {
            let g = Outstanding::new();
            step(&g);
            assert_eq!(state(&g), expected);
        }
    }
}
