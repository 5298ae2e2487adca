//! The machine's own floor: the smallest costs any hand-off can reach on this testbed, timed with the wall clock
//! and the process's CPU clock (the virtual machines the lab runs on expose no hardware counters).
//!
//! Each [`Probe`] is the smallest correct program of one mechanism every contestant is built from: a cache line
//! passed between two threads, a thread parked and woken (a futex), a tokio task woken, a thread spawned and
//! joined, an item through a single-producer single-consumer ring (`rtrb`, as its users run it: spin on full and
//! empty), and the loop that hands nothing off. Where a probe's placement matters it runs twice, both threads
//! pinned to one CPU and pinned to two; a machine with one CPU has no "across" figures, and says so.
//!
//! These are written here rather than taken from a benchmark crate because each is the floor of one term of the
//! lab's own contestants (a channel's wake-up, its cache-line traffic), timed in the lab's own trial processes.

use std::hint::{black_box, spin_loop};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// Spins of a waiting side before it yields its CPU: enough to catch the other side's answer when it runs on
/// another CPU, few enough that two threads on one CPU take turns instead of burning a time slice.
const SPINS_BEFORE_YIELD: u32 = 200;

/// The ring's capacity: the handoff scenario's claim capacity.
pub const RING_CAPACITY: usize = 256;

/// Where a probe's two threads run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Both pinned to the first allowed CPU.
    SameCpu,
    /// Pinned to the first two allowed CPUs.
    AcrossCpus,
    /// Wherever the scheduler puts them, within the process's allowed CPUs.
    Unpinned,
}

/// One mechanism of the floor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    /// A cache line written by one thread and answered by the other: half a round trip per operation.
    CacheLine(Placement),
    /// A thread woken from `park` by the other's `unpark`, which then parks to be woken back: one wake-up per
    /// operation.
    Wake(Placement),
    /// A tokio task woken by a `Notify` from another task: on one current-thread runtime (same worker), or from a
    /// task of a second runtime on another CPU (across workers), one wake-up per operation.
    TaskWake(Placement),
    /// `std::thread::spawn` of an empty closure and its `join`.
    SpawnJoin,
    /// One item pushed into a bounded SPSC ring ([`RING_CAPACITY`]) by one thread and popped by another, each
    /// spinning on full and empty.
    Ring,
    /// One item of a plain loop that sums them: nothing handed off.
    Loop,
    /// One 64-byte heap allocation and its free, on one thread, through the process's allocator (the one the
    /// contestants allocate through): the price of an allocation a hand-off makes per item.
    Alloc,
}

impl Probe {
    /// Every probe, in the order a report lists them.
    pub const ALL: [Probe; 11] = [
        Probe::Loop,
        Probe::CacheLine(Placement::SameCpu),
        Probe::CacheLine(Placement::AcrossCpus),
        Probe::Ring,
        Probe::Wake(Placement::SameCpu),
        Probe::Wake(Placement::AcrossCpus),
        Probe::TaskWake(Placement::SameCpu),
        Probe::TaskWake(Placement::AcrossCpus),
        Probe::SpawnJoin,
        Probe::Alloc,
        Probe::CacheLine(Placement::Unpinned),
    ];

