//! The tcp scenario's conformance: each contestant as the shared checks ([`crate::checks`]) run it, at the
//! conformance sizes (8 connections; small runs of 3 batches of 32 exchanges, long runs of 10,000), against the
//! TCP echo port, with the per-connection order check.

use std::net::SocketAddr;

use measure::summary::Check;

use super::contestants::TcpContestant;
use crate::checks::{self, Port, Runner, Size};
use crate::launch::Launcher;
use crate::server::ServeConfig;
use crate::tcp_exchange::TcpJob;

/// A conformance runner for `contestant`: small runs of 8 connections × 3 batches of 32 exchanges; long runs
/// of 10,000 batches, which the kill or the caller's cancel cuts short. One exchange is outstanding per
/// connection: the bound is the 8 connections.
pub fn runner(contestant: TcpContestant) -> Runner {
    const CONNECTIONS: usize = 8;
    const EXCHANGES: usize = 32;
    const LONG: u64 = 10_000;
    const SMALL: u64 = 3;
    let (small, long) = (SMALL * EXCHANGES as u64, LONG * EXCHANGES as u64);
    Runner::new(contestant.name(), CONNECTIONS as u64, small, long, move |addr, size, meter, cancel| {
        let batches = if size == Size::Small { SMALL } else { LONG };
        let job = TcpJob { addr, connections: CONNECTIONS, exchanges: EXCHANGES, batches, meter, cancel };
        contestant.run(&job, &mut || {})
    })
}

/// Every check of `contestant` against the TCP echo server at `addr`, with servers of its own started with
/// `launcher` and `config` for the faults, replies checked in order per connection.
pub fn checks(contestant: TcpContestant, addr: SocketAddr, launcher: &Launcher, config: &ServeConfig) -> Vec<Check> {
    checks::all(&runner(contestant), addr, launcher, config, Port::Tcp, true)
}
