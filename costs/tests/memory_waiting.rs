//! Every memory unit waits on its own wake-up, so the kinds compare at equal construction: a stream unit (task,
//! future or generator) is held by a task that stays alive, parked, until the release wakes its units, never by
//! a `Vec` of generators polled once that nothing can wake; and the memory questions ask the families on resident
//! memory and on CPU per unit.

use costs::memory::contestants::Contestant;
use costs::payload::expected_total;
use costs::MemoryScenario;
use measure::question::Alternatives;
use measure::scenario::Scenario;
use measure::summary::Family;

const UNITS: u64 = 100;

/// Hold `UNITS` units of `contestant`: the runtime's tasks alive while they wait, and after the release.
fn tasks_while_waiting(contestant: Contestant) -> (Option<usize>, Option<usize>) {
    let name = contestant.info().name;
    let units = contestant.prepare().unwrap_or_else(|e| panic!("{name}: {e}"));
    let held = units.hold(UNITS, 16).unwrap_or_else(|e| panic!("{name}: {e}"));
    let waiting = units.alive_tasks();
    let total = held.release().unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(total, expected_total(UNITS, 16), "{name}");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while units.alive_tasks().is_some_and(|n| n > 0) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    (waiting, units.alive_tasks())
}

testkit::own_process! {
    #[test]
    fn generators_wait_in_a_task_until_released() {
        let (waiting, after) = tasks_while_waiting(Contestant::AsyncStream);
        assert_eq!(waiting, Some(1), "one task drives every generator, each parked on its oneshot");
        assert_eq!(after, Some(0));
    }

    #[test]
    fn futures_wait_in_a_task_until_released() {
        let (waiting, after) = tasks_while_waiting(Contestant::FuturesUnordered);
        assert_eq!(waiting, Some(1));
        assert_eq!(after, Some(0));
    }

    #[test]
    fn tasks_each_wait_until_released() {
        let (waiting, after) = tasks_while_waiting(Contestant::TokioTask);
        assert_eq!(waiting, Some(UNITS as usize));
        assert_eq!(after, Some(0));
    }
}

#[test]
fn every_stream_unit_runs_on_a_runtime() {
    for c in Contestant::ALL.into_iter().filter(|c| c.info().family == Family::Stream) {
        let units = c.prepare().unwrap_or_else(|e| panic!("{}: {e}", c.info().name));
        assert_eq!(units.alive_tasks(), Some(0), "{}: a runtime whose tasks hold the units", c.info().name);
    }
}

#[test]
fn the_families_are_asked_on_resident_memory_and_on_cpu() {
    let questions = MemoryScenario.questions();
    let family: Vec<_> = questions.iter().filter(|q| q.family).map(|q| (q.id.as_ref(), q.metric)).collect();
    assert_eq!(family, [("family", "rss_bytes_per_unit"), ("family-cpu", "cpu_ns_per_item")]);
    assert!(questions.iter().filter(|q| q.family).all(|q| q.alternatives == Alternatives::Candidates));
}
