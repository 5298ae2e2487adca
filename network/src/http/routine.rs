//! One trial of the http scenario in its own process: the session (placement and server), the conformance
//! checks, then the harness's loop over the contestant.

use measure::meter::{GaugeMeter, NoMeter};
use measure::record::{MetricValues, TrialRequest};
use measure::scenario::{TrialError, TrialSink};

use super::conformance;
use super::contestants::HttpContestant;
use crate::cancel::Cancel;
use crate::error::NetworkError;
use crate::http_calls::HttpJob;
use crate::launch::Port;
use crate::outcome::Outcome;
use crate::routine::{renamed, Client};
use crate::server::ServeConfig;

/// The http scenario's parameters, as a trial reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpParams {
    /// Calls per iteration.
    pub requests: u64,
    /// Calls in flight.
    pub in_flight: usize,
    /// The server's delay per call, in microseconds.
    pub delay_us: u64,
    /// Whether the server and the client are pinned apart (the `pinned` parameter; 0 is the shared variant).
    pub pinned: bool,
}

impl HttpParams {
    /// Read them from a trial request.
    pub fn from_request(request: &TrialRequest) -> Result<HttpParams, TrialError> {
        let params = HttpParams {
            requests: request.param("requests")?,
            in_flight: request.param_usize("in_flight")?,
            delay_us: request.param("delay_us")?,
            // A request from before the parameter existed runs pinned, as it did then.
            pinned: request.param("pinned").unwrap_or(1) != 0,
        };
        if params.requests == 0 || params.in_flight == 0 {
            return Err(TrialError::BadParam("`requests` and `in-flight` must be at least 1".to_string()));
        }
        Ok(params)
    }

    /// The server configuration (the TCP side idle).
    pub fn serve_config(&self) -> ServeConfig {
        ServeConfig { http_delay_us: self.delay_us, tcp_delay_us: 0, core: None, start_delay_ms: 0, fail_seq: None }
    }
}

/// A contestant with its job, as the routine runs it.
#[derive(Debug, Clone)]
pub struct HttpClient {
    /// The contestant.
    pub contestant: HttpContestant,
    /// The job (with no meter).
    pub job: HttpJob<NoMeter>,
    /// The server's delay, in microseconds.
    pub delay_us: u64,
}

impl Client for HttpClient {
    fn requests(&self) -> u64 {
        self.job.requests
    }

    fn bound(&self) -> u64 {
        self.job.in_flight as u64
    }

    fn run_timed(&self, go: &mut dyn FnMut()) -> Result<Outcome, NetworkError> {
        self.contestant.run(&self.job, go)
    }

    fn run_counted(&self, meter: GaugeMeter, go: &mut dyn FnMut()) -> Result<Outcome, NetworkError> {
        let (addr, requests, in_flight) = (self.job.addr, self.job.requests, self.job.in_flight);
        let job = HttpJob { addr, requests, in_flight, meter, cancel: Cancel::never() };
        self.contestant.run(&job, go)
    }

    fn metrics(&self, outcome: &Outcome, wall_s: f64) -> MetricValues {
        let mut m = outcome.latencies.recorder().metrics("");
        if let Some(probe) = &outcome.probe {
            m.extend(renamed(probe.metrics(""), "probe_delay"));
        }
        if wall_s > 0.0 {
            let per_sec = self.job.requests as f64 / wall_s;
            let ideal = self.job.in_flight as f64 * 1e6 / self.delay_us.max(1) as f64;
            m.insert("ops_per_sec".to_string(), per_sec);
            m.insert("ideal_ops_per_sec".to_string(), ideal);
            m.insert("ideal_fraction".to_string(), per_sec / ideal);
        }
        m
    }

    fn unit(&self) -> &'static str {
        "calls"
    }
}

pub(crate) fn run_trial(request: &TrialRequest, sink: &mut dyn TrialSink) -> Result<(), TrialError> {
    let contestant = HttpContestant::find(&request.contestant)
        .ok_or_else(|| TrialError::UnknownContestant(request.contestant.clone()))?;
    let params = HttpParams::from_request(request)?;
    crate::server::raise_fd_limit();
    let setup = (params.serve_config(), params.pinned, Port::Http);
    let checks = |addr, launcher: &_, config: &_| conformance::checks(contestant, addr, launcher, config);
    crate::routine::run_trial(request, sink, setup, checks, |addr| {
        let (requests, in_flight) = (params.requests, params.in_flight);
        let job = HttpJob { addr, requests, in_flight, meter: NoMeter, cancel: Cancel::never() };
        HttpClient { contestant, job, delay_us: params.delay_us }
    })
}
