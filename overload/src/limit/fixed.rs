//! `fixed`: a constant limit, the bound a team would configure from the dependency's healthy capacity
//! (Netflix `FixedLimit`).

use super::{Decisions, LimitAlgorithm, Sample};

/// A limit that never changes, whatever the samples say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fixed {
    limit: usize,
    holds: u64,
    name: &'static str,
}

impl Fixed {
    /// The default bound: what a team would configure from the healthy capacity.
    pub const DEFAULT_LIMIT: usize = 500;

    /// A constant limit; 0 is raised to 1, since a gate with limit 0 would admit nothing, ever.
    pub fn new(limit: usize) -> Fixed {
        Fixed::named(limit, "fixed")
    }

    /// [`Fixed::new`], reported under `name` (`fixed-little`: a bound sized another way).
    pub fn named(limit: usize, name: &'static str) -> Fixed {
        Fixed { limit: limit.max(1), holds: 0, name }
    }
}

impl Default for Fixed {
    fn default() -> Self {
        Fixed::new(Fixed::DEFAULT_LIMIT)
    }
}

impl LimitAlgorithm for Fixed {
    fn name(&self) -> &'static str {
        self.name
    }

    fn limit(&self) -> usize {
        self.limit
    }

    fn on_sample(&mut self, _sample: &Sample) -> usize {
        self.holds += 1;
        self.limit
    }

    fn decisions(&self) -> Decisions {
        Decisions { holds: self.holds, ..Decisions::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn never_changes_whatever_the_samples() {
        let mut fixed = Fixed::new(7);
        for (ms, in_flight, dropped) in [(1, 7, false), (500, 1, true), (0, 100, false), (10_000, 7, true)] {
            let sample = Sample::new(Duration::from_millis(ms), in_flight, dropped);
            assert_eq!(fixed.on_sample(&sample), 7);
            assert_eq!(fixed.limit(), 7);
        }
    }

    #[test]
    fn zero_is_raised_to_one_and_default_is_500() {
        assert_eq!(Fixed::new(0).limit(), 1);
        assert_eq!(Fixed::default().limit(), 500);
        assert_eq!(Fixed::default().name(), "fixed");
    }
}
