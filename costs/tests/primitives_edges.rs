//! Every primitive passes the edge checks: faults at the first, a middle and the last operation surfaced, a clean
//! run after them, and the caller's cancel. In its own test binary: the checks count the process's threads (they
//! run each in a process of its own, as the lab runs each contestant).

use costs::primitives::conformance;
use costs::primitives::contestants::Contestant;

fn assert_passes(contestant: Contestant) {
    let name = contestant.info().name;
    let checks = conformance::edges(contestant);
    assert_eq!(checks.len(), 4, "{name}");
    let failed: Vec<String> =
        checks.iter().filter(|c| c.failed()).map(|c| format!("{}: {}", c.name, c.detail)).collect();
    assert!(failed.is_empty(), "{name} failed: {failed:#?}");
}

// One test per contestant, so a failure names it.
testkit::each_contestant_in_own_process! { Contestant, assert_passes;
    tokio_spawn => TokioSpawn,
    thread_spawn => ThreadSpawn,
    rayon_spawn => RayonSpawn,
    rayon_spawn_inside => RayonSpawnInside,
    may_spawn => MaySpawn,
    semaphore => Semaphore,
    mutex => Mutex,
    may_semaphore => MaySemaphore,
    tokio_oneshot => TokioOneshot,
    std_channel => StdChannel,
    may_oneshot => MayOneshot,
}
