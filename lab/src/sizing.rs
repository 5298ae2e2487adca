//! The sizes of the runtimes and pools inside a trial process, as [`Setting`]s: tokio's worker threads, rayon's
//! pool, `may`'s carriers, and the network scenarios' client and server cores. Each scenario declares its sizes
//! ([`Scenario::runtime_sizes`]): a size follows the cores a trial may use (tokio and rayon size themselves by
//! `available_parallelism`, which honours the affinity mask `--cores` sets), is fixed in a scenario's code whatever
//! the cores, or follows the scenario's own placement; each names the file that decides it, and a test checks that
//! the file still does.

use measure::record::RunParams;
use measure::runtime_size::{Decided, TrialCpus};
use measure::scenario::Scenario;
use measure::setup::Setting;

/// Where the trial's `available_parallelism` comes from, in words: the pin, or the lab's own CPUs.
fn parallelism_source(pinned: bool) -> &'static str {
    if pinned {
        "`available_parallelism` of the trial process, which is the CPUs `--cores` pinned it to"
    } else {
        "`available_parallelism` of the trial process, which is every CPU the lab may use"
    }
}

/// The runtimes' sizes inside a trial process of `scenario` run with `params`, on `cpus` (the CPUs the trial may
/// use, in order) where `available_parallelism` gives `parallelism`; `pinned` when `--cores` chose the CPUs.
/// `variable` reads an environment variable the trial inherits (`TOKIO_WORKER_THREADS`, `RAYON_NUM_THREADS`).
pub(crate) fn runtimes(
    scenario: &dyn Scenario,
    params: &RunParams,
    cpus: &[usize],
    parallelism: usize,
    pinned: bool,
    variable: impl Fn(&str) -> Option<String>,
) -> Vec<Setting> {
    let on = TrialCpus { params, cpus };
    scenario
        .runtime_sizes()
        .into_iter()
        .map(|size| {
            let decided_in = format!("({} `{}`)", size.code.file, size.code.holds);
            let (value, source) = match size.decided {
                Decided::PerCpu { why, variable: name } => match name.and_then(|n| Some((n, variable(n)?))) {
                    Some((name, set)) => (set, format!("{name} in the lab's environment, which the trial inherits")),
                    None => (parallelism.to_string(), format!("{why}, {}", parallelism_source(pinned))),
                },
                Decided::Fixed { value, why } => (value.to_string(), why.to_string()),
                Decided::Placed(place) => {
                    let decision = place(&on);
                    return Setting::new(size.setting, decision.value, decision.source);
                }
            };
            Setting::new(size.setting, value, format!("{source} {decided_in}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, u64)]) -> RunParams {
        pairs.iter().map(|(k, v)| (k.to_string(), vec![*v])).collect()
    }

    /// The registered scenario `name`.
    fn scenario(name: &str) -> &'static dyn Scenario {
        crate::registry::find(name).unwrap_or_else(|| panic!("{name} is registered"))
    }

    fn none(_: &str) -> Option<String> {
        None
    }

    fn value<'s>(rows: &'s [Setting], name: &str) -> &'s str {
        rows.iter().find(|r| r.name == name).map_or("", |r| r.value.as_str())
    }

    #[test]
    fn tokio_rayon_and_may_all_follow_the_pin_in_the_chain() {
        let rows = runtimes(scenario("chain"), &params(&[]), &[0], 1, true, none);
        assert_eq!(value(&rows, "tokio.worker_threads"), "1");
        assert_eq!(value(&rows, "rayon.threads"), "1");
        assert_eq!(value(&rows, "may.carriers"), "1");
        assert!(rows[0].source.contains("the CPUs `--cores` pinned it to"), "{}", rows[0].source);
        assert!(rows[2].source.contains("one carrier per CPU"), "{}", rows[2].source);
        assert!(rows[2]
            .source
            .ends_with("(chain/src/chain/contestants/may_coroutines.rs `CoroutineConfig::per_core()`)"));
    }

    #[test]
    fn only_the_device_sweep_fixes_may_carriers_in_its_contestants_names() {
        for scenario in ["chain", "handoff", "overload", "overload-service", "backpressure", "memory", "primitives"] {
            let rows = runtimes(self::scenario(scenario), &params(&[]), &[0], 1, true, none);
            assert_eq!(value(&rows, "may.carriers"), "1", "{scenario}: may follows a one-CPU pin");
        }
        let device = runtimes(scenario("device"), &params(&[]), &[0], 1, true, none);
        assert!(value(&device, "may.carriers").contains("as each coroutine contestant's name says"));
    }

    #[test]
    fn an_environment_variable_overrides_the_default_worker_count() {
        let tokio = |name: &str| (name == "TOKIO_WORKER_THREADS").then(|| "7".to_string());
        let rows = runtimes(scenario("primitives"), &params(&[]), &[0, 1], 2, false, tokio);
        assert_eq!(value(&rows, "tokio.worker_threads"), "7");
        assert_eq!(value(&rows, "rayon.threads"), "2");
        assert_eq!(value(&rows, "may.carriers"), "2");
    }

    #[test]
    fn the_network_server_keeps_its_own_core_from_two_cpus_and_shares_below() {
        let two = runtimes(scenario("tcp"), &params(&[("pinned", 1)]), &[0, 1], 2, true, none);
        assert_eq!(value(&two, "network.server"), "its own core, CPU 0");
        assert_eq!(value(&two, "network.client_cores"), "1 (CPU 1)");
        assert_eq!(value(&two, "tokio.worker_threads"), "1");
        let one = runtimes(scenario("tcp"), &params(&[("pinned", 1)]), &[0], 1, true, none);
        assert_eq!(
            value(&one, "network.server"),
            "shares CPU 0 with the client (with one CPU it cannot have a core of its own; nothing is pinned apart)"
        );
        assert_eq!(value(&one, "network.client_cores"), "1, shared with the server");
        let four = runtimes(scenario("http"), &params(&[]), &[0, 1, 2, 3], 4, true, none);
        assert!(four[1].source.ends_with("2 more CPU(s) idle"), "{}", four[1].source);
        let shared = runtimes(scenario("http"), &params(&[("pinned", 0)]), &[0, 1], 2, false, none);
        assert_eq!(value(&shared, "tokio.worker_threads"), "2");
    }

    #[test]
    fn every_scenario_has_its_sizes() {
        for scenario in crate::registry::scenarios() {
            let rows = runtimes(scenario, &params(&[]), &[0, 1], 2, false, none);
            assert!(rows.iter().any(|r| r.name == "tokio.worker_threads"), "{}", scenario.name());
            assert!(rows.iter().any(|r| r.name == "may.carriers"), "{}", scenario.name());
        }
    }

    #[test]
    fn every_file_a_size_names_still_decides_it() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for scenario in crate::registry::scenarios() {
            for size in scenario.runtime_sizes() {
                for code in size.codes() {
                    let text = std::fs::read_to_string(root.join(code.file)).unwrap_or_default();
                    let name = scenario.name();
                    assert!(text.contains(code.holds), "{name}: {} no longer holds `{}`", code.file, code.holds);
                }
            }
        }
    }
}
