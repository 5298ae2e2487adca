//! `stream-hyper`: hyper 1's client (`hyper_util::client::legacy::Client` over an `HttpConnector` with no
//! delay, a keep-alive pool of `in_flight` connections) on a 1-worker tokio runtime, every call a future
//! (`get`, then the body collected) driven by `buffer_unordered(in_flight)`.

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use measure::meter::Meter;

use crate::error::NetworkError;
use crate::http_calls::{self, client_error, Fail, HttpJob};
use crate::outcome::Outcome;

/// Run `job`, calling `go` once the runtime is built and the pool holds its connections.
pub fn run<M: Meter>(job: &HttpJob<M>, go: &mut dyn FnMut()) -> Result<Outcome, NetworkError> {
    let addr = job.addr;
    let client = || {
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        Ok(Client::builder(TokioExecutor::new())
            .pool_max_idle_per_host(job.in_flight)
            .build::<_, Empty<Bytes>>(connector))
    };
    http_calls::stream(job, go, client, |client, seq| {
        let client = client.clone();
        async move {
            let uri: hyper::Uri = http_calls::url(addr, seq)
                .parse()
                .map_err(|e| Fail::Error(NetworkError::BadReply { addr, detail: format!("bad URI: {e}") }))?;
            let response = client.get(uri).await.map_err(|e| Fail::Error(client_error(addr, &e)))?;
            http_calls::success(addr, response.status())?;
            let body = response.into_body().collect().await.map_err(|e| Fail::Error(client_error(addr, &e)))?;
            http_calls::check_body(seq, &body.to_bytes())
        }
    })
}
