//! Every contestant of the http scenario: `in_flight` calls at once over keep-alive connections to the loopback
//! hyper server.
//!
//! - [`blocking_std`] (`blocking-std`): a thread per connection, std `TcpStream`, a hand-written HTTP/1.1 client.
//! - [`blocking_ureq`] (`blocking-ureq`): a thread per call in flight sharing one `ureq` agent.
//! - [`stream_hyper`] (`stream-hyper`): hyper's client (hyper-util) driven by `buffer_unordered`.
//! - [`stream_reqwest`] (`stream-reqwest`): `reqwest` driven by `buffer_unordered`.
//! - [`stream_tokio_tasks`] (`stream-tokio-tasks`): a tokio task per connection, `blocking-std`'s client on
//!   tokio sockets.
//! - [`coroutine_may`] (`coroutine-may`): a `may` coroutine per connection, `blocking-std`'s client on `may`
//!   sockets.

pub mod blocking_std;
pub mod blocking_ureq;
pub mod coroutine_may;
pub mod stream_hyper;
pub mod stream_reqwest;
pub mod stream_tokio_tasks;

use measure::meter::Meter;
use measure::summary::{ContestantInfo, Family};

use crate::error::NetworkError;
use crate::http_calls::HttpJob;
use crate::outcome::Outcome;

measure::registry! {
    /// An http contestant.
    HttpContestant {
        /// [`blocking_std`].
        BlockingStd => "blocking-std",
        /// [`blocking_ureq`].
        BlockingUreq => "blocking-ureq",
        /// [`stream_hyper`].
        StreamHyper => "stream-hyper",
        /// [`stream_reqwest`].
        StreamReqwest => "stream-reqwest",
        /// [`stream_tokio_tasks`].
        StreamTokioTasks => "stream-tokio-tasks",
        /// [`coroutine_may`].
        CoroutineMay => "coroutine-may",
    }
}

impl HttpContestant {
    /// What it is, for `lab list` and the report.
    pub fn info(self) -> ContestantInfo {
        let coroutine = format!(
            "A `may` coroutine per keep-alive connection ({}), running `blocking-std`'s hand-written HTTP/1.1 \
             client over `may::net::TcpStream`: blocking-style code whose socket waits park the coroutine, not its \
             carrier.",
            crate::affinity::may_setup()
        );
        let (family, description) = match self {
            HttpContestant::BlockingStd => (
                Family::Blocking,
                "A std thread per keep-alive connection, std `TcpStream`, a minimal hand-written HTTP/1.1 client \
                 (request writer, status line, headers and `Content-Length` body parsed by hand); every connection \
                 thread shares the client's one core.",
            ),
            HttpContestant::BlockingUreq => (
                Family::Blocking,
                "A std thread per call in flight sharing one `ureq` 3 `Agent` (no proxy, keep-alive pool of \
                 `in_flight` connections), `get(url).call()` then `body_mut().read_to_string()`; every thread shares \
                 the client's one core.",
            ),
            HttpContestant::StreamHyper => (
                Family::Stream,
                "hyper 1's client (`hyper_util` legacy `Client`, `HttpConnector`, keep-alive pool) on a 1-worker \
                 tokio runtime, calls driven by `buffer_unordered(in_flight)`.",
            ),
            HttpContestant::StreamReqwest => (
                Family::Stream,
                "`reqwest` 0.13 `Client` (no TLS, keep-alive pool) on a 1-worker tokio runtime, `get(url).send()` \
                 then `bytes()`, driven by `buffer_unordered(in_flight)`.",
            ),
            HttpContestant::StreamTokioTasks => (
                Family::Stream,
                "A tokio task per keep-alive connection on a 1-worker tokio runtime, running `blocking-std`'s \
                 hand-written HTTP/1.1 client over tokio's `TcpStream` (each read and write awaited): the client code \
                 held equal to the thread's and the coroutine's.",
            ),
            HttpContestant::CoroutineMay => (Family::Coroutine, coroutine.as_str()),
        };
        ContestantInfo::new(self.name(), family, crate::affinity::described(description))
    }

    /// Run `job` once, calling `go` when everything but the calls is ready.
    pub fn run<M: Meter>(self, job: &HttpJob<M>, go: &mut dyn FnMut()) -> Result<Outcome, NetworkError> {
        match self {
            HttpContestant::BlockingStd => blocking_std::run(job, go),
            HttpContestant::BlockingUreq => blocking_ureq::run(job, go),
            HttpContestant::StreamHyper => stream_hyper::run(job, go),
            HttpContestant::StreamReqwest => stream_reqwest::run(job, go),
            HttpContestant::StreamTokioTasks => stream_tokio_tasks::run(job, go),
            HttpContestant::CoroutineMay => coroutine_may::run(job, go),
        }
    }
}
