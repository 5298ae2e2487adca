//! The harness's one measurement loop, with the counting allocator installed as in the lab binary: timed
//! iterations make no gauge update, start no sampler thread and count no allocation; accounting iterations do all
//! three; the measured peak resident set leaves out what ran before the loop. The allocator and the peak are
//! process-wide, so the checks run one after another in a single test.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;

use measure::alloc::{snapshot, CountingAlloc};
use measure::harness::{self, Instruments, Iteration, IterationData, Routine, Stop, Window, INSTRUMENTED_PREFIX};
use measure::meter::Meter;
use measure::record::TrialRequest;
use measure::sampler;
use measure::scenario::CollectingSink;
use measure::summary::Check;

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

const ITEMS: u64 = 2_000;

/// What one run saw from inside: the instruments' counters around its own work.
#[derive(Debug)]
struct Seen {
    sum: u64,
    allocs_during_work: u64,
    samplers_started_during_work: u64,
}

/// A two-thread hand-off that boxes every item and meters it, and records what the instruments did meanwhile.
#[derive(Debug, Default)]
struct Handoff {
    seen: Vec<(Iteration, u64, u64)>,
    next: u32,
}

fn work<M: Meter>(meter: &M, go: &mut dyn FnMut()) -> Seen {
    let (tx, rx) = std::sync::mpsc::sync_channel::<Box<u64>>(16);
    // The producer is started and parked before the counters are read, as the lab's contestants are: its thread's
    // own start-up allocations happen before `ready`, and it sends nothing until `start`, after `go`.
    let (ready, start) = (std::sync::Barrier::new(2), std::sync::Barrier::new(2));
    std::thread::scope(|scope| {
        let (ready, start_line) = (&ready, &start);
        let producer = scope.spawn(move || {
            ready.wait();
            start_line.wait();
            for i in 0..ITEMS {
                meter.admit(1);
                if tx.send(Box::new(i)).is_err() {
                    break;
                }
            }
        });
        ready.wait();
        let (allocs, samplers) = (snapshot().allocs, sampler::started_count());
        go();
        start.wait();
        let sum = rx.iter().fold(0u64, |sum, b| {
            meter.leave(1);
            sum + *b
        });
        producer.join().unwrap();
        Seen {
            sum,
            allocs_during_work: snapshot().allocs - allocs,
            samplers_started_during_work: sampler::started_count() - samplers,
        }
    })
}

impl Routine for Handoff {
    type Output = Seen;

    fn run(&mut self, instruments: &Instruments, go: &mut dyn FnMut()) -> Result<Seen, Stop> {
        Ok(match instruments {
            Instruments::Timed => work(&Instruments::NONE, go),
            Instruments::Accounting(meter) => work(meter, go),
        })
    }

    fn items(&self, _: &Seen) -> u64 {
        ITEMS
    }

    fn finish(&mut self, iteration: Iteration, seen: Seen, window: Window<'_>) -> Result<IterationData, Stop> {
        if seen.sum != ITEMS * (ITEMS - 1) / 2 {
            return Err(Stop::failed("checksum", format!("sum {}", seen.sum)));
        }
        self.seen.push((iteration, seen.allocs_during_work, seen.samplers_started_during_work));
        self.next += 1;
        Ok(IterationData::from_window(window))
    }

    fn checks(&mut self, measured: u32, accounted: u32) -> Vec<Check> {
        vec![Check::new("checksum", true, format!("{measured} timed, {accounted} accounting"))]
    }
}

fn request(warmup: u32, iterations: u32, accounting: u32) -> TrialRequest {
    TrialRequest {
        scenario: "test".to_string(),
        contestant: "handoff".to_string(),
        phase: None,
        params: BTreeMap::new(),
        fork: 0,
        warmup,
        iterations,
        seed: 0,
        quick: true,
        accounting,
    }
}

#[test]
fn the_one_loop() {
    timed_iterations_carry_no_instrument();
    the_measured_peak_leaves_out_what_ran_before_the_loop();
}

fn timed_iterations_carry_no_instrument() {
    let mut routine = Handoff::default();
    let mut sink = CollectingSink::default();
    harness::run(&mut routine, &request(1, 3, 1), &mut sink);
    assert_eq!(sink.skipped, None);
    assert_eq!(sink.checks.len(), 1);
    assert!(sink.checks[0].passed, "{:?}", sink.checks);
    assert_eq!(sink.iterations.len(), 5);

    for (iteration, allocs, samplers) in &routine.seen {
        if iteration.accounting {
            assert!(*allocs >= ITEMS - 20, "the accounting iteration counts every Box: {allocs}");
            assert_eq!(*samplers, 1, "the accounting iteration starts its sampler");
        } else {
            assert_eq!(*allocs, 0, "iteration {}: a timed iteration counts no allocation", iteration.index);
            assert_eq!(*samplers, 0, "iteration {}: a timed iteration starts no sampler", iteration.index);
        }
    }
    for record in &sink.iterations[..4] {
        assert!(!record.accounting);
        assert!(record.metrics.contains_key("ms_per_million"));
        for instrument in ["max_outstanding", "max_outstanding_sampled", "allocs_per_item", "threads"] {
            assert!(!record.metrics.contains_key(instrument), "a timed record has no `{instrument}`");
        }
        assert!(record.metrics.keys().all(|k| !k.starts_with(INSTRUMENTED_PREFIX)));
    }
    let accounting = &sink.iterations[4];
    assert!(accounting.accounting && !accounting.warmup);
    let max = accounting.metrics["max_outstanding"];
    assert!((1.0..=18.0).contains(&max), "a channel of 16 plus one in each hand: {max}");
    // The producer runs ahead by a channel's worth before `go`: most, not all, of its boxes fall in the window.
    assert!(accounting.metrics["allocs_per_item"] >= 0.9);
    assert!(accounting.metrics.contains_key("instrumented_ms_per_million"));
    assert!(!accounting.metrics.contains_key("ms_per_million"), "no timing figure comes from accounting");
}

fn the_measured_peak_leaves_out_what_ran_before_the_loop() {
    // A conformance check that touched 256 MiB and gave it back.
    let big: Vec<u8> = vec![1; 256 << 20];
    let touched = std::hint::black_box(&big).iter().step_by(4096).map(|&b| u64::from(b)).sum::<u64>();
    assert!(touched > 0);
    drop(big);
    let before = measure::memory::peak_rss_mib().unwrap();
    assert!(before >= 256.0, "the check's peak shows before the loop: {before}");
    let mut sink = CollectingSink::default();
    harness::run(&mut Handoff::default(), &request(0, 1, 1), &mut sink);
    let after = measure::memory::peak_rss_mib().unwrap();
    assert!(after < 128.0, "the measured peak leaves out the check's 256 MiB: {after} MiB");
}
