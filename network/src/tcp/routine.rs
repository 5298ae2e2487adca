//! One trial of the tcp scenario in its own process: the session (placement and server), the conformance checks,
//! then the harness's loop over the contestant.

use measure::meter::{GaugeMeter, NoMeter};
use measure::record::{MetricValues, TrialRequest};
use measure::scenario::{TrialError, TrialSink};

use super::conformance;
use super::contestants::TcpContestant;
use crate::cancel::Cancel;
use crate::error::NetworkError;
use crate::launch::Port;
use crate::outcome::Outcome;
use crate::round_trip::RoundTrip;
use crate::routine::{renamed, Client, Prepared};
use crate::tcp_exchange::TcpJob;

/// A contestant with its job, as the routine runs it, and the round-trip probe's reading in this process.
#[derive(Debug, Clone)]
pub struct TcpClient {
    /// The contestant, its job and the server's delay.
    pub prepared: Prepared<TcpContestant, TcpJob<NoMeter>>,
    /// One exchange alone and the server's timer, measured before the harness's loop ([`RoundTrip`]).
    pub round_trip: Option<RoundTrip>,
}

impl TcpClient {
    /// Rounds of one exchange per connection in a batch: ⌈exchanges ÷ connections⌉.
    fn rounds(&self) -> f64 {
        self.job().exchanges.div_ceil(self.job().connections.max(1)) as f64
    }

    /// The job (with no meter).
    fn job(&self) -> &TcpJob<NoMeter> {
        &self.prepared.job
    }
}

impl Client for TcpClient {
    fn requests(&self) -> u64 {
        self.job().total()
    }

    fn bound(&self) -> u64 {
        self.job().connections as u64
    }

    fn run_timed(&self, go: &mut dyn FnMut()) -> Result<Outcome, NetworkError> {
        self.prepared.contestant.run(self.job(), go)
    }

    fn run_counted(&self, meter: GaugeMeter, go: &mut dyn FnMut()) -> Result<Outcome, NetworkError> {
        let job = TcpJob {
            addr: self.job().addr,
            connections: self.job().connections,
            exchanges: self.job().exchanges,
            batches: self.job().batches,
            meter,
            cancel: Cancel::never(),
        };
        self.prepared.contestant.run(&job, go)
    }

    fn metrics(&self, outcome: &Outcome, wall_s: f64) -> MetricValues {
        let mut m = renamed(outcome.latencies.recorder().metrics(""), "batch");
        if wall_s > 0.0 {
            let per_sec = self.job().batches as f64 / wall_s;
            m.insert("batches_per_sec".to_string(), per_sec);
            m.insert("ops_per_sec".to_string(), self.job().total() as f64 / wall_s);
            let rounds = self.rounds();
            let ideal = 1e6 / (rounds * self.prepared.delay_us.max(1) as f64);
            m.insert("ideal_batches_per_sec".to_string(), ideal);
            m.insert("ideal_fraction".to_string(), per_sec / ideal);
            if let Some(probe) = &self.round_trip {
                // What one exchange alone allows: a fraction near 1 says the rounds run at the speed of one
                // exchange, however many connections share them (the probe's readings ride along, one per process).
                m.insert("round_trip_fraction".to_string(), per_sec / probe.batches_per_sec_bound(rounds));
                m.insert("timer_over_delay".to_string(), probe.timer_p50_us / self.prepared.delay_us.max(1) as f64);
                m.extend(probe.metrics());
            }
        }
        m
    }

    fn unit(&self) -> &'static str {
        "exchanges"
    }

    /// `trap-blocking-in-task` serialises: each blocking exchange holds one of the runtime's workers for at least
    /// the server's delay, so a batch takes at least ⌈exchanges ÷ workers⌉ delays. The check fails if a run beat
    /// that bound by more than 5% (the trap was not blocking its workers, or the runtime had more of them).
    fn by_construction(&self, _outcome: &Outcome, wall_s: f64) -> Option<(&'static str, Result<String, String>)> {
        if self.prepared.contestant != TcpContestant::BlockingInTask || wall_s <= 0.0 {
            return None;
        }
        let per_sec = self.job().batches as f64 / wall_s;
        let rounds = self.job().exchanges.div_ceil(crate::tasks::workers()) as f64;
        let bound = 1e6 / (rounds * self.prepared.delay_us.max(1) as f64);
        let text = format!(
            "{per_sec:.2} batches/s against the serial bound of {bound:.2} (⌈{} exchanges ÷ {} worker(s)⌉ × {} µs \
             per batch): blocking calls on the runtime's workers serialise the exchanges, so its gap to async I/O (up to \
             {} connections ÷ {} worker(s)) follows from the set-up",
            self.job().exchanges,
            crate::tasks::workers(),
            self.prepared.delay_us,
            self.job().connections,
            crate::tasks::workers()
        );
        Some(("serialised_by_construction", if per_sec <= bound * 1.05 { Ok(text) } else { Err(text) }))
    }
}

pub(crate) fn run_trial(request: &TrialRequest, sink: &mut dyn TrialSink) -> Result<(), TrialError> {
    let contestant = TcpContestant::find(&request.contestant)
        .ok_or_else(|| TrialError::UnknownContestant(request.contestant.clone()))?;
    let (connections, exchanges) = (request.param_usize("connections")?, request.param_usize("exchanges")?);
    let batches = request.param("batches")?;
    let delay_us = request.param("delay_us")?;
    if connections == 0 || exchanges == 0 || batches == 0 {
        return Err(TrialError::BadParam("`connections`, `exchanges` and `batches` must be at least 1".to_string()));
    }
    let checks = |addr, launcher: &_, config: &_| conformance::checks(contestant, addr, launcher, config);
    crate::routine::run_trial(request, sink, (Port::Tcp, delay_us), checks, |addr| {
        let batches = contestant.batches(batches);
        let job = TcpJob { addr, connections, exchanges, batches, meter: NoMeter, cancel: Cancel::never() };
        TcpClient {
            prepared: Prepared { contestant, job, delay_us },
            round_trip: crate::round_trip::RoundTrip::measure(addr, delay_us),
        }
    })
}