    /// Its key in `floor.json`.
    pub fn key(self) -> &'static str {
        match self {
            Probe::Loop => "loop_item",
            Probe::CacheLine(Placement::SameCpu) => "cache_line_same_cpu",
            Probe::CacheLine(Placement::AcrossCpus) => "cache_line_across_cpus",
            Probe::CacheLine(Placement::Unpinned) => "cache_line_unpinned",
            Probe::Ring => "spsc_ring_item",
            Probe::Wake(Placement::SameCpu) => "wake_same_cpu",
            Probe::Wake(Placement::AcrossCpus) => "wake_across_cpus",
            Probe::Wake(Placement::Unpinned) => "wake_unpinned",
            Probe::TaskWake(Placement::SameCpu) => "task_wake_same_worker",
            Probe::TaskWake(Placement::AcrossCpus) => "task_wake_across_workers",
            Probe::TaskWake(Placement::Unpinned) => "task_wake_unpinned",
            Probe::SpawnJoin => "thread_spawn_join",
            Probe::Alloc => "alloc_free",
        }
    }

    /// The probe whose key is `key`.
    pub fn from_key(key: &str) -> Option<Probe> {
        Probe::ALL.into_iter().find(|p| p.key() == key)
    }

    /// What one operation is, in a reader's words.
    pub fn what(self) -> &'static str {
        match self {
            Probe::Loop => "one item of a plain loop that sums its items (nothing handed off)",
            Probe::CacheLine(Placement::SameCpu) => {
                "half a round trip of one cache line between two threads pinned to one CPU (each waiting side \
                 spins briefly, then yields: every operation is a switch between the two threads)"
            }
            Probe::CacheLine(Placement::AcrossCpus) => {
                "half a round trip of one cache line between two threads pinned to two CPUs (each side spins \
                 until the other's write arrives)"
            }
            Probe::CacheLine(Placement::Unpinned) => {
                "half a round trip of one cache line between two unpinned threads (where the scheduler puts them)"
            }
            Probe::Ring => {
                "one item through a bounded single-producer single-consumer ring (rtrb, capacity 256), producer \
                 and consumer pinned to two CPUs, each spinning on full and empty"
            }
            Probe::Wake(Placement::SameCpu) => {
                "one park → unpark wake-up (a futex) between two threads pinned to one CPU"
            }
            Probe::Wake(Placement::AcrossCpus) => {
                "one park → unpark wake-up (a futex) of a thread on another CPU, which had gone to sleep"
            }
            Probe::Wake(Placement::Unpinned) => "one park → unpark wake-up between two unpinned threads",
            Probe::TaskWake(Placement::SameCpu) => {
                "one tokio task woken by another task's `Notify` on the same worker (a current-thread runtime)"
            }
            Probe::TaskWake(Placement::AcrossCpus) => {
                "one tokio task woken by a task of another runtime's worker on another CPU (the woken worker had \
                 parked)"
            }
            Probe::TaskWake(Placement::Unpinned) => "one tokio task wake-up between unpinned workers",
            Probe::SpawnJoin => "one OS thread spawned with an empty body and joined",
            Probe::Alloc => "one 64-byte heap allocation and its free, on one thread",
        }
    }

    /// The CPUs it needs: 2 for a probe across CPUs, else 1.
    pub fn cpus_needed(self) -> usize {
        match self {
            Probe::CacheLine(Placement::AcrossCpus)
            | Probe::Wake(Placement::AcrossCpus)
            | Probe::TaskWake(Placement::AcrossCpus)
            | Probe::Ring => 2,
            _ => 1,
        }
    }

    /// Run `ops` operations on `cpus` (the process's allowed CPUs, in order) and time them. `Err` says why the
    /// probe cannot run here (too few CPUs, a CPU that cannot be pinned to).
    pub fn run(self, ops: u64, cpus: &[usize]) -> Result<Timed, String> {
        if cpus.len() < self.cpus_needed() {
            return Err(format!("needs {} CPUs; this process may use {}", self.cpus_needed(), cpus.len()));
        }
        let first = cpus[0];
        let second = cpus.get(1).copied().unwrap_or(first);
        let pair = |placement: Placement| match placement {
            Placement::SameCpu => (Some(first), Some(first)),
            Placement::AcrossCpus => (Some(first), Some(second)),
            Placement::Unpinned => (None, None),
        };
        match self {
            Probe::Loop => Ok(timed(ops, || {
                let sum = (0..ops).map(black_box).fold(0u64, u64::wrapping_add);
                black_box(sum);
            })),
            Probe::CacheLine(placement) => cache_line(ops, pair(placement)),
            Probe::Ring => ring(ops, pair(Placement::AcrossCpus)),
            Probe::Wake(placement) => wake(ops, pair(placement)),
            Probe::TaskWake(placement) => task_wake(ops, pair(placement)),
            Probe::SpawnJoin => Ok(timed(ops, || {
                for _ in 0..ops {
                    let _ = thread::spawn(|| black_box(0u64)).join();
                }
            })),
            Probe::Alloc => Ok(timed(ops, || {
                for i in 0..ops {
                    drop(black_box(Box::new([i as u8; 64])));
                }
            })),
        }
    }
}

/// A timed run of a probe.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timed {
    /// Operations run.
    pub ops: u64,
    /// Wall time of the whole run.
    pub wall: Duration,
    /// CPU time the process used over it (every thread), in nanoseconds.
    pub cpu_ns: u64,
}

impl Timed {
    /// Wall nanoseconds per operation.
    pub fn ns_per_op(&self) -> f64 {
        self.wall.as_nanos() as f64 / self.ops.max(1) as f64
    }

