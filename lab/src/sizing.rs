//! The sizes of the runtimes and pools inside a trial process, per scenario, as [`Setting`]s: tokio's worker
//! threads, rayon's pool, `may`'s carriers, and the network scenarios' client and server cores. A size follows the
//! cores a trial may use (tokio and rayon size themselves by `available_parallelism`, which honours the affinity
//! mask `--cores` sets) or is fixed in a scenario's code whatever the cores; each row names the file that decides
//! it, and a test checks that the file still does.

use measure::record::RunParams;
use measure::setup::Setting;

/// How a size is decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Value {
    /// By `available_parallelism` in the trial process (or an environment variable that overrides it).
    Parallelism,
    /// Fixed in the lab's code.
    Fixed(&'static str),
}

/// One size: its setting's name, how it is decided, why, and the file and code that decide it.
#[derive(Debug, Clone, Copy)]
struct Size {
    /// The setting's id (`tokio.worker_threads`, `rayon.threads`, `may.carriers`).
    name: &'static str,
    /// How it is decided.
    value: Value,
    /// Where, in words, after the file.
    why: &'static str,
    /// The file, from the workspace root.
    file: &'static str,
    /// Code the file holds that decides it.
    code: &'static str,
}

/// tokio's multi-thread runtime with its default worker count, built in `file`.
const fn tokio(file: &'static str, code: &'static str) -> Size {
    Size {
        name: "tokio.worker_threads",
        value: Value::Parallelism,
        why: "tokio's default: one worker per CPU",
        file,
        code,
    }
}

/// rayon's pool with its default thread count, built in `file`.
const fn rayon(file: &'static str) -> Size {
    Size {
        name: "rayon.threads",
        value: Value::Parallelism,
        why: "rayon's default: one thread per CPU",
        file,
        code: "ThreadPoolBuilder::new()",
    }
}

/// `may` with `carriers` carrier threads fixed in `file`.
const fn may_fixed(carriers: &'static str, file: &'static str, code: &'static str) -> Size {
    Size {
        name: "may.carriers",
        value: Value::Fixed(carriers),
        why: "fixed by the lab (`may::config().set_workers`), whatever the cores",
        file,
        code,
    }
}

/// `may` with one carrier per CPU the trial may use, set in `file` by `code`.
const fn may_per_core(file: &'static str, code: &'static str) -> Size {
    Size {
        name: "may.carriers",
        value: Value::Parallelism,
        why: "set by the lab (`may::config().set_workers`): one carrier per CPU",
        file,
        code,
    }
}

/// The sizes of `scenario`'s runtimes, as its code decides them.
fn sizes(scenario: &str) -> Vec<Size> {
    let stream_runtime = tokio("pipelines/src/stream/runtime.rs", "Builder::new_multi_thread()");
    match scenario {
        "chain" => vec![
            stream_runtime,
            rayon("chain/src/chain/contestants/rayon.rs"),
            may_per_core("chain/src/chain/contestants/may_coroutines.rs", "CoroutineConfig::per_core()"),
        ],
        "handoff" => vec![
            stream_runtime,
            may_per_core("handoff/src/handoff/contestants/may_mpsc.rs", "CoroutineConfig::per_core()"),
        ],
        "overload" => vec![
            tokio("overload/src/overload/contestants/stream.rs", "Builder::new_multi_thread().build()"),
            may_per_core("overload/src/job.rs", "CoroutineConfig::per_core()"),
        ],
        "overload-service" => vec![
            tokio("overload/src/overload_service/contestants/mod.rs", "Builder::new_multi_thread()"),
            may_per_core("overload/src/job.rs", "CoroutineConfig::per_core()"),
        ],
        "device" => vec![
            tokio("device/src/contestants/stream.rs", "std::thread::available_parallelism()"),
            may_fixed(
                "1 or 2, as each coroutine contestant's name says",
                "device/src/device/contestants/mod.rs",
                "carriers: Some(1)",
            ),
        ],
        "backpressure" => vec![
            tokio("device/src/contestants/stream.rs", "std::thread::available_parallelism()"),
            may_per_core("device/src/contestants/coroutine.rs", "pipelines::coroutine::carriers_per_core()"),
        ],
        "memory" => vec![
            tokio("costs/src/memory/contestants/mod.rs", "Builder::new_multi_thread()"),
            may_per_core("costs/src/memory/contestants/mod.rs", "CoroutineConfig::per_core()"),
        ],
        "primitives" => vec![
            tokio("costs/src/primitives/contestants/mod.rs", "Builder::new_multi_thread()"),
            rayon("costs/src/primitives/contestants/rayon_spawn.rs"),
            may_per_core("costs/src/primitives/contestants/mod.rs", "CoroutineConfig::per_core()"),
        ],
        _ => Vec::new(),
    }
}

