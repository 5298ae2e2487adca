//! One run of a contestant: the arrivals handed to its service on their schedule, against a fresh dependency,
//! with the load generator's lag behind the schedule measured; what the routine times and the conformance runs
//! check.

use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use dependency::Dependency;
use measure::latency::LatencyRecorder;

use super::{Contestant, Prepared};
use crate::config::{duration_us, ServiceConfig, WINDOW};
use crate::error::RunError;
use crate::requests::{Breakage, Requests};
use crate::work::Work;

/// How long the service may take to answer what it admitted after the last arrival (or the cancel).
pub const DRAIN_LIMIT: Duration = Duration::from_secs(30);

/// What one run is asked besides its configuration: faults, a cancel, a breakage.
#[derive(Debug, Clone, Default)]
pub struct Variation {
    /// Arrivals whose dependency call fails on purpose.
    pub fail_inputs: Vec<u64>,
    /// The caller cancels the run after handing over this many arrivals: the rest never arrive.
    pub cancel_after: Option<u64>,
    /// A deliberate fault of the request path.
    pub breakage: Option<Breakage>,
}

/// What one run leaves to be analysed.
#[derive(Debug)]
pub struct RunOutput {
    /// The run's request path: book, schedule, gauges, dependency.
    pub requests: Arc<Requests>,
    /// How far behind its schedule the generator handed arrivals over.
    pub lag: LatencyRecorder,
    /// The dependency's timer CPU when the clock started.
    pub timer_cpu_at_go: Duration,
    /// Arrivals handed over before the cancel (every arrival without one).
    pub handed: u64,
    /// From the cancel (or the last arrival) until the service had closed.
    pub close_took: Duration,
    /// The most requests inside the service as each arrival was handed over, per window of
    /// [`WINDOW`](crate::config::WINDOW) of scheduled starts.
    pub inside: Vec<u64>,
}

/// Run `contestant` once over `config` with `work`, varied by `variation`; `go` is called when everything is
/// ready, right before the first arrival is due.
pub fn run_once(
    contestant: Contestant,
    prepared: &Prepared,
    config: &ServiceConfig,
    work: Work,
    variation: &Variation,
    go: &mut dyn FnMut(),
) -> Result<RunOutput, RunError> {
    let schedule: Arc<[u64]> = config.schedule().into();
    let dependency =
        Dependency::start(config.dependency(variation.fail_inputs.clone())).map_err(RunError::Dependency)?;
    let requests = Arc::new(Requests::new(dependency.clone(), Arc::clone(&schedule), work, config, variation.breakage));
    let service = match contestant.start(prepared, &requests, config) {
        Ok(service) => service,
        Err(e) => {
            dependency.shutdown();
            return Err(e);
        }
    };
    let timer_cpu_at_go = dependency.timer_cpu();
    go();
    let start = Instant::now();
    requests.book.begin(start);
    let mut lag = LatencyRecorder::new();
    let mut failure = None;
    let last = variation.cancel_after.unwrap_or(u64::MAX);
    let mut handed = 0;
    let window_us = duration_us(WINDOW).max(1);
    let mut inside = vec![0u64; usize::try_from(duration_us(config.run) / window_us + 1).unwrap_or(0)];
    // The dependency loses its slots before the first arrival due at or after the loss is handed over.
    let mut loss = config.loss_at().map(|after| (duration_us(after), config.slots_after_loss()));
    for (index, &at) in schedule.iter().enumerate().take(usize::try_from(last).unwrap_or(usize::MAX)) {
        if let Some((_, slots)) = loss.filter(|&(loss_us, _)| at >= loss_us) {
            dependency.set_capacity(slots);
            loss = None;
        }
        let due = start + Duration::from_micros(at);
        let now = Instant::now();
        if due > now {
            thread::sleep(due - now);
        }
        lag.record_us(duration_us(Instant::now().saturating_duration_since(due)));
        let index = index as u64;
        if requests.admit(index) {
            if let Err(e) = service.submit(index) {
                requests.abandon(index);
                failure = Some(e);
                break;
            }
        }
        handed += 1;
        if let Some(most) = inside.get_mut(usize::try_from(at / window_us).unwrap_or(usize::MAX)) {
            *most = (*most).max(requests.outstanding.now());
        }
    }
    let closing = Instant::now();
    let closed = service.close(&requests, DRAIN_LIMIT);
    let close_took = closing.elapsed();
    if failure.is_some() || closed.is_err() {
        dependency.shutdown();
    }
    if let Some(e) = failure {
        return Err(e);
    }
    closed?;
    Ok(RunOutput { requests, lag, timer_cpu_at_go, handed, close_took, inside })
}
