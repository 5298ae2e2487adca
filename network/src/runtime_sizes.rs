//! The network scenarios' placement and runtime sizes on a trial's CPUs, as both declare them
//! ([`measure::scenario::Scenario::runtime_sizes`]): the server on the first CPU, the client on the next
//! [`CLIENT_CORES`], every client runtime sized to it; with one CPU (or `--pinned 0`) nothing is pinned apart and the
//! server shares the client's CPUs.

use measure::runtime_size::{Code, Decision, RuntimeSize, TrialCpus};

use crate::affinity::CLIENT_CORES;

/// Where the placement is planned, as every placed size's source names it.
const PLACEMENT: &str = "network/src/affinity.rs `Placement::plan`";

/// `may_config()` sizes `may` by the client's cores.
const MAY_CONFIG: &[Code] = &[Code::new("network/src/affinity.rs", "CoroutineConfig::new(client_cores())")];

/// The sizes of a network scenario whose `may` contestant (in `coroutine_may`, from the workspace root) takes its
/// configuration from [`crate::affinity::may_config`].
pub fn declared(coroutine_may: &'static str) -> Vec<RuntimeSize> {
    vec![
        RuntimeSize::placed(
            "network.server",
            server,
            Code::new("network/src/affinity.rs", "pub fn plan() -> Placement"),
        ),
        RuntimeSize::placed(
            "network.client_cores",
            client_cores,
            Code::new("network/src/affinity.rs", "pub const CLIENT_CORES: usize = 1;"),
        ),
        RuntimeSize::placed(
            "tokio.worker_threads",
            tokio_workers,
            Code::new("network/src/tasks.rs", "pub fn workers() -> usize {\n    crate::affinity::client_cores()"),
        ),
        RuntimeSize::placed("may.carriers", may_carriers, Code::new(coroutine_may, "affinity::may_config()"))
            .relying_on(MAY_CONFIG),
    ]
}

/// Whether the run pins the server and the client apart (`--pinned`, 1 by default).
fn apart(on: &TrialCpus<'_>) -> bool {
    on.params.get("pinned").is_none_or(|v| v.first() != Some(&0))
}

/// The server's CPU, or the CPUs it shares with the client.
fn server(on: &TrialCpus<'_>) -> Decision {
    let cpus = on.cpus;
    let value = match cpus.split_first() {
        Some((first, rest)) if apart(on) && rest.len() >= CLIENT_CORES => format!("its own core, CPU {first}"),
        _ if apart(on) => format!(
            "shares {} {} with the client (with one CPU it cannot have a core of its own; nothing is pinned apart)",
            if cpus.len() == 1 { "CPU" } else { "CPUs" },
            measure::setup::cpu_list(cpus)
        ),
        _ => format!("shares all {} CPU(s) with the client, unpinned (`--pinned 0`)", cpus.len()),
    };
    Decision { value, source: format!("{PLACEMENT}; a current-thread tokio runtime (network/src/server.rs)") }
}

/// The client's CPUs.
fn client_cores(on: &TrialCpus<'_>) -> Decision {
    let cpus = on.cpus;
    let (value, source) = match cpus.split_first() {
        Some((_, rest)) if apart(on) && rest.len() >= CLIENT_CORES => {
            let idle = rest.len() - CLIENT_CORES;
            let idle = if idle == 0 { String::new() } else { format!("; {idle} more CPU(s) idle") };
            (
                format!("{CLIENT_CORES} (CPU {})", measure::setup::cpu_list(&rest[..CLIENT_CORES])),
                format!("fixed by the lab whatever the cores: network/src/affinity.rs `CLIENT_CORES`{idle}"),
            )
        }
        _ if apart(on) => (
            format!("{CLIENT_CORES}, shared with the server"),
            format!(
                "fewer than two CPUs: nothing pinned apart, the client's runtimes sized to `CLIENT_CORES` ({PLACEMENT})"
            ),
        ),
        _ => (
            format!("{}, shared with the server", cpus.len()),
            "unpinned by request (`--pinned 0`): the client's runtimes sized to every CPU (network/src/session.rs)"
                .to_string(),
        ),
    };
    Decision { value, source }
}

/// What every client runtime is sized to: [`CLIENT_CORES`] unless unpinned by request, then every CPU.
fn sized(on: &TrialCpus<'_>) -> String {
    if apart(on) {
        CLIENT_CORES.to_string()
    } else {
        on.cpus.len().to_string()
    }
}

/// tokio's workers in the client: one per client core.
fn tokio_workers(on: &TrialCpus<'_>) -> Decision {
    Decision { value: sized(on), source: "one per client core (network/src/tasks.rs `workers()`)".to_string() }
}

/// `may`'s carriers in the client: one per client core.
fn may_carriers(on: &TrialCpus<'_>) -> Decision {
    Decision { value: sized(on), source: "one per client core (network/src/affinity.rs `may_config()`)".to_string() }
}
