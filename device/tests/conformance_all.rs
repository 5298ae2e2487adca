//! Every device and backpressure contestant passes every conformance check. In its own test binary, alone:
//! the checks count the process's threads before and after a run, which other tests running at the same time in
//! one process would change.

use device::call::Timer;
use device::conformance::all;
use device::contestants::{BlockingShape, ChannelFlavor, Contestant, StreamShape};

/// Every shape of both families, on both timers, free and budgeted.
fn every_contestant() -> Vec<Contestant> {
    let mut all = Vec::new();
    for timer in [Timer::Device, Timer::Own] {
        for shape in [
            StreamShape::Buffered,
            StreamShape::BufferUnordered,
            StreamShape::PerWorkerUnordered,
            StreamShape::Tasks,
            StreamShape::ChannelWorkers,
            StreamShape::Unbounded,
        ] {
            for free in [false, true] {
                all.push(Contestant::Stream { shape, free, timer });
            }
        }
        for shape in [
            BlockingShape::Pool,
            BlockingShape::ChannelWorkers(ChannelFlavor::Crossbeam),
            BlockingShape::ChannelWorkers(ChannelFlavor::Flume),
            BlockingShape::ChannelWorkers(ChannelFlavor::Std),
            BlockingShape::ThreadPerItem,
        ] {
            all.push(Contestant::Blocking { shape, timer });
        }
        all.push(Contestant::Coroutine { carriers: None, timer });
    }
    all
}

#[test]
fn every_contestant_passes_every_check() {
    for contestant in every_contestant() {
        for check in all(contestant, 1) {
            assert!(!check.failed(), "{}: {} failed: {}", contestant.name(), check.name, check.detail);
        }
    }
}

#[test]
fn names_are_unique() {
    let mut names: Vec<String> = every_contestant().iter().map(Contestant::name).collect();
    let n = names.len();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), n);
}
