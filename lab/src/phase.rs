//! Phases (sweep levels) of a run and how a person reads a fork: what planning a run and summarizing its records
//! both need, kept apart from the planning so that rendering a report needs no options.

use measure::phase::PhaseKey;
use measure::record::{RunParams, TrialParams};
use measure::scenario::Scenario;

/// One phase of a run: a combination of sweep-parameter values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Phase {
    /// `None` for a scenario without a sweep parameter, else such as `work_64`.
    pub name: Option<String>,
    /// Every parameter's single value in this phase.
    pub params: TrialParams,
}

/// The cartesian product of the sweep parameters' values, each named by its [`PhaseKey`] (`<key>_<value>` joined
/// with `-`).
pub(crate) fn phases(params: &RunParams, sweep_keys: &[String]) -> Vec<Phase> {
    let fixed: TrialParams = params
        .iter()
        .filter(|(k, _)| !sweep_keys.contains(k))
        .filter_map(|(k, v)| v.first().map(|&first| (k.clone(), first)))
        .collect();
    let mut phases = vec![(PhaseKey::default(), fixed)];
    for key in sweep_keys {
        let values = params.get(key).cloned().unwrap_or_default();
        let mut next = Vec::new();
        for (levels, params) in &phases {
            for &value in &values {
                let mut params = params.clone();
                params.insert(key.clone(), value);
                next.push((levels.clone().with(key, value), params));
            }
        }
        phases = next;
    }
    phases.into_iter().map(|(key, params)| Phase { name: (!key.is_empty()).then(|| key.to_string()), params }).collect()
}

/// The phases of a run of `scenario` with `params`: the cartesian product of its sweeps' values, less the
/// combinations the scenario does not keep ([`Scenario::keeps_phase`]).
pub(crate) fn scenario_phases(scenario: &dyn Scenario, params: &RunParams) -> Vec<Phase> {
    let sweep_keys: Vec<String> = scenario.params().iter().filter(|s| s.sweep).map(|s| s.key()).collect();
    phases(params, &sweep_keys).into_iter().filter(|phase| scenario.keeps_phase(&phase.params, params)).collect()
}

/// How a person reads fork `fork` (the records' `fork` counts from 0): `fork 1` is the first, in the terminal
/// and in reports alike.
pub(crate) fn fork_label(fork: u32) -> String {
    format!("fork {}", fork + 1)
}
