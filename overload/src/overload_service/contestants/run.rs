//! One run of a service contestant: the arrivals handed to its handler on their schedule against a fresh
//! dependency (its capacity dropped halfway) and, for a limiter, a fresh gate; what the routine times and the
//! conformance runs check.

use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use dependency::Dependency;
use measure::latency::LatencyRecorder;

use super::{Calls, Prepared, ServiceContestant};
use crate::arrivals;
use crate::book::Book;
use crate::clocks::duration_us;
use crate::config::limiter_ceiling;
use crate::error::RunError;
use crate::limit::{self, Gate};
use crate::service_config::ServiceConfig;

/// How long the run may take to finish its last calls after the last arrival.
const DRAIN_LIMIT: Duration = Duration::from_secs(60);

/// What one run leaves to be analysed.
#[derive(Debug)]
pub struct RunOutput {
    /// The run's calls: dependency, gate, book and schedule.
    pub(crate) calls: Arc<Calls>,
    /// When the capacity dropped, µs from the run's start.
    pub(crate) drop_us: u64,
    /// The gate's clock when the run started.
    pub(crate) gate_at_start: Duration,
    /// How far behind its schedule the generator handed arrivals over.
    pub(crate) lag: LatencyRecorder,
    /// The dependency's timer CPU when the clock started.
    pub(crate) timer_cpu_at_go: Duration,
}

/// Run `contestant` once over `config`, its dependency failing `fail_inputs` on purpose, with `gate` (a gate of
/// the contestant's limiter when `None` and it has one).
pub fn run_once(
    contestant: ServiceContestant,
    prepared: &Prepared,
    config: &ServiceConfig,
    fail_inputs: Vec<u64>,
    gate: Option<Arc<Gate>>,
    go: &mut dyn FnMut(),
) -> Result<RunOutput, RunError> {
    let schedule: Arc<[u64]> = arrivals::schedule(config).into();
    let dependency =
        Dependency::start(dependency::Config { fail_inputs, ..config.dependency() }).map_err(RunError::Dependency)?;
    let gate = gate.or_else(|| {
        contestant.limiter.map(|kind| {
            // Room for a limit change per arrival, so the history never reallocates while timed.
            Arc::new(Gate::with_history_capacity(limit::build(kind, &config.limits_for(kind)), schedule.len() + 1))
        })
    });
    let calls = Arc::new(Calls {
        dependency: dependency.clone(),
        gate: gate.clone(),
        book: Book::new(schedule.len()),
        schedule: Arc::clone(&schedule),
        deadline_us: duration_us(config.deadline),
        live: AtomicU64::new(0),
    });
    let threads = match contestant.limiter {
        Some(kind) => limiter_ceiling(kind, &config.limits_for(kind)),
        None => config.unbounded_threads,
    };
    let handler = prepared.handler(&calls, threads)?;
    let timer_cpu_at_go = dependency.timer_cpu();
    go();
    let start = Instant::now();
    calls.book.begin(start);
    let gate_at_start = gate.as_ref().map(|g| g.clock()).unwrap_or_default();
    let drop_at = start + config.healthy;
    let mut dropped = false;
    let mut lag = LatencyRecorder::new();
    let mut failure = None;
    for (index, &at) in schedule.iter().enumerate() {
        let due = start + Duration::from_micros(at);
        let now = Instant::now();
        if due > now {
            thread::sleep(due - now);
        }
        if !dropped && due >= drop_at {
            dependency.set_capacity(config.capacity_after);
            dropped = true;
        }
        lag.record_us(duration_us(Instant::now().saturating_duration_since(due)));
        if let Err(e) = handler.submit(&calls, index as u64) {
            failure = Some(e);
            break;
        }
    }
    if !dropped {
        dependency.set_capacity(config.capacity_after);
    }
    let closed = handler.close(&calls, DRAIN_LIMIT);
    if let Some(e) = failure {
        return Err(e);
    }
    closed?;
    let drop_us = dependency
        .stats()
        .capacity_changed_at
        .map_or(duration_us(config.healthy), |at| duration_us(at.saturating_duration_since(start)));
    Ok(RunOutput { calls, drop_us, gate_at_start, lag, timer_cpu_at_go })
}
