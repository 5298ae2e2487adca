//! The busy-machine guard on a real machine: a trial that runs while a CPU-burning sibling process (started by
//! the test, bounded in time, killed at the end) takes the cores marks its measured iterations disturbed, re-runs
//! them and records how many it discarded. The quiet case is tested with fake readings (`measure::busy` and the
//! harness's unit tests): this machine is shared, so a real-timing "quiet marks none" test could not be trusted.
#![allow(clippy::unwrap_used)]

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use measure::harness::{self, Instruments, Iteration, IterationData, Routine, Stop, Window};
use measure::record::TrialRequest;
use measure::scenario::CollectingSink;
use measure::summary::{Check, Disturbed};

/// Burners that spin for at most `BURN_S` seconds on their own (bash's `SECONDS`, no child processes), killed by
/// `Drop` when the test ends first.
const BURN_S: u32 = 60;

struct Burners(Vec<Child>);

impl Burners {
    fn start(n: usize) -> Burners {
        let script = format!("while [ $SECONDS -lt {BURN_S} ]; do :; done");
        Burners(
            (0..n)
                .map(|_| {
                    Command::new("bash")
                        .args(["-c", &script])
                        .stdin(Stdio::null())
                        .stdout(Stdio::null())
                        .spawn()
                        .expect("bash starts")
                })
                .collect(),
        )
    }
}

impl Drop for Burners {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A one-thread contestant that spins for 200 ms of wall time.
#[derive(Debug)]
struct Spin;

impl Routine for Spin {
    type Output = u64;

    fn run(&mut self, _: &Instruments, go: &mut dyn FnMut()) -> Result<u64, Stop> {
        go();
        let start = Instant::now();
        let mut x = 0u64;
        while start.elapsed() < Duration::from_millis(200) {
            for i in 0..1_000u64 {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
            }
        }
        Ok(x)
    }

    fn items(&self, _: &u64) -> u64 {
        1
    }

    fn finish(&mut self, _: Iteration, _: u64, window: Window<'_>) -> Result<IterationData, Stop> {
        Ok(IterationData::from_window(window))
    }

    fn checks(&mut self, _: u32, _: u32) -> Vec<Check> {
        Vec::new()
    }
}

#[test]
fn a_trial_beside_a_cpu_burning_sibling_marks_its_iterations_disturbed() {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    // One burner per core: whatever the trial's thread gets, the others take at least a core between them.
    let burners = Burners::start(cores);
    std::thread::sleep(Duration::from_millis(200));
    let request = TrialRequest {
        iterations: 2,
        seed: 0,
        quick: false,
        accounting: 0,
        ..testkit::fixture::quick_trial_request("test", "spin", &[])
    };
    let mut sink = CollectingSink::default();
    harness::run(&mut Spin, &request, &mut sink);
    drop(burners);
    assert_eq!(sink.iterations.len(), 2, "the kept iterations only: {:?}", sink.iterations);
    for it in &sink.iterations {
        assert!(it.others_cores.is_some_and(|c| c > 0.5), "others used the cores: {it:?}");
        assert!(it.reruns > 0 || it.disturbed, "a disturbed iteration was re-run or flagged: {it:?}");
    }
    let counted = Disturbed::count(&sink.iterations);
    assert!(counted.disturbed_iterations >= 2, "{counted:?}");
    assert_eq!(counted.guarded_iterations, 2);
}
