//! `coroutine-may`: a `may` coroutine per keep-alive connection on 1 carrier thread, running the same minimal
//! hand-written HTTP/1.1 client as `blocking-std` over `may::net::TcpStream`: blocking-style code whose socket
//! waits park the coroutine, not its carrier. It keeps `may`'s rules (`docs/coroutines.md`).

use measure::meter::Meter;
use pipelines::coroutine::CoroutineConfig;

use super::blocking_std::{call_redialling, connect_may};
use crate::error::NetworkError;
use crate::http_calls::{self, HttpJob};
use crate::outcome::Outcome;

/// How the contestant configures `may` by default: one carrier per client core ([`crate::affinity::CLIENT_CORES`])
/// and `may`'s default stack.
pub const CONFIG: CoroutineConfig = CoroutineConfig::new(crate::affinity::CLIENT_CORES);

/// The configuration in force: one carrier per core the client runtimes are sized to
/// ([`crate::affinity::client_cores`]).
pub fn config() -> CoroutineConfig {
    CoroutineConfig::new(crate::affinity::client_cores())
}

/// Run `job`, calling `go` once every coroutine has connected, made its priming call and waits at the start line.
pub fn run<M: Meter>(job: &HttpJob<M>, go: &mut dyn FnMut()) -> Result<Outcome, NetworkError> {
    let addr = job.addr;
    http_calls::coroutines(
        job,
        go,
        config(),
        move || connect_may(addr).ok(),
        move |slot, seq| call_redialling(slot, addr, seq, connect_may),
    )
}
