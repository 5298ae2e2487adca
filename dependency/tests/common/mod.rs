//! Helpers shared by the integration tests.
#![allow(dead_code, unreachable_pub)]

use std::time::{Duration, Instant};

use dependency::{Config, Reply};

/// A small, fast dependency config: `capacity` slots, `service_ms` per call.
pub fn config(capacity: usize, service_ms: u64) -> Config {
    Config { capacity, service: Duration::from_millis(service_ms), ..Config::default() }
}

/// For every reply started at or after `from`, how many other calls were in service when it started, by the
/// replies' own timestamps (a call is in service over `[started, finished)`). Returns the largest such count.
/// The timestamps can only under-count what the dependency held, never over-count: so a count at or above
/// capacity is certainly a violation.
pub fn max_in_service_at_start(replies: &[Reply], from: Instant) -> usize {
    let mut events: Vec<(Instant, i8, bool)> = Vec::with_capacity(replies.len() * 2);
    for reply in replies {
        events.push((reply.started, 1, reply.started >= from));
        events.push((reply.finished, -1, false));
    }
    // Ends before starts at the same instant: a slot freed at t can be taken at t.
    events.sort_by_key(|&(at, delta, _)| (at, delta));
    let (mut current, mut most) = (0i64, 0usize);
    for (_, delta, counted) in events {
        if delta > 0 && counted {
            most = most.max(usize::try_from(current).unwrap_or(0));
        }
        current += i64::from(delta);
    }
    most
}

/// Waits until `condition` holds, checking every millisecond for at most `limit`; returns whether it held.
pub fn eventually(limit: Duration, mut condition: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if condition() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    condition()
}

/// The kernel id of the calling thread (as in `/proc/self/task/<tid>`).
pub fn current_tid() -> u32 {
    let link = std::fs::read_link("/proc/thread-self").expect("/proc/thread-self");
    link.file_name().and_then(|tid| tid.to_str()).and_then(|tid| tid.parse().ok()).expect("a thread id")
}

/// Whether thread `tid` of this process is asleep in the kernel (`S` in `/proc/self/task/<tid>/stat`): blocked
/// in a wait, such as a park, rather than running or runnable.
pub fn sleeping(tid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/self/task/{tid}/stat")) else { return false };
    // `pid (comm) state ...`: the name may hold spaces and parentheses, the state follows the last `)`.
    stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next()) == Some("S")
}

/// How many times thread `tid` of this process has blocked of its own accord (`voluntary_ctxt_switches` in
/// `/proc/self/task/<tid>/status`): each wait it went into counts one.
pub fn voluntary_switches(tid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/self/task/{tid}/status")).ok()?;
    status.lines().find_map(|line| line.strip_prefix("voluntary_ctxt_switches:")).and_then(|n| n.trim().parse().ok())
}
