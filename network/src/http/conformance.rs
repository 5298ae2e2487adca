//! The http scenario's conformance: each contestant as the shared checks ([`crate::checks`]) run it, at the
//! conformance sizes (16 calls in flight; small runs of 200 calls, long runs of 5,000), against the HTTP port.

use std::net::SocketAddr;

use measure::summary::Check;

use super::contestants::HttpContestant;
use crate::checks::{self, Port, Runner, Size};
use crate::http_calls::HttpJob;
use crate::launch::Launcher;
use crate::server::ServeConfig;

/// Calls in flight in a conformance run.
pub const CONFORMANCE_IN_FLIGHT: usize = 16;

/// Calls of a small conformance run.
pub const CONFORMANCE_SMALL: u64 = 200;

/// A conformance runner for `contestant`: small runs of 200 calls, 16 in flight; long runs of 5,000 calls,
/// which the kill or the caller's cancel cuts short.
pub fn runner(contestant: HttpContestant) -> Runner {
    let bound = CONFORMANCE_IN_FLIGHT as u64;
    Runner::new(contestant.name(), bound, CONFORMANCE_SMALL, 5_000, move |addr, size, meter, cancel| {
        let requests = if size == Size::Small { CONFORMANCE_SMALL } else { 5_000 };
        let job = HttpJob { addr, requests, in_flight: CONFORMANCE_IN_FLIGHT, meter, cancel };
        contestant.run(&job, &mut || {})
    })
}

/// Every check of `contestant` against the HTTP server at `addr`, with servers of its own started with
/// `launcher` and `config` for the faults (no order check: calls on a connection answer one at a time).
pub fn checks(contestant: HttpContestant, addr: SocketAddr, launcher: &Launcher, config: &ServeConfig) -> Vec<Check> {
    checks::all(&runner(contestant), addr, launcher, config, Port::Http, false)
}
