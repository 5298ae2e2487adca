//! The programs, each written as a person timing it by hand would write it. A hand-off makes its channel, starts
//! the clocks, spawns the producer (a thread, or a task), receives on the main thread (or a consumer task), joins
//! the producer, and stops the clocks: the producer's start-up is inside the window (tens of microseconds against
//! tens of milliseconds of hand-off), as in the lab's bare pairs. The task pairs run on one multi-thread tokio
//! runtime with tokio's default worker count (one per core) and no I/O or timer driver, as the lab's stream
//! contestants do, built once before the first iteration; both ends are spawned tasks and the main thread awaits
//! them in `block_on`. The loop runs on the main thread over an input built once.

use std::hint::black_box;
use std::thread;

use tokio::runtime::Runtime;

use crate::clock::{Sample, Start};
use crate::{Args, Program, Received};

/// A program ready to iterate: its arguments, and what it builds once (the runtime, the loop's input).
#[derive(Debug)]
pub struct Prepared {
    args: Args,
    runtime: Option<Runtime>,
    input: Vec<u64>,
}

impl Prepared {
    /// Build what `args`' program needs before its first iteration.
    pub fn new(args: &Args) -> Result<Prepared, String> {
        let runtime = if args.program.tasks() {
            let built = tokio::runtime::Builder::new_multi_thread().build();
            Some(built.map_err(|e| format!("cannot build the tokio runtime: {e}"))?)
        } else {
            None
        };
        let input = if args.program == Program::Loop { (0..args.items).collect() } else { Vec::new() };
        Ok(Prepared { args: *args, runtime, input })
    }

    /// Run one iteration: what it received and what it cost.
    pub fn iterate(&self) -> Result<(Received, Sample), String> {
        let Args { items, capacity, work, .. } = self.args;
        match (self.args.program, &self.runtime) {
            (Program::Crossbeam, _) => crossbeam(items, capacity),
            (Program::FlumeAsync, Some(rt)) => rt.block_on(flume_async(items, capacity)),
            (Program::TokioMpsc, Some(rt)) => rt.block_on(tokio_mpsc(items, capacity)),
            (Program::Loop, _) => Ok(chain_loop(black_box(&self.input), work)),
            (program, None) => Err(format!("`{}` was prepared without its runtime", program.name())),
        }
    }
}

/// A producer thread sends `0..items` into `crossbeam_channel::bounded(capacity)`; this thread receives.
pub fn crossbeam(items: u64, capacity: usize) -> Result<(Received, Sample), String> {
    let (tx, rx) = crossbeam_channel::bounded::<u64>(capacity);
    let start = Start::now();
    let producer = thread::spawn(move || {
        for i in 0..items {
            if tx.send(i).is_err() {
                break;
            }
        }
    });
    let mut got = Received::default();
    while let Ok(item) = rx.recv() {
        got.push(item);
    }
    producer.join().map_err(|_| "the producer thread panicked".to_string())?;
    let sample = start.stop();
    Ok((got, sample))
}

/// A producer task `send_async`s `0..items` into `flume::bounded(capacity)`; a consumer task `recv_async`s.
pub async fn flume_async(items: u64, capacity: usize) -> Result<(Received, Sample), String> {
    let (tx, rx) = flume::bounded::<u64>(capacity);
    let start = Start::now();
    let producer = tokio::spawn(async move {
        for i in 0..items {
            if tx.send_async(i).await.is_err() {
                break;
            }
        }
    });
    let consumer = tokio::spawn(async move {
        let mut got = Received::default();
        while let Ok(item) = rx.recv_async().await {
            got.push(item);
        }
        got
    });
    let got = consumer.await.map_err(|e| format!("the consumer task failed: {e}"))?;
    producer.await.map_err(|e| format!("the producer task failed: {e}"))?;
    let sample = start.stop();
    Ok((got, sample))
}

/// A producer task `send`s `0..items` into `tokio::sync::mpsc::channel(capacity)`; a consumer task `recv`s.
pub async fn tokio_mpsc(items: u64, capacity: usize) -> Result<(Received, Sample), String> {
    let (tx, mut rx) = tokio::sync::mpsc::channel::<u64>(capacity);
    let start = Start::now();
    let producer = tokio::spawn(async move {
        for i in 0..items {
            if tx.send(i).await.is_err() {
                break;
            }
        }
    });
    let consumer = tokio::spawn(async move {
        let mut got = Received::default();
        while let Some(item) = rx.recv().await {
            got.push(item);
        }
        got
    });
    let got = consumer.await.map_err(|e| format!("the consumer task failed: {e}"))?;
    producer.await.map_err(|e| format!("the producer task failed: {e}"))?;
    let sample = start.stop();
    Ok((got, sample))
}

/// The chain's loop: for each input value, map1 (`x·3+1`, then `work` mixing rounds), keep the even values, map2
/// (`x ^ (x >> 7)`), wrapping sum (the sum only, as `baseline-loop` keeps); on this thread.
pub fn chain_loop(input: &[u64], work: u32) -> (Received, Sample) {
    let start = Start::now();
    let mut sum = 0u64;
    for &x in input {
        let mut y = x.wrapping_mul(3).wrapping_add(1);
        for _ in 0..work {
            y = y.rotate_left(5).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (y >> 29);
        }
        if y % 2 == 0 {
            sum = sum.wrapping_add(y ^ (y >> 7));
        }
    }
    let got = black_box(Received { sum, count: 0, first_disorder: None });
    let sample = start.stop();
    (got, sample)
}
