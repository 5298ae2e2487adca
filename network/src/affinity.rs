//! Pinning the server and the client to different cores with `sched_setaffinity`, so the client's CPU and the
//! server's do not compete; on a machine with one usable core nothing is pinned, and the report says so.

use serde::{Deserialize, Serialize};

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
    /// The plan for this process's allowed cores: the first for the server, the rest for the client; unpinned
    /// with fewer than two.
    pub fn plan() -> Placement {
        let cores = allowed_cores();
        match cores.split_first() {
            Some((&server, rest)) if !rest.is_empty() => Placement::Pinned { server, client: rest.to_vec() },
            _ => Placement::Unpinned {
                reason: format!("{} usable core(s): server and client share the machine unpinned", cores.len()),
            },
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
            Placement::Pinned { server, client } => assert!(!client.contains(&server)),
            Placement::Unpinned { reason } => assert!(reason.contains("core")),
        }
    }
}
