//! `followed`: no algorithm of its own; the limit of a limiter that admits on its own (the `congestion-limiter`
//! crate's `DefaultLimiter`), mirrored into a [`Gate`](super::Gate) so its history is read like every other.

use super::{Decisions, LimitAlgorithm, Sample};

/// A limit that samples never move: only [`LimitAlgorithm::follow`] does, with the other limiter's limit, each
/// move counted as an increase, a decrease or a hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Followed {
    name: &'static str,
    limit: usize,
    decisions: Decisions,
}

impl Followed {
    /// Mirrors the limiter `name`, whose limit starts at `initial` (at least 1).
    pub fn new(name: &'static str, initial: usize) -> Followed {
        Followed { name, limit: initial.max(1), decisions: Decisions::default() }
    }
}

impl LimitAlgorithm for Followed {
    fn name(&self) -> &'static str {
        self.name
    }

    fn limit(&self) -> usize {
        self.limit
    }

    fn on_sample(&mut self, _sample: &Sample) -> usize {
        self.limit
    }

    fn decisions(&self) -> Decisions {
        self.decisions
    }

    fn follow(&mut self, limit: usize) {
        self.decisions.count_move(self.limit, limit);
        self.limit = limit.max(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn samples_never_move_it_and_each_follow_is_counted() {
        let mut followed = Followed::new("mirror", 20);
        assert_eq!(followed.on_sample(&Sample::new(Duration::from_secs(9), 20, true)), 20);
        for limit in [21, 21, 18, 0] {
            followed.follow(limit);
        }
        assert_eq!(followed.limit(), 1);
        let d = followed.decisions();
        assert_eq!((d.increases, d.holds, d.decreases), (1, 1, 2));
    }
}
