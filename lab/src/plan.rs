//! From options to the list of trials a run will make: resolved parameters, phases (sweep levels), selected
//! contestants, and the order trials run in (rotated from fork to fork so no contestant always runs first).

use std::collections::BTreeMap;

use measure::external::ExternalProgram;
use measure::record::{RunParams, TrialRequest};
use measure::scenario::Scenario;
use measure::setup::Pin;
use measure::summary::{ContestantInfo, Method};

use crate::options::{resolved_params, RunOptions};
pub(crate) use crate::phase::{fork_label, scenario_phases};

/// One trial the run will make, with its place in its fork's order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PlannedTrial {
    /// What the trial process is asked to do.
    pub request: TrialRequest,
    /// Position within its fork and phase, counting from 0.
    pub order: u32,
    /// The program that runs the trial instead of the lab's trial process, for a contestant that runs as a
    /// program of its own ([`Scenario::external`]), or why it cannot be asked for this trial; `None` for the lab's
    /// own contestants.
    pub external: Option<Result<ExternalProgram, String>>,
}

/// Everything a scenario run will do.
#[derive(Debug)]
pub(crate) struct RunPlan {
    /// The scenario.
    pub scenario: &'static dyn Scenario,
    /// Resolved parameter values.
    pub params: RunParams,
    /// Selected contestants in registry order.
    pub contestants: Vec<ContestantInfo>,
    /// Trials in the order they run.
    pub trials: Vec<PlannedTrial>,
    /// Repetitions and noise threshold.
    pub method: Method,
    /// The CPUs every trial process is pinned to (`--cores`); `None`: unpinned.
    pub pin: Option<Pin>,
    /// The calibration the judge reads its thresholds from when it matches the run's testbed; `None`: none.
    pub calibration: Option<std::path::PathBuf>,
    /// The floor the run cites when it was measured on the run's testbed and build; `None`: none.
    pub floor: Option<std::path::PathBuf>,
}

/// Plan a run of `scenario` under `options`. `options.only` names not in this scenario are ignored (they may
/// belong to another scenario of `lab all`); an empty selection plans no trial. The scenario's contestants on
/// request ([`Scenario::contestants_on_request`]) are planned only when `options.only` names them.
pub(crate) fn plan(scenario: &'static dyn Scenario, options: &RunOptions) -> RunPlan {
    let params = resolved_params(scenario, options);
    let phases = scenario_phases(scenario, &params);
    // Contestants on request join only a run whose `--only` names them.
    let on_request = if options.only.is_some() { scenario.contestants_on_request() } else { Vec::new() };
    let contestants: Vec<ContestantInfo> = scenario
        .contestants()
        .into_iter()
        .chain(on_request)
        .filter(|c| options.only.as_ref().is_none_or(|only| only.contains(&c.name)))
        .collect();
    let repetitions = options.repetitions(scenario);
    let method = Method {
        quick: options.quick,
        forks: repetitions.forks,
        warmup: repetitions.warmup,
        iterations: repetitions.iterations,
        accounting: repetitions.accounting,
        noise_threshold: options.noise_threshold,
        sdr: Default::default(),
        calibration: None,
        paired: options.paired.clone(),
        seed: options.seed,
        trial_timeout_s: options.trial_timeout.as_secs_f64(),
    };
    let mut trials = Vec::new();
    let n = contestants.len();
    for fork in 0..repetitions.forks {
        // Spread the starting contestant evenly over the forks.
        let shift = if n == 0 { 0 } else { (fork as usize * n.div_ceil(repetitions.forks as usize)) % n };
        for phase in &phases {
            for order in 0..n {
                let contestant = &contestants[(order + shift) % n];
                let request = TrialRequest {
                    scenario: scenario.name().to_string(),
                    contestant: contestant.name.clone(),
                    phase: phase.name.clone(),
                    params: phase.params.clone(),
                    fork,
                    warmup: repetitions.warmup,
                    iterations: repetitions.iterations,
                    seed: options.seed,
                    quick: options.quick,
                    accounting: repetitions.accounting,
                };
                let external = scenario.external(&request).map_err(|e| e.to_string()).transpose();
                trials.push(PlannedTrial { request, order: order as u32, external });
            }
        }
    }
    RunPlan {
        scenario,
        params,
        contestants,
        trials,
        method,
        pin: options.pin.clone(),
        calibration: options.calibration.clone(),
        floor: options.floor.clone(),
    }
}

/// Folder the reproduce command of a `--quick` run writes to: a run refuses to put a smoke run's reports over the
/// full run's in `reports/`, so the command, run as written, must name a scratch folder.
pub(crate) const QUICK_OUT: &str = "target/quick-reports";

/// The canonical command that reproduces a run with these parameters, method and pin, runnable as written.
pub(crate) fn command_line(
    scenario: &str,
    params: &RunParams,
    method: &Method,
    only: Option<&[String]>,
    pin: Option<&Pin>,
) -> String {
    let mut parts = vec!["just".to_string(), "lab".to_string(), scenario.to_string()];
    if method.quick {
        parts.push("--quick".to_string());
        parts.push(format!("--out {QUICK_OUT}"));
    }
    parts.extend([
        format!("--forks {}", method.forks),
        format!("--warmup {}", method.warmup),
        format!("--iterations {}", method.iterations),
        format!("--seed {}", method.seed),
    ]);
    if let Some(pin) = pin {
        parts.push(format!("--cores {}", pin.cores));
    }
    if !method.paired.is_empty() {
        parts.push(format!("--paired {}", method.paired.join(",")));
    } else if let Some(only) = only {
        parts.push(format!("--only {}", only.join(",")));
    }
    let ordered: BTreeMap<&String, &Vec<u64>> = params.iter().collect();
    parts.extend(ordered.into_iter().map(|(key, values)| param_flag(key, values)));
    parts.join(" ")
}

