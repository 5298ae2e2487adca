//! `coroutine-may`: one `may` coroutine per persistent connection on 1 carrier thread, each exchange a
//! `may::net::TcpStream` `write_all` + `read_exact` written in the blocking style (the coroutine parks while the
//! socket is not ready, its carrier runs another); batches released and joined over `may::sync::mpsc`
//! channels, a probe coroutine ticking beside.
//!
//! The coroutines keep `may`'s rules (`docs/coroutines.md`): every wait goes through `may`'s sockets, channels or
//! sleep, none through a thread-blocking call, and no thread-local is held across a wait. The calling thread (not
//! a carrier) releases each batch with one message per connection and waits for one message back from each. The
//! caller's cancellation is checked between exchanges and between batches.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use may::sync::mpsc;
use measure::latency::LatencyRecorder;
use measure::meter::Meter;
use pipelines::coroutine;
use pipelines::LiveStages;

use crate::error::NetworkError;
use crate::outcome::{micros_since, Outcome, Times};
use crate::tcp_exchange::{self, TcpJob};
use crate::tick;

/// What the calling thread tells a connection's coroutine.
enum Order {
    /// Make batch `n`'s exchanges.
    Batch(u64),
    /// The run is over (or could not start): return.
    Stop,
}

/// Run `job`, calling `go` once every coroutine has connected and waits for its first batch.
pub fn run<M: Meter>(job: &TcpJob<M>, go: &mut dyn FnMut()) -> Result<Outcome, NetworkError> {
    let config = crate::affinity::may_config();
    config.apply();
    let job = Arc::new(job.clone());
    let live = Arc::new(LiveStages::new());
    let stop = Arc::new(AtomicBool::new(false));
    let probe = {
        let stop = Arc::clone(&stop);
        coroutine::spawn("tcp-probe", config.stack_words, &live, move || {
            tick::ticks_coroutine(&stop, LatencyRecorder::new())
        })
        .map_err(|e| NetworkError::setup("the probe coroutine", e))?
    };
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let mut orders = Vec::with_capacity(job.connections);
    let mut handles = Vec::with_capacity(job.connections);
    for index in 0..job.connections {
        let (order_tx, order_rx) = mpsc::channel::<Order>();
        let (job, done_tx) = (Arc::clone(&job), done_tx.clone());
        let spawned = coroutine::spawn("tcp-conn", config.stack_words, &live, move || {
            connection(&job, index, &order_rx, &done_tx)
        });
        match spawned {
            Ok(handle) => {
                orders.push(order_tx);
                handles.push(handle);
            }
            Err(e) => {
                // Send the coroutines already spawned home, then report.
                for order in &orders {
                    let _ = order.send(Order::Stop);
                }
                stop.store(true, Ordering::Relaxed);
                for handle in handles {
                    let _ = handle.join();
                }
                let _ = probe.join();
                return Err(NetworkError::setup("a connection coroutine", e));
            }
        }
    }
    drop(done_tx);
    // Every coroutine reports once when it has connected (or failed to).
    for _ in 0..job.connections {
        let _ = done_rx.recv();
    }
    let batches = Times::new(usize::try_from(job.batches).unwrap_or(0));
    go();
    for batch in 0..job.batches {
        // Between batches, one relaxed load (a `None` test in timed runs).
        if job.cancel.is_raised() {
            break;
        }
        let started = Instant::now();
        for order in &orders {
            let _ = order.send(Order::Batch(batch));
        }
        for _ in 0..job.connections {
            let _ = done_rx.recv();
        }
        batches.set(batch, micros_since(started));
    }
    for order in &orders {
        let _ = order.send(Order::Stop);
    }
    stop.store(true, Ordering::Relaxed);
    let mut outcome = Outcome::joined(job.total(), handles.into_iter().map(|h| h.join()), "coroutine");
    outcome.probe = probe.join().ok();
    outcome.latencies = batches;
    // The carriers and `may`'s timer thread run the coroutines; the calling thread releases the batches.
    outcome.client_threads = config.carriers as u64 + 2;
    Ok(outcome)
}

fn connection<M: Meter>(
    job: &TcpJob<M>,
    index: usize,
    orders: &mpsc::Receiver<Order>,
    done: &mpsc::Sender<()>,
) -> Outcome {
    let (mut outcome, mut stream) = tcp_exchange::opened(tcp_exchange::connect_may(job.addr));
    let _ = done.send(());
    while let Ok(Order::Batch(batch)) = orders.recv() {
        tcp_exchange::blocking_batch(job, (batch, index), &mut outcome, &mut stream, |s, seq| {
            tcp_exchange::exchange_blocking(s, job.addr, seq, index)
        });
        let _ = done.send(());
    }
    outcome
}
