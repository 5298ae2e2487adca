//! A phase's key: the level of each sweep parameter a phase runs at. Its name (`work_64`,
//! `count_1000-payload_1024`: `<key>_<value>` per sweep parameter, joined with `-`) is what the records, the
//! summary's `phases` and every metric key (`<phase>.<metric>`) carry; this type is the one place that writes
//! that name and reads it back, so a reader asks a phase for a parameter's level instead of cutting its name.

use std::fmt;

/// The levels of a phase's sweep parameters, in sweep order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PhaseKey {
    /// Each sweep parameter's key (as [`crate::scenario::ParamSpec::key`] gives it) and its level.
    levels: Vec<(String, u64)>,
}

impl PhaseKey {
    /// This key with parameter `key` at `level` after the levels it has.
    #[must_use]
    pub fn with(mut self, key: &str, level: u64) -> PhaseKey {
        self.levels.push((key.to_string(), level));
        self
    }

    /// The key a phase's name writes (`count_1000-payload_1024`); `None` when a part is not `<key>_<whole number>`.
    pub fn parse(name: &str) -> Option<PhaseKey> {
        let levels = name.split('-').map(|part| {
            let (key, level) = part.rsplit_once('_')?;
            Some((key.to_string(), level.parse().ok()?)).filter(|_| !key.is_empty())
        });
        Some(PhaseKey { levels: levels.collect::<Option<_>>()? })
    }

    /// The level of parameter `key` in this phase, if the phase sweeps it (`rate` is 30000 in `rate_30000`).
    pub fn level(&self, key: &str) -> Option<u64> {
        self.levels.iter().find(|(k, _)| k == key).map(|&(_, level)| level)
    }

    /// Whether the key has no levels: a run without a sweep parameter, whose one phase has no name.
    pub fn is_empty(&self) -> bool {
        self.levels.is_empty()
    }
}

/// The phase's name: `<key>_<level>` per sweep parameter, joined with `-`.
impl fmt::Display for PhaseKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (key, level)) in self.levels.iter().enumerate() {
            if i > 0 {
                f.write_str("-")?;
            }
            write!(f, "{key}_{level}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phase_is_named_by_its_levels_in_sweep_order() {
        let key = PhaseKey::default().with("count", 1000).with("in_flight", 16);
        assert_eq!(key.to_string(), "count_1000-in_flight_16");
        assert_eq!(PhaseKey::default().with("work", 64).to_string(), "work_64");
    }

    #[test]
    fn a_name_reads_back_into_the_same_levels() {
        let key = PhaseKey::parse("count_1000-capacity_after_5").expect("a phase name");
        assert_eq!(key, PhaseKey::default().with("count", 1000).with("capacity_after", 5));
        assert_eq!(key.level("capacity_after"), Some(5));
        assert_eq!(key.level("capacity"), None, "a key is matched whole, not as a prefix");
    }

    #[test]
    fn a_name_that_is_not_levels_is_no_key() {
        for name in ["", "work", "work_", "_64", "work_x", "work_64-", "work_-1"] {
            assert_eq!(PhaseKey::parse(name), None, "{name:?}");
        }
    }
}
