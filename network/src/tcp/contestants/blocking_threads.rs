//! `blocking-threads`: one std thread per persistent connection, each exchange a std `TcpStream` `write_all` +
//! `read_exact`; batches released and joined through a `std::sync::Barrier`, a probe thread ticking beside.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::time::Instant;

use measure::latency::LatencyRecorder;
use measure::meter::Meter;

use crate::error::NetworkError;
use crate::outcome::{micros_since, Outcome, Times};
use crate::tcp_exchange::{self, TcpJob};
use crate::tick;

/// Run `job`, calling `go` once every thread has connected and waits at the start line.
pub fn run<M: Meter>(job: &TcpJob<M>, go: &mut dyn FnMut()) -> Result<Outcome, NetworkError> {
    let job = Arc::new(job.clone());
    let barrier = Arc::new(Barrier::new(job.connections + 1));
    let stop = Arc::new(AtomicBool::new(false));
    // Set by the calling thread before a release when it stops early (the caller cancelled the run).
    let ended = Arc::new(AtomicBool::new(false));
    let probe = {
        let stop = Arc::clone(&stop);
        std::thread::Builder::new()
            .name("tcp-probe".to_string())
            .spawn(move || tick::ticks_thread(&stop, LatencyRecorder::new()))
            .map_err(|e| NetworkError::setup("the probe thread", e))?
    };
    let mut threads = Vec::with_capacity(job.connections);
    for index in 0..job.connections {
        let (job, barrier, ended) = (Arc::clone(&job), Arc::clone(&barrier), Arc::clone(&ended));
        let spawned = std::thread::Builder::new()
            .name(format!("tcp-conn-{index}"))
            .spawn(move || connection(&job, index, &barrier, &ended));
        match spawned {
            Ok(handle) => threads.push(handle),
            Err(e) => {
                // Nobody can fill the barrier now: stop the probe and report.
                stop.store(true, Ordering::Relaxed);
                return Err(NetworkError::setup("a connection thread", e));
            }
        }
    }
    let batches = Times::new(usize::try_from(job.batches).unwrap_or(0));
    barrier.wait();
    go();
    for batch in 0..job.batches {
        // Between batches, one relaxed load (a `None` test in timed runs).
        if job.cancel.is_raised() {
            ended.store(true, Ordering::Relaxed);
            barrier.wait();
            break;
        }
        let started = Instant::now();
        barrier.wait();
        barrier.wait();
        batches.set(batch, micros_since(started));
    }
    stop.store(true, Ordering::Relaxed);
    let mut outcome = Outcome::joined(job.total(), threads.into_iter().map(|t| t.join()), "thread");
    outcome.probe = probe.join().ok();
    outcome.latencies = batches;
    outcome.client_threads = job.connections as u64 + 1;
    Ok(outcome)
}

fn connection<M: Meter>(job: &TcpJob<M>, index: usize, barrier: &Barrier, ended: &AtomicBool) -> Outcome {
    let (mut outcome, mut stream) = tcp_exchange::opened(tcp_exchange::connect_std(job.addr));
    barrier.wait();
    for batch in 0..job.batches {
        barrier.wait();
        if ended.load(Ordering::Relaxed) {
            break;
        }
        tcp_exchange::blocking_batch(job, (batch, index), &mut outcome, &mut stream, |s, seq| {
            tcp_exchange::exchange_std(s, job.addr, seq, index)
        });
        barrier.wait();
    }
    outcome
}