/// The environment variable that overrides a size decided by `available_parallelism`, if any.
fn override_variable(name: &str) -> Option<&'static str> {
    match name {
        "tokio.worker_threads" => Some("TOKIO_WORKER_THREADS"),
        "rayon.threads" => Some("RAYON_NUM_THREADS"),
        _ => None,
    }
}

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
    scenario: &str,
    params: &RunParams,
    cpus: &[usize],
    parallelism: usize,
    pinned: bool,
    variable: impl Fn(&str) -> Option<String>,
) -> Vec<Setting> {
    if scenario == "http" || scenario == "tcp" {
        return network(params, cpus);
    }
    sizes(scenario)
        .into_iter()
        .map(|size| {
            let (value, source) = match size.value {
                Value::Parallelism => match override_variable(size.name).and_then(|v| Some((v, variable(v)?))) {
                    Some((name, set)) => (set, format!("{name} in the lab's environment, which the trial inherits")),
                    None => (parallelism.to_string(), format!("{}, {}", size.why, parallelism_source(pinned))),
                },
                Value::Fixed(value) => (value.to_string(), size.why.to_string()),
            };
            Setting::new(size.name, value, format!("{source} ({} `{}`)", size.file, size.code))
        })
        .collect()
}

/// The network scenarios' placement and sizes on `cpus`: the server on the first, the client on the next one
/// ([`network::affinity::CLIENT_CORES`]), every client runtime sized to it; with one CPU (or `--pinned 0`)
/// nothing is pinned apart and the server shares the client's CPUs.
fn network(params: &RunParams, cpus: &[usize]) -> Vec<Setting> {
    let client = network::affinity::CLIENT_CORES;
    let apart = params.get("pinned").is_none_or(|v| v.first() != Some(&0));
    let placement = "network/src/affinity.rs `Placement::plan`";
    let (server, client_value, client_source) = match cpus.split_first() {
        Some((first, rest)) if apart && rest.len() >= client => {
            let idle = rest.len() - client;
            let idle = if idle == 0 { String::new() } else { format!("; {idle} more CPU(s) idle") };
            (
                format!("its own core, CPU {first}"),
                format!("{client} (CPU {})", measure::setup::cpu_list(&rest[..client])),
                format!("fixed by the lab whatever the cores: network/src/affinity.rs `CLIENT_CORES`{idle}"),
            )
        }
        _ if apart => (
            format!(
                "shares {} {} with the client (with one CPU it cannot have a core of its own; nothing is pinned apart)",
                if cpus.len() == 1 { "CPU" } else { "CPUs" },
                measure::setup::cpu_list(cpus)
            ),
            format!("{client}, shared with the server"),
            format!("fewer than two CPUs: nothing pinned apart, the client's runtimes sized to `CLIENT_CORES` ({placement})"),
        ),
        _ => (
            format!("shares all {} CPU(s) with the client, unpinned (`--pinned 0`)", cpus.len()),
            format!("{}, shared with the server", cpus.len()),
            "unpinned by request (`--pinned 0`): the client's runtimes sized to every CPU (network/src/session.rs)"
                .to_string(),
        ),
    };
    let sized = if apart { client.to_string() } else { cpus.len().to_string() };
    vec![
        Setting::new(
            "network.server",
            server,
            format!("{placement}; a current-thread tokio runtime (network/src/server.rs)"),
        ),
        Setting::new("network.client_cores", client_value, client_source),
        Setting::new("tokio.worker_threads", sized.clone(), "one per client core (network/src/tasks.rs `workers()`)"),
        Setting::new("may.carriers", sized, "one per client core (network/src/affinity.rs `may_config()`)"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, u64)]) -> RunParams {
        pairs.iter().map(|(k, v)| (k.to_string(), vec![*v])).collect()
    }

    fn none(_: &str) -> Option<String> {
        None
    }

    fn value<'s>(rows: &'s [Setting], name: &str) -> &'s str {
        rows.iter().find(|r| r.name == name).map_or("", |r| r.value.as_str())
    }

    #[test]
    fn tokio_rayon_and_may_all_follow_the_pin_in_the_chain() {
        let rows = runtimes("chain", &params(&[]), &[0], 1, true, none);
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
            let rows = runtimes(scenario, &params(&[]), &[0], 1, true, none);
            assert_eq!(value(&rows, "may.carriers"), "1", "{scenario}: may follows a one-CPU pin");
        }
        let device = runtimes("device", &params(&[]), &[0], 1, true, none);
        assert!(value(&device, "may.carriers").contains("as each coroutine contestant's name says"));
    }

    #[test]
    fn an_environment_variable_overrides_the_default_worker_count() {
        let tokio = |name: &str| (name == "TOKIO_WORKER_THREADS").then(|| "7".to_string());
        let rows = runtimes("primitives", &params(&[]), &[0, 1], 2, false, tokio);
        assert_eq!(value(&rows, "tokio.worker_threads"), "7");
        assert_eq!(value(&rows, "rayon.threads"), "2");
        assert_eq!(value(&rows, "may.carriers"), "2");
    }

    #[test]
    fn the_network_server_keeps_its_own_core_from_two_cpus_and_shares_below() {
        let two = runtimes("tcp", &params(&[("pinned", 1)]), &[0, 1], 2, true, none);
        assert_eq!(value(&two, "network.server"), "its own core, CPU 0");
        assert_eq!(value(&two, "network.client_cores"), "1 (CPU 1)");
        assert_eq!(value(&two, "tokio.worker_threads"), "1");
        let one = runtimes("tcp", &params(&[("pinned", 1)]), &[0], 1, true, none);
        assert_eq!(
            value(&one, "network.server"),
            "shares CPU 0 with the client (with one CPU it cannot have a core of its own; nothing is pinned apart)"
        );
        assert_eq!(value(&one, "network.client_cores"), "1, shared with the server");
        let four = runtimes("http", &params(&[]), &[0, 1, 2, 3], 4, true, none);
        assert!(four[1].source.ends_with("2 more CPU(s) idle"), "{}", four[1].source);
        let shared = runtimes("http", &params(&[("pinned", 0)]), &[0, 1], 2, false, none);
        assert_eq!(value(&shared, "tokio.worker_threads"), "2");
    }

    #[test]
    fn every_scenario_has_its_sizes() {
        for scenario in crate::registry::scenarios() {
            let rows = runtimes(scenario.name(), &params(&[]), &[0, 1], 2, false, none);
            assert!(rows.iter().any(|r| r.name == "tokio.worker_threads"), "{}", scenario.name());
            assert!(rows.iter().any(|r| r.name == "may.carriers"), "{}", scenario.name());
        }
    }

    #[test]
    fn every_file_a_size_names_still_decides_it() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for scenario in crate::registry::scenarios() {
            for size in sizes(scenario.name()) {
                let text = std::fs::read_to_string(root.join(size.file)).unwrap_or_default();
                assert!(text.contains(size.code), "{}: {} no longer holds `{}`", scenario.name(), size.file, size.code);
            }
        }
        let network = std::fs::read_to_string(root.join("network/src/affinity.rs")).unwrap_or_default();
        assert!(network.contains("pub const CLIENT_CORES: usize = 1;"));
        assert!(network.contains("CoroutineConfig::new(client_cores())"), "may_config sizes by the client's cores");
        let tasks = std::fs::read_to_string(root.join("network/src/tasks.rs")).unwrap_or_default();
        assert!(tasks.contains("pub fn workers() -> usize {\n    crate::affinity::client_cores()"));
        for scenario in ["http", "tcp"] {
            let file = root.join(format!("network/src/{scenario}/contestants/coroutine_may.rs"));
            assert!(std::fs::read_to_string(file).unwrap_or_default().contains("affinity::may_config()"), "{scenario}");
        }
    }
}
