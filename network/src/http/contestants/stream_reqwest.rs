//! `stream-reqwest`: a `reqwest` 0.13 `Client` (no TLS, no proxy, no delay, a keep-alive pool of `in_flight`
//! connections) on a 1-worker tokio runtime, every call `get(url).send()` then `bytes()`, driven by
//! `buffer_unordered(in_flight)`.

use measure::meter::Meter;

use crate::error::NetworkError;
use crate::http_calls::{self, client_error, Fail, HttpJob};
use crate::outcome::Outcome;

/// Run `job`, calling `go` once the runtime is built and the pool holds its connections.
pub fn run<M: Meter>(job: &HttpJob<M>, go: &mut dyn FnMut()) -> Result<Outcome, NetworkError> {
    let addr = job.addr;
    let client = || {
        reqwest::Client::builder()
            .pool_max_idle_per_host(job.in_flight)
            .no_proxy()
            .tcp_nodelay(true)
            .build()
            .map_err(|e| NetworkError::setup("the reqwest client", e))
    };
    http_calls::stream(job, go, client, |client, seq| {
        let client = client.clone();
        async move {
            let response =
                client.get(http_calls::url(addr, seq)).send().await.map_err(|e| Fail::Error(client_error(addr, &e)))?;
            http_calls::success(addr, response.status())?;
            let body = response.bytes().await.map_err(|e| Fail::Error(client_error(addr, &e)))?;
            http_calls::check_body(seq, &body)
        }
    })
}
