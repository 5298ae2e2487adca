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
use crate::routine::{Client, Prepared};

/// A contestant with its job, as the routine runs it.
pub type HttpClient = Prepared<HttpContestant, HttpJob<NoMeter>>;

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
    let (requests, in_flight) = (request.param("requests")?, request.param_usize("in_flight")?);
    let delay_us = request.param("delay_us")?;
    if requests == 0 || in_flight == 0 {
        return Err(TrialError::BadParam("`requests` and `in-flight` must be at least 1".to_string()));
    }
    crate::server::raise_fd_limit();
    let checks = |addr, launcher: &_, config: &_| conformance::checks(contestant, addr, launcher, config);
    crate::routine::run_trial(request, sink, (Port::Http, delay_us), checks, |addr| {
        let job = HttpJob { addr, requests, in_flight, meter: NoMeter, cancel: Cancel::never() };
        HttpClient { contestant, job, delay_us }
    })
}