/// Parameter `key` set to `values` on the command line: `--small-items 1,2`.
pub(crate) fn param_flag(key: &str, values: &[u64]) -> String {
    format!("--{} {}", key.replace('_', "-"), crate::term::comma_list(values))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::phase::phases;

    fn run_params(pairs: &[(&str, &[u64])]) -> RunParams {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_vec())).collect()
    }

    #[test]
    fn a_sweep_parameter_makes_one_phase_per_value() {
        let params = run_params(&[("items", &[10]), ("work", &[0, 64])]);
        let phases = phases(&params, &["work".to_string()]);
        let names: Vec<_> = phases.iter().map(|p| p.name.clone().unwrap_or_default()).collect();
        assert_eq!(names, ["work_0", "work_64"]);
        assert_eq!(phases[1].params.get("work"), Some(&64));
        assert_eq!(phases[1].params.get("items"), Some(&10));
    }

    #[test]
    fn no_sweep_parameter_makes_one_unnamed_phase() {
        let params = run_params(&[("items", &[10])]);
        let phases = phases(&params, &[]);
        assert_eq!(phases.len(), 1);
        assert_eq!(phases[0].name, None);
    }

    #[test]
    fn a_scenario_plans_only_the_sweep_combinations_it_keeps() {
        // The service's sweeps (work × rate × loss × policy) do not all cross: 3 × 2 × 2 × 2 = 24 combinations,
        // of which it keeps the search and one fixed rate at every work, and the loss under both policies once.
        let scenario = crate::registry::find("service").expect("service is registered");
        let planned = plan(scenario, &RunOptions::default());
        let names: std::collections::BTreeSet<String> =
            planned.trials.iter().filter_map(|t| t.request.phase.clone()).collect();
        assert_eq!(names.len(), 8, "{names:?}");
        assert!(planned.trials.iter().all(|t| scenario.keeps_phase(&t.request.params, &planned.params)));
        assert!(
            !names.iter().any(|n| n.contains("loss_pct_0-aimd_1") || n.contains("rate_0-loss_pct_90")),
            "{names:?}"
        );
    }

    #[test]
    fn contestants_on_request_are_planned_only_when_only_names_them() {
        let scenario = crate::registry::find("handoff").expect("handoff is registered");
        let variant = scenario.contestants_on_request().into_iter().next().expect("handoff has contestants on request");
        let default = plan(scenario, &RunOptions::default());
        assert!(!default.contestants.iter().any(|c| c.name == variant.name));
        let only = RunOptions {
            only: Some(vec!["blocking-crossbeam-bare".to_string(), variant.name.clone()]),
            ..RunOptions::default()
        };
        let names: Vec<String> = plan(scenario, &only).contestants.into_iter().map(|c| c.name).collect();
        assert_eq!(names, ["blocking-crossbeam-bare".to_string(), variant.name]);
    }

    #[test]
    fn a_standalone_program_is_planned_as_its_own_program_in_the_same_rotation() {
        let scenario = crate::registry::find("handoff").expect("handoff is registered");
        let options = RunOptions {
            only: Some(vec!["blocking-crossbeam".to_string(), "blocking-crossbeam-standalone".to_string()]),
            forks: Some(2),
            quick: true,
            ..RunOptions::default()
        };
        let planned = plan(scenario, &options);
        let firsts: Vec<&str> =
            planned.trials.iter().filter(|t| t.order == 0).map(|t| t.request.contestant.as_str()).collect();
        assert_eq!(firsts.len(), 4, "2 forks × 2 capacities");
        assert!(firsts.contains(&"blocking-crossbeam") && firsts.contains(&"blocking-crossbeam-standalone"));
        for trial in &planned.trials {
            match (trial.request.contestant.as_str(), &trial.external) {
                ("blocking-crossbeam", None) => {}
                ("blocking-crossbeam-standalone", Some(Ok(program))) => {
                    assert_eq!(program.program, "standalone");
                    assert_eq!(program.args.first().map(String::as_str), Some("crossbeam"));
                }
                (name, external) => panic!("{name}: {external:?}"),
            }
        }
    }

    #[test]
    fn the_first_fork_is_fork_1_wherever_a_person_reads_it() {
        assert_eq!(fork_label(0), "fork 1");
        assert_eq!(fork_label(2), "fork 3");
    }

    #[test]
    fn command_line_lists_method_and_params() {
        let params = run_params(&[("in_flight", &[1000, 10000])]);
        let method = crate::table::tests::quick_method(7);
        assert_eq!(
            command_line("device", &params, &method, None, None),
            "just lab device --quick --out target/quick-reports --forks 1 --warmup 1 --iterations 2 --seed 7 --in-flight 1000,10000"
        );
        let pin = Pin { cores: 1, cpus: vec![0] };
        assert!(command_line("device", &params, &method, None, Some(&pin)).contains(" --seed 7 --cores 1 --in-flight"));
    }
}
