//! Every memory contestant passes its checks (those that apply to it): exact payloads, every unit waiting, the
//! OS's limits respected; and the names of both scenarios' contestants are unique and follow their family.

use costs::memory::conformance;
use costs::memory::contestants::Contestant as Unit;
use costs::primitives::contestants::Contestant as Primitive;

fn assert_passes(contestant: Unit) {
    let checks = conformance::all(contestant);
    assert_eq!(checks.len(), 7);
    let threads = matches!(contestant, Unit::Thread | Unit::Thread64k);
    for check in checks {
        // Only threads have OS limits to refuse at; for the others that check says it does not apply.
        let applies = threads || check.name != "refuses_what_the_os_cannot_hold";
        let ok = if applies { check.passed } else { check.not_applicable };
        assert!(ok, "{}: {} {} — {}", contestant.info().name, check.name, check.outcome(), check.detail);
    }
}

// One test per contestant, each in a process of its own: the checks count the process's threads and units
// report their start through one process-wide counter, as in the lab's one trial process per contestant.
testkit::each_contestant_in_own_process! { Unit, assert_passes;
    tokio_task => TokioTask,
    tokio_task_current_thread => TokioTaskCurrentThread,
    futures_unordered => FuturesUnordered,
    async_stream => AsyncStream,
    thread_64k => Thread64k,
    thread => Thread,
    coroutine => Coroutine,
    coroutine_8k => Coroutine8k,
}

#[test]
fn names_are_unique_and_follow_the_family() {
    let infos: Vec<_> = Unit::ALL.iter().map(|c| c.info()).chain(Primitive::ALL.iter().map(|c| c.info())).collect();
    testkit::checks::assert_names_follow_families(&infos);
}
