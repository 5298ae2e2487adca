//! `blocking-ureq`: a thread per call in flight, all sharing one `ureq` 2 `Agent` (its connection pool holds
//! `in_flight` idle keep-alive connections, no timeout), each call `agent.get(url).call()` and `into_string()`.

use measure::meter::Meter;

use crate::error::NetworkError;
use crate::http_calls::{self, client_error, Fail, HttpJob};
use crate::outcome::Outcome;

/// Run `job`, calling `go` once every thread has made its priming call and waits at the start line.
pub fn run<M: Meter>(job: &HttpJob<M>, go: &mut dyn FnMut()) -> Result<Outcome, NetworkError> {
    let addr = job.addr;
    let agent = ureq::AgentBuilder::new()
        .max_idle_connections(job.in_flight)
        .max_idle_connections_per_host(job.in_flight)
        .no_delay(true)
        .build();
    http_calls::threads(
        job,
        go,
        || agent.clone(),
        |agent: &mut ureq::Agent, seq| {
            let response =
                agent.get(&http_calls::url(addr, seq)).call().map_err(|e| Fail::Error(client_error(addr, &e)))?;
            let body = response.into_string().map_err(|e| Fail::Error(NetworkError::io("reading from", addr, e)))?;
            http_calls::check_body(seq, body.as_bytes())
        },
    )
}
