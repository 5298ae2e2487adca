//! The routine both scenarios hand the harness ([`measure::harness::run`]): one client run per iteration against
//! the session's server, generic over what a run is; the server's CPU is read from `/proc/<pid>/stat` right
//! before `go` and right after the run, and set apart from the client's.

use std::net::SocketAddr;

use measure::harness::{Instruments, Iteration, IterationData, Routine, Stop, Window};
use measure::meter::GaugeMeter;
use measure::probe::bounded_outstanding_check;
use measure::record::{MetricValues, TrialRequest};
use measure::scenario::{measure_then_check, TrialError, TrialSink};
use measure::summary::Check;

use crate::error::NetworkError;
use crate::launch::{Launcher, Port, ServerProcess};
use crate::outcome::Outcome;
use crate::server::ServeConfig;
use crate::session::Session;
use crate::wakeup::WakeUp;

/// One kind of client run, as the routine drives it.
pub trait Client {
    /// Requests (calls or exchanges) of one run.
    fn requests(&self) -> u64;
    /// The most requests that may be in flight at once.
    fn bound(&self) -> u64;
    /// One run metering with `NoMeter`.
    fn run_timed(&self, go: &mut dyn FnMut()) -> Result<Outcome, NetworkError>;
    /// One run metering with the gauge.
    fn run_counted(&self, meter: GaugeMeter, go: &mut dyn FnMut()) -> Result<Outcome, NetworkError>;
    /// The scenario's own metrics of a verified run that took `wall_s` seconds (the probe's are the routine's).
    fn metrics(&self, outcome: &Outcome, wall_s: f64) -> MetricValues;
    /// The unit requests are counted in, for check details (`calls`, `exchanges`).
    fn unit(&self) -> &'static str;
    /// What this contestant's runs must show by construction, if anything: the check's name and, for one verified
    /// timed run that took `wall_s` seconds, whether it held (with what was measured either way).
    fn by_construction(&self, _outcome: &Outcome, _wall_s: f64) -> Option<(&'static str, Result<String, String>)> {
        None
    }
}

/// A contestant `C` with its job `J` (with no meter) and the server's delay: what each scenario's [`Client`] is.
#[derive(Debug, Clone)]
pub struct Prepared<C, J> {
    /// The contestant.
    pub contestant: C,
    /// The job (with no meter).
    pub job: J,
    /// The server's delay, in microseconds.
    pub delay_us: u64,
}

/// What a run hands back: the client's outcome and the server's CPU over it.
#[derive(Debug)]
pub struct RunOutput {
    outcome: Result<Outcome, NetworkError>,
    server_cpu_ns: Option<u64>,
}

/// The harness's view of one contestant of either scenario.
#[derive(Debug)]
pub struct NetRoutine<'a, C> {
    /// The client.
    pub client: C,
    /// The session's server.
    pub server: &'a ServerProcess,
    /// The highest exact high-water mark of requests in flight over the accounting iterations.
    pub measured_max: Option<u64>,
    /// The wake-up probe's reading, taken in this process before the first iteration (recorded with the
    /// accounting iteration's instruments: one reading per process).
    pub wakeup: Option<WakeUp>,
    /// The by-construction check's name and each timed run's result ([`Client::by_construction`]).
    pub construction: Vec<(&'static str, Result<String, String>)>,
}

