//! `coroutine-may`: a `may` coroutine per keep-alive connection on 1 carrier thread, running the same minimal
//! hand-written HTTP/1.1 client as `blocking-std` over `may::net::TcpStream`: blocking-style code whose socket
//! waits park the coroutine, not its carrier. It keeps `may`'s rules (`docs/coroutines.md`).

use measure::meter::Meter;

use super::blocking_std::{call_redialling, connect_may};
use crate::error::NetworkError;
use crate::http_calls::{self, HttpJob};
use crate::outcome::Outcome;

/// Run `job`, calling `go` once every coroutine has connected, made its priming call and waits at the start line.
pub fn run<M: Meter>(job: &HttpJob<M>, go: &mut dyn FnMut()) -> Result<Outcome, NetworkError> {
    let addr = job.addr;
    http_calls::coroutines(
        job,
        go,
        crate::affinity::may_config(),
        move || connect_may(addr).ok(),
        move |slot, seq| call_redialling(slot, addr, seq, connect_may),
    )
}
