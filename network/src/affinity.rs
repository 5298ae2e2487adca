//! Pinning the server and the client to different cores with `sched_setaffinity`, so the client's CPU and the
//! server's do not compete; on a machine with one usable core nothing is pinned, and the report says so.
//!
//! The placement is the same for every family: the server process on the first allowed core, the whole client
//! (trial) process — every thread it starts, runtime workers, carriers, blocking-pool and connection threads — on
//! exactly one other core ([`CLIENT_CORES`]), and every client runtime sized to that one core (1 tokio worker,
//! 1 `may` carrier).

/// Cores the client process gets, and so what every client runtime is sized to: 1 tokio worker, 1 `may` carrier.
pub const CLIENT_CORES: usize = 1;

/// The cores the client runtimes of this process are sized to: [`CLIENT_CORES`] unless a trial runs unpinned.
static CLIENT_CORES_IN_FORCE: AtomicUsize = AtomicUsize::new(CLIENT_CORES);

/// The cores the client runtimes of this process are sized to (tokio workers, `may` carriers): [`CLIENT_CORES`]
/// when pinned (the default), every allowed core in an unpinned trial.
pub fn client_cores() -> usize {
    CLIENT_CORES_IN_FORCE.load(Ordering::Relaxed).max(1)
}

/// Size this process's client runtimes to `cores` (a trial's session does, before any contestant runs).
pub fn set_client_cores(cores: usize) {
    CLIENT_CORES_IN_FORCE.store(cores.max(1), Ordering::Relaxed);
}

/// What ran where, for every contestant's description.
pub const PLACEMENT: &str = "Placement (`pinned` = 1, the default): the server process pinned to one core, this whole \
                             client process (every thread it starts) pinned to one other core, runtimes sized to it; \
                             with `pinned` = 0 nothing is pinned and runtimes are sized to every core.";

use std::sync::atomic::{AtomicUsize, Ordering};

use pipelines::coroutine::CoroutineConfig;

use serde::{Deserialize, Serialize};

/// A contestant's description completed with what ran where and the timeout policy every client shares.
pub fn described(what: &str) -> String {
    format!("{what} {PLACEMENT} No timeout on any call or exchange (the policy of every client).")
}

/// How both `may` contestants configure `may` by default: one carrier per client core ([`CLIENT_CORES`]) and
/// `may`'s default stack.
pub const MAY: CoroutineConfig = CoroutineConfig::new(CLIENT_CORES);

/// The `may` configuration in force: one carrier per core the client runtimes are sized to ([`client_cores`]).
pub fn may_config() -> CoroutineConfig {
    CoroutineConfig::new(client_cores())
}

/// How the `may` contestants set `may` up ([`MAY`]), in words: its carriers (sized to the client's core) and stack.
pub fn may_setup() -> String {
    let config = MAY;
    format!(
        "`may` 0.3 with {} carrier thread{} (`may::config().set_workers`, sized to the client's {} core{}) beside \
         `may`'s timer thread, {} KiB stack per coroutine",
        config.carriers,
        if config.carriers == 1 { "" } else { "s" },
        CLIENT_CORES,
        if CLIENT_CORES == 1 { "" } else { "s" },
        config.stack_bytes() / 1024
    )
}

/// Where the server and the client run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Placement {
    /// The server on `server`, the client on `client`.
    Pinned {
        /// The server's core.
        server: usize,
        /// The client's cores.
        client: Vec<usize>,
    },
    /// Nothing pinned, and why.
    Unpinned {
        /// Why not.
        reason: String,
    },
}

impl Placement {
    /// The plan for this process's allowed cores: the first for the server, the next [`CLIENT_CORES`] for the
    /// client (any further cores idle); unpinned with fewer than two.
    pub fn plan() -> Placement {
        let cores = allowed_cores();
        match cores.split_first() {
            Some((&server, rest)) if rest.len() >= CLIENT_CORES => {
                Placement::Pinned { server, client: rest[..CLIENT_CORES].to_vec() }
            }
            _ => Placement::Unpinned {
                reason: format!("{} usable core(s): server and client share the machine unpinned", cores.len()),
            },
        }
    }

    /// Nothing pinned, by request: the server and the client share every allowed core.
    pub fn shared() -> Placement {
        let cores = allowed_cores().len();
        Placement::Unpinned {
            reason: format!(
                "unpinned by request (`pinned` = 0): the server and the client share all {cores} core(s), the \
                 client's runtimes sized to {cores}"
            ),
        }
    }

    /// The server's core, if pinned.
    pub fn server_core(&self) -> Option<usize> {
        match self {
            Placement::Pinned { server, .. } => Some(*server),
            Placement::Unpinned { .. } => None,
        }
    }

    /// One line for the report.
    pub fn describe(&self) -> String {
        match self {
            Placement::Pinned { server, client } => {
                let client: Vec<String> = client.iter().map(usize::to_string).collect();
                format!("server pinned to core {server}, client to core(s) {}", client.join(","))
            }
            Placement::Unpinned { reason } => reason.clone(),
        }
    }
}

/// The cores this process may run on, in order.
pub fn allowed_cores() -> Vec<usize> {
    // SAFETY: cpu_set_t is plain data; sched_getaffinity writes at most its size into it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize).filter(|&c| libc::CPU_ISSET(c, &set)).collect()
    }
}

/// Why a process is not pinned where the placement meant it to be.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, thiserror::Error)]
pub enum PinError {
    /// The OS refused the pinning: its message (text, since the server's ready line carries it).
    #[error("{0}")]
    Refused(String),
    /// The placement pins nothing, and why ([`Placement::Unpinned`]).
    #[error("{0}")]
    Unplanned(String),
}

impl From<std::io::Error> for PinError {
    fn from(err: std::io::Error) -> PinError {
        PinError::Refused(err.to_string())
    }
}

/// Pin the calling thread (and every thread it starts afterwards) to `cores`.
pub fn pin_current_thread(cores: &[usize]) -> std::io::Result<()> {
    // SAFETY: cpu_set_t is plain data, filled by CPU_SET for in-range cores; pid 0 is the calling thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &core in cores.iter().filter(|&&c| c < libc::CPU_SETSIZE as usize) {
            libc::CPU_SET(core, &mut set);
        }
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_pins_apart_or_says_why_not() {
        match Placement::plan() {
            Placement::Pinned { server, client } => {
                assert!(!client.contains(&server));
                assert_eq!(client.len(), CLIENT_CORES);
            }
            Placement::Unpinned { reason } => assert!(reason.contains("core")),
        }
    }
}
