//! The limit algorithm interface: one completed call in, the new limit out; and the [`Decisions`] each
//! algorithm counts, so a report can say what the limiter did, not only where its limit went.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// One completed call as the limit algorithm sees it.
///
/// Netflix's `AbstractLimiter` passes the in-flight count taken when the call was admitted, not when it
/// completed; so does the [`Gate`](super::Gate). The two times are on the gate's clock (time since the gate
/// was created), so an algorithm stays clock-free: a windowing wrapper ([`Windowed`](super::Windowed)) closes
/// a window on `completed`, and AIMD ignores samples `admitted` before its last cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    /// How long the call took, from its admission to its reply.
    pub latency: Duration,
    /// The gate's in-flight count when this call was admitted, including itself (so at least 1).
    pub in_flight: usize,
    /// Whether the dependency rejected the call, it failed or it timed out
    /// ([`Outcome::Dropped`](super::Outcome::Dropped)).
    pub dropped: bool,
    /// When the call was admitted, since the gate started.
    pub admitted: Duration,
    /// When the call was released (its reply seen), since the gate started.
    pub completed: Duration,
}

impl Sample {
    /// A sample admitted at time zero and completed `latency` later: what scripted tests feed an algorithm
    /// that does not look at time.
    pub fn new(latency: Duration, in_flight: usize, dropped: bool) -> Sample {
        Sample { latency, in_flight, dropped, admitted: Duration::ZERO, completed: latency }
    }
}

/// What a limit algorithm decided, counted per kind of decision over its life.
///
/// Every sample an algorithm acts on ends in exactly one of `increases`, `decreases`, `holds`, `app_limited`,
/// `probes` or `new_minimums`; a windowed algorithm also counts the samples it `ignored` (admitted before its
/// last cut) and the `windows` it closed (each window is one sample to the algorithm it wraps).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Decisions {
    /// Samples after which the limit rose.
    pub increases: u64,
    /// Samples after which the limit fell.
    pub decreases: u64,
    /// Samples the algorithm weighed and left the limit as it was (in its target band, or at a bound).
    pub holds: u64,
    /// Samples skipped because too little of the limit was in use to learn anything (app-limited).
    pub app_limited: u64,
    /// Vegas: samples that reset the no-load latency to probe it again.
    pub probes: u64,
    /// Vegas: samples that only lowered the no-load latency (a new minimum).
    pub new_minimums: u64,
    /// Windowed: samples ignored because their call was admitted before the last cut.
    pub ignored: u64,
    /// Windowed: windows closed, each one aggregated sample to the wrapped algorithm.
    pub windows: u64,
}

impl Decisions {
    /// Counts the move from `before` to `after` as an increase, a decrease or a hold.
    pub fn count_move(&mut self, before: usize, after: usize) {
        match after.cmp(&before) {
            std::cmp::Ordering::Greater => self.increases += 1,
            std::cmp::Ordering::Less => self.decreases += 1,
            std::cmp::Ordering::Equal => self.holds += 1,
        }
    }

    /// The counts as `(name, value)` pairs, in report order.
    pub fn named(&self) -> [(&'static str, u64); 8] {
        [
            ("increases", self.increases),
            ("decreases", self.decreases),
            ("holds", self.holds),
            ("app_limited", self.app_limited),
            ("probes", self.probes),
            ("new_minimums", self.new_minimums),
            ("ignored", self.ignored),
            ("windows", self.windows),
        ]
    }
}

/// A pure limit algorithm: sample in, new limit out.
///
/// Deterministic and clock-free, so it can be driven by scripted sequences; the [`Gate`](super::Gate) calls it
/// under its lock, so it must be cheap and must not block. The limit it returns is at least 1.
pub trait LimitAlgorithm: Send + std::fmt::Debug {
    /// The algorithm's name (`"fixed"`, `"aimd"`, `"gradient2"`, `"vegas"`).
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

    /// What the algorithm decided so far (an algorithm that keeps no counts, such as a test's scripted fake,
    /// reports none).
    fn decisions(&self) -> Decisions {
        Decisions::default()
    }

    /// For an algorithm that mirrors a limiter admitting on its own ([`Gate::follow`](super::Gate::follow)):
    /// the other limiter's limit is now `limit`. Every algorithm of this crate ignores it.
    fn follow(&mut self, _limit: usize) {}
}

/// Bounds made consistent rather than rejected, as every adaptive limit takes them: `min` at least 1, `max` at
/// least `min`, `initial` clamped into `[min, max]`; returned as `(initial, min, max)`.
pub(super) fn bounds(initial: usize, min: usize, max: usize) -> (usize, usize, usize) {
    let min = min.max(1);
    let max = max.max(min);
    (initial.clamp(min, max), min, max)
}

/// `value` clamped into `[low, high]`, or `default` when it is not finite.
pub(super) fn finite_within(value: f64, low: f64, high: f64, default: f64) -> f64 {
    if value.is_finite() {
        value.clamp(low, high)
    } else {
        default
    }
}

/// `Default` (from the default configuration) and [`LimitAlgorithm`] for a limit kept as an `f64` estimate
/// within `config.min` and `config.max` (Gradient2, Vegas): its name, its decisions, the estimate and its floor;
/// each sample goes to the type's own `update`.
macro_rules! estimate_limit {
    ($limit:ident, $config:ident, $name:literal) => {
        impl Default for $limit {
            fn default() -> Self {
                $limit::new($config::default())
            }
        }

        impl LimitAlgorithm for $limit {
            fn name(&self) -> &'static str {
                $name
            }

            fn decisions(&self) -> Decisions {
                self.decisions
            }

            fn limit(&self) -> usize {
                // `estimate` stays within [min, max], both at least 1.
                (self.estimate.floor() as usize).max(self.config.min)
            }

            fn estimated_limit(&self) -> f64 {
                self.estimate
            }

            fn on_sample(&mut self, sample: &Sample) -> usize {
                self.update(sample)
            }
        }
    };
}
pub(super) use estimate_limit;
