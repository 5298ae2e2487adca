//! Measures the dependency's timer precision and throughput (not a test: the figures depend on the machine).
//!
//! `cargo run --release -p dependency --example precision` prints
//! 1. uncontended latency of a 5 ms call (issue → wait returns / await returns), blocking and async, over 200
//!    calls: p50/p99/max overshoot beyond 5 ms, and the timer's own overshoot (finished − started − 5 ms);
//! 2. sustained completions per second at 500 slots × 5 ms, 200,000 calls from 500 blocking threads, 500 tokio
//!    tasks, and 1,000 blocking threads (queue never empty: the dependency's own ceiling), with the CPU its
//!    timer threads used.

use std::time::{Duration, Instant};

use dependency::{Config, Dependency, Reply};

const SERVICE: Duration = Duration::from_millis(5);
const LATENCY_CALLS: usize = 200;
const THROUGHPUT_CALLS: usize = 200_000;

fn main() -> std::io::Result<()> {
    println!("# dependency precision and throughput ({} cores)", std::thread::available_parallelism()?.get());
    println!();
    println!("## 1. uncontended 5 ms calls, {LATENCY_CALLS} in sequence: overshoot beyond 5 ms");
    println!();
    println!("| caller | seen by caller p50 / p99 / max | timer (finished − started) p50 / p99 / max | early |");
    println!("|---|---|---|---|");
    let dep = Dependency::start(Config::default())?;
    let blocking = sequential(|| {
        let t0 = Instant::now();
        let reply = dep.call(1).wait();
        (t0.elapsed(), reply.ok())
    });
    print_latency("blocking wait", &blocking);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let multi = runtime.block_on(awaited_calls(&dep));
    print_latency("tokio multi-thread await", &multi);
    let current = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let single = current.block_on(awaited_calls(&dep));
    print_latency("tokio current-thread await", &single);
    let tokio_sleep = current.block_on(async {
        let mut samples = Vec::with_capacity(LATENCY_CALLS);
        for _ in 0..LATENCY_CALLS {
            let t0 = Instant::now();
            tokio::time::sleep(SERVICE).await;
            samples.push((t0.elapsed(), None));
        }
        samples
    });
    print_latency("(reference: tokio::time::sleep(5 ms))", &tokio_sleep);
    drop(dep);

    println!();
    println!("## 2. sustained throughput: 500 slots × 5 ms (ceiling 100,000/s), {THROUGHPUT_CALLS} calls");
    println!();
    println!("| callers | wall | completions/s | % of ceiling | timer threads CPU | timer CPU per completion | process CPU | timer overshoot p50 / p99 / max | max in service | violations |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    throughput("500 blocking threads", |dep| blocking_callers(dep, 500))?;
    throughput("500 tokio tasks (2 workers)", |dep| async_callers(dep, 500))?;
    throughput("1,000 blocking threads", |dep| blocking_callers(dep, 1_000))?;
    throughput("1,000 tokio tasks (2 workers)", |dep| async_callers(dep, 1_000))?;

    println!();
    println!("## 3. device shape: unlimited capacity, 10 ms calls, {DEVICE_CALLS} issued at once");
    println!();
    println!("| issue | issue time | max in service | last completion after issue | timer overshoot p50 / p99 / max | timer threads CPU |");
    println!("|---|---|---|---|---|---|");
    device()?;
    Ok(())
}

const DEVICE_CALLS: u64 = 100_000;

/// Issues `DEVICE_CALLS` 10 ms calls from one thread as fast as it can, then waits for them all.
fn device() -> std::io::Result<()> {
    let service = Duration::from_millis(10);
    let dep = Dependency::start(Config { capacity: usize::MAX, service, ..Config::default() })?;
    let timer0 = dep.timer_cpu();
    let t0 = Instant::now();
    let completions: Vec<_> = (0..DEVICE_CALLS).map(|input| dep.call(input)).collect();
    let issue = t0.elapsed();
    let most = dep.stats().max_in_service;
    let replies: Vec<Reply> = completions.into_iter().filter_map(|c| c.wait().ok()).collect();
    let last = replies.iter().map(|r| r.finished).max().map_or(Duration::ZERO, |at| at - t0);
    let overshoots = replies.iter().map(|r| r.in_service().saturating_sub(service)).collect();
    println!(
        "| one thread, back to back | {:.1} ms | {most} | {:.1} ms | {} | {:.0} ms |",
        issue.as_secs_f64() * 1e3,
        last.as_secs_f64() * 1e3,
        percentiles(overshoots),
        (dep.timer_cpu() - timer0).as_secs_f64() * 1e3
    );
    Ok(())
}

/// Awaits `LATENCY_CALLS` calls of `dep` one after the other.
async fn awaited_calls(dep: &Dependency) -> Vec<(Duration, Option<Reply>)> {
    let mut samples = Vec::with_capacity(LATENCY_CALLS);
    for _ in 0..LATENCY_CALLS {
        let t0 = Instant::now();
        let reply = dep.call(1).await;
        samples.push((t0.elapsed(), reply.ok()));
    }
    samples
}

/// Runs `LATENCY_CALLS` calls one after the other.
fn sequential(mut one: impl FnMut() -> (Duration, Option<Reply>)) -> Vec<(Duration, Option<Reply>)> {
    (0..LATENCY_CALLS).map(|_| one()).collect()
}

fn print_latency(caller: &str, samples: &[(Duration, Option<Reply>)]) {
    let seen: Vec<Duration> = samples.iter().map(|(elapsed, _)| elapsed.saturating_sub(SERVICE)).collect();
    let timer: Vec<Duration> =
        samples.iter().filter_map(|(_, reply)| reply.map(|r| r.in_service().saturating_sub(SERVICE))).collect();
    let early = samples.iter().filter(|(_, reply)| reply.is_some_and(|r| r.in_service() < SERVICE)).count();
    let timer_text = if timer.is_empty() { "–".to_string() } else { percentiles(timer) };
    println!("| {caller} | {} | {timer_text} | {early} |", percentiles(seen));
}

/// "p50 / p99 / max" in microseconds.
fn percentiles(mut samples: Vec<Duration>) -> String {
    samples.sort_unstable();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    format!("{} / {} / {} µs", at(0.5).as_micros(), at(0.99).as_micros(), at(1.0).as_micros())
}

/// Starts a default dependency, runs `drive` (which issues `THROUGHPUT_CALLS` calls and returns their timer
/// overshoots), and prints one row.
fn throughput(name: &str, drive: impl FnOnce(&Dependency) -> Vec<Duration>) -> std::io::Result<()> {
    let dep = Dependency::start(Config::default())?;
    let cpu0 = process_cpu();
    let timer0 = dep.timer_cpu();
    let t0 = Instant::now();
    let overshoots = drive(&dep);
    let wall = t0.elapsed();
    let timer_cpu = dep.timer_cpu() - timer0;
    let process = process_cpu().saturating_sub(cpu0);
    let stats = dep.stats();
    assert_eq!(stats.completed as usize, THROUGHPUT_CALLS);
    let rate = THROUGHPUT_CALLS as f64 / wall.as_secs_f64();
    println!(
        "| {name} | {:.2} s | {:.0} | {:.1}% | {:.0} ms ({:.0}% of a core) | {:.2} µs | {:.0} ms | {} | {} | {} |",
        wall.as_secs_f64(),
        rate,
        rate / 1_000.0,
        timer_cpu.as_secs_f64() * 1e3,
        100.0 * timer_cpu.as_secs_f64() / wall.as_secs_f64(),
        timer_cpu.as_secs_f64() * 1e6 / THROUGHPUT_CALLS as f64,
        process.as_secs_f64() * 1e3,
        percentiles(overshoots),
        stats.max_in_service,
        stats.over_capacity_starts,
    );
    Ok(())
}

fn blocking_callers(dep: &Dependency, callers: usize) -> Vec<Duration> {
    let per = THROUGHPUT_CALLS / callers;
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..callers)
            .map(|_| {
                scope.spawn(move || {
                    (0..per)
                        .filter_map(|i| dep.call(i as u64).wait().ok())
                        .map(|r| r.in_service().saturating_sub(SERVICE))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap_or_default()).collect()
    })
}

fn async_callers(dep: &Dependency, callers: usize) -> Vec<Duration> {
    let per = THROUGHPUT_CALLS / callers;
    let Ok(runtime) = tokio::runtime::Builder::new_multi_thread().worker_threads(2).build() else {
        return Vec::new();
    };
    runtime.block_on(async {
        let tasks: Vec<_> = (0..callers)
            .map(|_| {
                let dep = dep.clone();
                tokio::spawn(async move {
                    let mut overshoots = Vec::with_capacity(per);
                    for i in 0..per {
                        if let Ok(r) = dep.call(i as u64).await {
                            overshoots.push(r.in_service().saturating_sub(SERVICE));
                        }
                    }
                    overshoots
                })
            })
            .collect();
        let mut all = Vec::new();
        for task in tasks {
            all.extend(task.await.unwrap_or_default());
        }
        all
    })
}

/// User plus system CPU of the whole process.
fn process_cpu() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: valid out-pointer, valid clock id.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}