impl<C: Client> Routine for NetRoutine<'_, C> {
    type Output = RunOutput;

    fn run(&mut self, instruments: &Instruments, go: &mut dyn FnMut()) -> Result<RunOutput, Stop> {
        let server = self.server;
        let mut server_start = None;
        let mut start = || {
            server_start = server.cpu_ns();
            go();
        };
        let outcome = match instruments {
            Instruments::Timed => self.client.run_timed(&mut start),
            Instruments::Accounting(meter) => self.client.run_counted(meter.clone(), &mut start),
        };
        let server_cpu_ns = match (server_start, server.cpu_ns()) {
            (Some(a), Some(b)) => Some(b.saturating_sub(a)),
            _ => None,
        };
        Ok(RunOutput { outcome, server_cpu_ns })
    }

    fn items(&self, _: &RunOutput) -> u64 {
        self.client.requests()
    }

    fn finish(&mut self, iteration: Iteration, output: RunOutput, window: Window<'_>) -> Result<IterationData, Stop> {
        let outcome =
            output.outcome.map_err(|e| Stop::failed("answered_once", format!("iteration {}: {e}", iteration.index)))?;
        if let Err(detail) = outcome.verify() {
            return Err(Stop::failed("answered_once", format!("iteration {}: {detail}", iteration.index)));
        }
        let mut data = IterationData::from_window(window);
        let timing = window.timing();
        let requests = self.client.requests().max(1) as f64;
        data.timing.insert("cpu_us_per_call".to_string(), timing.cpu_ns() as f64 / requests / 1e3);
        if let Some(server_ns) = output.server_cpu_ns {
            data.timing.insert("server_cpu_us_per_call".to_string(), server_ns as f64 / requests / 1e3);
        }
        data.timing.extend(self.client.metrics(&outcome, timing.wall_secs()));
        data.timing.extend(outcome.probe.as_ref().map(|p| renamed(p.metrics(""), "probe_delay")).unwrap_or_default());
        if iteration.is_measured() {
            self.construction.extend(self.client.by_construction(&outcome, timing.wall_secs()));
        }
        if let Some(max) = window.accounting().and_then(|m| m.max_outstanding) {
            self.measured_max = Some(self.measured_max.map_or(max, |m| m.max(max)));
        }
        if iteration.accounting {
            data.instruments.insert("client_threads".to_string(), outcome.client_threads as f64);
            data.instruments.extend(self.wakeup.map(|w| w.metrics()).unwrap_or_default());
        }
        Ok(data)
    }

    fn checks(&mut self, measured: u32, accounted: u32) -> Vec<Check> {
        let mut checks = Vec::new();
        if let Some((name, _)) = self.construction.first() {
            let failed = self.construction.iter().find_map(|(_, r)| r.as_ref().err());
            let detail = match failed {
                Some(e) => e.clone(),
                None => format!(
                    "{} timed runs, each within the bound; the last: {}",
                    self.construction.len(),
                    self.construction
                        .iter()
                        .filter_map(|(_, r)| r.as_ref().ok())
                        .next_back()
                        .cloned()
                        .unwrap_or_default()
                ),
            };
            checks.push(Check::new(*name, failed.is_none(), detail));
        }
        checks.extend([
            Check::new(
                "answered_once",
                true,
                format!(
                    "{measured} timed and {accounted} accounting iterations (and the warm-ups) of {} {}, each answered \
                     exactly once with its own sequence number and checksum",
                    self.client.requests(),
                    self.client.unit()
                ),
            ),
            bounded_outstanding_check(self.measured_max, self.client.bound(), accounted, self.client.unit()),
        ]);
        checks
    }
}

/// One trial of either scenario in its own process: the session (placement, and the server replying on `port`
/// after `delay_us`, the other port at once, pinned apart from this process unless the `pinned` parameter is 0),
/// the placement check, the harness's loop over the `client` made for that address, then, in the first process of
/// each contestant and phase, the contestant's conformance `checks` against the server's `port`.
pub fn run_trial<C: Client>(
    request: &TrialRequest,
    sink: &mut dyn TrialSink,
    (port, delay_us): (Port, u64),
    checks: impl FnOnce(SocketAddr, &Launcher, &ServeConfig) -> Vec<Check>,
    client: impl FnOnce(SocketAddr) -> C,
) -> Result<(), TrialError> {
    // A request from before the parameter existed runs pinned, as it did then.
    let pinned = request.param("pinned").unwrap_or(1) != 0;
    let (http_delay_us, tcp_delay_us) = match port {
        Port::Http => (delay_us, 0),
        Port::Tcp => (0, delay_us),
    };
    let config = ServeConfig { http_delay_us, tcp_delay_us, core: None, start_delay_ms: 0, fail_seq: None };
    let launcher = Launcher::this_binary().map_err(|e| TrialError::BadParam(e.to_string()))?;
    let session = match Session::start(launcher, config, pinned) {
        Ok(session) => session,
        Err(err) => {
            sink.check(Check::new("server", false, err.to_string()));
            return Ok(());
        }
    };
    sink.check(session.placement_check());
    let addr = session.server.addr(port);
    let measure = |sink: &mut dyn TrialSink| {
        let mut routine = NetRoutine {
            client: client(addr),
            server: &session.server,
            measured_max: None,
            wakeup: crate::wakeup::WakeUp::measure(session.placement.server_core()),
            construction: Vec::new(),
        };
        measure::harness::run(&mut routine, request, sink);
        Ok(())
    };
    measure_then_check(request, sink, measure, || checks(addr, &session.launcher, &session.config))
}

/// Rename the recorder's `latency_*` metrics to `<prefix>_*` (`batch_p50_us`, `probe_delay_p99_us`).
pub fn renamed(metrics: MetricValues, prefix: &str) -> MetricValues {
    metrics.into_iter().map(|(k, v)| (k.replacen("latency", prefix, 1), v)).collect()
}
