//! `blocking-ureq`: a thread per call in flight, all sharing one `ureq` 3 `Agent` (no proxy, no delay, its
//! connection pool holds `in_flight` idle keep-alive connections, no timeout), each call `agent.get(url).call()`
//! and `body_mut().read_to_string()`.

use measure::meter::Meter;

use crate::error::NetworkError;
use crate::http_calls::{self, client_error, Fail, HttpJob};
use crate::outcome::Outcome;

/// Run `job`, calling `go` once every thread has made its priming call and waits at the start line.
pub fn run<M: Meter>(job: &HttpJob<M>, go: &mut dyn FnMut()) -> Result<Outcome, NetworkError> {
    let addr = job.addr;
    // ureq 3 reads a proxy from the environment by default (ureq 2 did not): none here, as for reqwest.
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .proxy(None)
        .max_idle_connections(job.in_flight)
        .max_idle_connections_per_host(job.in_flight)
        .no_delay(true)
        .build()
        .into();
    http_calls::threads(
        job,
        go,
        || agent.clone(),
        |agent: &mut ureq::Agent, seq| {
            let mut response =
                agent.get(&http_calls::url(addr, seq)).call().map_err(|e| Fail::Error(client_error(addr, &e)))?;
            let body = response
                .body_mut()
                .read_to_string()
                .map_err(|e| Fail::Error(NetworkError::io("reading from", addr, e.into_io())))?;
            http_calls::check_body(seq, body.as_bytes())
        },
    )
}
