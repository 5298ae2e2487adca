//! Every device and backpressure contestant passes every conformance check, each contestant in a process of its
//! own, as the lab runs it: the checks count the process's threads before and after a run, which another
//! contestant's (or another test's) threads in the same process would change.

use device::call::Timer;
use device::checks::{all, SMALL};
use device::contestants::{BlockingShape, ChannelFlavor, Contestant, StreamShape};

/// Every shape of both families, on both timers, free and budgeted.
fn every_contestant() -> Vec<Contestant> {
    let mut all = Vec::new();
    for timer in [Timer::Device, Timer::Own] {
        for shape in [
            StreamShape::Buffered,
            StreamShape::BufferUnordered,
            StreamShape::PerWorkerUnordered,
            StreamShape::ThreadPerCore,
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
    let contestants = every_contestant();
    let names: Vec<String> = contestants.iter().map(Contestant::name).collect();
    testkit::each_in_own_process("every_contestant_passes_every_check", &names, |name| {
        let contestant = contestants.iter().find(|c| c.name() == name).unwrap_or_else(|| panic!("no {name}"));
        let checks = all(*contestant, SMALL, 1);
        assert!(!checks.is_empty(), "{name}: no checks");
        for check in checks {
            assert!(!check.failed(), "{name}: {} failed: {}", check.name, check.detail);
        }
    });
}

#[test]
fn names_are_unique() {
    let mut names: Vec<String> = every_contestant().iter().map(Contestant::name).collect();
    let n = names.len();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), n);
}