    /// CPU nanoseconds per operation (all threads).
    pub fn cpu_ns_per_op(&self) -> f64 {
        self.cpu_ns as f64 / self.ops.max(1) as f64
    }
}

/// Time `body` with the wall clock and the process's CPU clock.
fn timed(ops: u64, body: impl FnOnce()) -> Timed {
    let cpu = measure::cpu::process_cpu_clock_ns().unwrap_or(0);
    let start = Instant::now();
    body();
    let wall = start.elapsed();
    let cpu_ns = measure::cpu::process_cpu_clock_ns().unwrap_or(0).saturating_sub(cpu);
    Timed { ops, wall, cpu_ns }
}

/// Pin the calling thread to `cpu` (threads it spawns afterwards inherit the pin); `Err` says why it cannot.
pub fn pin(cpu: usize) -> Result<(), String> {
    // SAFETY: cpu_set_t is a plain bit array; all zeroes is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: CPU_SET writes one bit of `set`.
    unsafe { libc::CPU_SET(cpu, &mut set) };
    // SAFETY: sched_setaffinity(2) on the calling thread (0) reads `size_of::<cpu_set_t>()` bytes of `set`.
    if unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) } != 0 {
        return Err(format!("cannot pin a thread to CPU {cpu}: {}", std::io::Error::last_os_error()));
    }
    Ok(())
}

/// Pin the calling thread to `cpu` when given.
fn pin_to(cpu: Option<usize>) -> Result<(), String> {
    cpu.map_or(Ok(()), pin)
}

/// Run `main` on a thread pinned to `cpus.0` and `other` on one pinned to `cpus.1`, both started together (the
/// clock runs around both), and time them.
fn two_threads(
    ops: u64,
    cpus: (Option<usize>, Option<usize>),
    main: impl FnOnce() + Send + 'static,
    other: impl FnOnce() + Send + 'static,
) -> Result<Timed, String> {
    let ready = Arc::new(std::sync::Barrier::new(3));
    let spawn = |cpu: Option<usize>, body: Box<dyn FnOnce() + Send>, ready: Arc<std::sync::Barrier>| {
        thread::spawn(move || {
            let pinned = pin_to(cpu);
            ready.wait();
            if pinned.is_ok() {
                body();
            }
            pinned
        })
    };
    let a = spawn(cpus.0, Box::new(main), ready.clone());
    let b = spawn(cpus.1, Box::new(other), ready.clone());
    let mut result = Ok(());
    let run = timed(ops, || {
        ready.wait();
        for handle in [a, b] {
            let joined = handle.join().unwrap_or_else(|_| Err("a probe thread panicked".to_string()));
            result = result.clone().and(joined);
        }
    });
    result.map(|()| run)
}

/// Wait until `cell` holds `value`: spin, then yield the CPU between spins.
fn wait_for(cell: &AtomicU64, value: u64) {
    let mut spins = 0u32;
    while cell.load(Ordering::Acquire) != value {
        if spins < SPINS_BEFORE_YIELD {
            spins += 1;
            spin_loop();
        } else {
            thread::yield_now();
        }
    }
}

/// A cache line alone on its line, so that nothing else shares its traffic.
#[repr(align(128))]
#[derive(Debug, Default)]
struct Line(AtomicU64);

fn cache_line(ops: u64, cpus: (Option<usize>, Option<usize>)) -> Result<Timed, String> {
    // One round trip is two operations: A writes 2k+1, B answers 2k+2.
    let trips = ops.div_ceil(2);
    let line = Arc::new(Line::default());
    let (a, b) = (line.clone(), line);
    two_threads(
        trips * 2,
        cpus,
        move || {
            for k in 0..trips {
                a.0.store(2 * k + 1, Ordering::Release);
                wait_for(&a.0, 2 * k + 2);
            }
        },
        move || {
            for k in 0..trips {
                wait_for(&b.0, 2 * k + 1);
                b.0.store(2 * k + 2, Ordering::Release);
            }
        },
    )
}

fn ring(ops: u64, cpus: (Option<usize>, Option<usize>)) -> Result<Timed, String> {
    let (mut producer, mut consumer) = rtrb::RingBuffer::<u64>::new(RING_CAPACITY);
    two_threads(
        ops,
        cpus,
        move || {
            for item in 0..ops {
                let mut item = item;
                loop {
                    match producer.push(item) {
                        Ok(()) => break,
                        Err(rtrb::PushError::Full(back)) => {
                            item = back;
                            spin_loop();
                        }
                    }
                }
            }
        },
        move || {
            let mut sum = 0u64;
            let mut taken = 0;
            while taken < ops {
                match consumer.pop() {
                    Ok(item) => {
                        sum = sum.wrapping_add(item);
                        taken += 1;
                    }
                    Err(_) => spin_loop(),
                }
            }
            black_box(sum);
        },
    )
}

