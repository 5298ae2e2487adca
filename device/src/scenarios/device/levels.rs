//! The run's in-flight levels (one phase each) and the best contestant of a family at one: what the claim table
//! and the report both read, below both of them.

use measure::summary::{Family, MetricStats, Summary};

use super::{CONTESTANTS, HEADLINE};
use crate::contestants::Timer;

/// The ideal calls per second at `level` in flight: `level / service time`.
pub(crate) fn ideal(summary: &Summary, level: u64) -> Option<f64> {
    Some(level as f64 * 1e3 / summary.param("service_ms")?)
}

/// The in-flight level of a phase name such as `in_flight_10000`.
pub(crate) fn level(phase: &str) -> Option<u64> {
    phase.strip_prefix("in_flight_")?.parse().ok()
}

/// The run's levels with their phase names, lowest first.
pub(crate) fn levels(summary: &Summary) -> Vec<(u64, &str)> {
    let mut levels: Vec<(u64, &str)> =
        summary.phases.iter().filter_map(|p| level(p).map(|l| (l, p.as_str()))).collect();
    levels.sort_unstable();
    levels
}

/// `phase.metric`.
pub(crate) fn key(phase: &str, metric: &str) -> String {
    format!("{phase}.{metric}")
}

/// The contestant of `family` waiting on `timer` with the highest median throughput at `phase`.
pub(crate) fn best<'s>(
    summary: &'s Summary,
    family: Family,
    timer: Timer,
    phase: &str,
) -> Option<(String, &'s MetricStats)> {
    CONTESTANTS
        .iter()
        .filter(|c| c.family() == family && c.timer() == timer)
        .filter_map(|c| summary.metric(&c.name(), &key(phase, HEADLINE)).map(|s| (c.name(), s)))
        .max_by(|a, b| a.1.median.total_cmp(&b.1.median))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_level_is_read_from_its_phase_name() {
        assert_eq!(level("in_flight_10000"), Some(10_000));
        assert_eq!(level("in_flight_x"), None);
        assert_eq!(level("rounds_6"), None);
        assert_eq!(key("in_flight_1000", "ops_per_sec"), "in_flight_1000.ops_per_sec");
    }
}