/// A thread's turn flag and its handle, filled in once it runs.
#[derive(Debug, Default)]
struct Turn {
    go: AtomicBool,
    thread: std::sync::OnceLock<thread::Thread>,
}

impl Turn {
    /// Give this side its turn and wake it.
    fn give(&self) {
        self.go.store(true, Ordering::Release);
        if let Some(t) = self.thread.get() {
            t.unpark();
        }
    }

    /// Wait for this side's turn, parked.
    fn take(&self) {
        while !self.go.swap(false, Ordering::Acquire) {
            thread::park();
        }
    }
}

fn wake(ops: u64, cpus: (Option<usize>, Option<usize>)) -> Result<Timed, String> {
    // Each operation wakes one side: A gives B its turn and parks until B gives it back.
    let trips = ops.div_ceil(2);
    let (a, b) = (Arc::new(Turn::default()), Arc::new(Turn::default()));
    let registered = Arc::new(std::sync::Barrier::new(2));
    let (a1, b1, r1) = (a.clone(), b.clone(), registered.clone());
    two_threads(
        trips * 2,
        cpus,
        move || {
            let _ = a1.thread.set(thread::current());
            r1.wait();
            for _ in 0..trips {
                b1.give();
                a1.take();
            }
        },
        move || {
            let _ = b.thread.set(thread::current());
            registered.wait();
            for _ in 0..trips {
                b.take();
                a.give();
            }
        },
    )
}

fn task_wake(ops: u64, cpus: (Option<usize>, Option<usize>)) -> Result<Timed, String> {
    use tokio::sync::Notify;
    let trips = ops.div_ceil(2);
    let (to_a, to_b) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    let side_a = {
        let (to_a, to_b) = (to_a.clone(), to_b.clone());
        async move {
            for _ in 0..trips {
                to_b.notify_one();
                to_a.notified().await;
            }
        }
    };
    let side_b = async move {
        for _ in 0..trips {
            to_b.notified().await;
            to_a.notify_one();
        }
    };
    let runtime =
        || tokio::runtime::Builder::new_current_thread().build().map_err(|e| format!("cannot build a runtime: {e}"));
    if cpus.0 == cpus.1 {
        // One current-thread runtime on one pinned thread, both tasks on its one worker.
        let ready = Arc::new(std::sync::Barrier::new(2));
        let go = ready.clone();
        let cpu = cpus.0;
        let worker = thread::spawn(move || {
            let prepared = pin_to(cpu).and_then(|()| runtime());
            go.wait();
            prepared.map(|rt| {
                rt.block_on(async {
                    let b = tokio::spawn(side_b);
                    side_a.await;
                    let _ = b.await;
                })
            })
        });
        let mut result = Ok(());
        let run = timed(trips * 2, || {
            ready.wait();
            result = worker.join().unwrap_or_else(|_| Err("a probe thread panicked".to_string()));
        });
        return result.map(|()| run);
    }
    let (rt_a, rt_b) = (runtime()?, runtime()?);
    two_threads(trips * 2, cpus, move || rt_a.block_on(side_a), move || rt_b.block_on(side_b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpus() -> Vec<usize> {
        let n = thread::available_parallelism().map(usize::from).unwrap_or(1);
        (0..n).collect()
    }

    #[test]
    fn every_probe_runs_its_operations_and_says_when_it_cannot() {
        let cpus = cpus();
        for probe in Probe::ALL {
            match probe.run(1_000, &cpus) {
                Ok(t) => assert!(t.ops >= 1_000 && t.wall > Duration::ZERO, "{probe:?}: {t:?}"),
                Err(why) => assert!(cpus.len() < probe.cpus_needed() || why.contains("pin"), "{probe:?}: {why}"),
            }
        }
        assert!(Probe::Ring.run(10, &[0]).is_err(), "one CPU has no ring across CPUs");
    }

    #[test]
    fn keys_round_trip() {
        for probe in Probe::ALL {
            assert_eq!(Probe::from_key(probe.key()), Some(probe));
        }
    }
}
