//! Shutdown: pending completions resolve with `ShutDown` (blocked threads and awaiting tasks alike), later
//! calls are refused, and the timer threads are joined — explicitly or when the last handle drops.

mod common;

use std::time::Duration;

use dependency::{CallError, Config, Dependency};

/// Whether the kernel thread `tid` of this process is gone.
fn thread_gone(tid: u32) -> bool {
    !std::path::Path::new(&format!("/proc/self/task/{tid}")).exists()
}

#[test]
fn shutdown_resolves_pending_calls_and_joins_the_timer_threads() {
    let dep = Dependency::start(Config { timer_threads: 3, ..common::config(1, 60_000) }).expect("start");
    let tids = dep.timer_thread_ids();
    assert_eq!(tids.len(), 3);
    assert!(tids.iter().all(|&tid| !thread_gone(tid)));
    // Each waiter thread says who it is, then waits; each task polls once (registering its waker), says so,
    // then awaits. Shutdown comes only once every thread is asleep in its wait and every task has registered,
    // so it certainly wakes blocked threads and waiting tasks, not callers that had yet to wait.
    let (tids_tx, tids_rx) = std::sync::mpsc::channel();
    let waiters: Vec<_> = (0..4)
        .map(|input| {
            let completion = dep.call(input);
            let tids = tids_tx.clone();
            std::thread::spawn(move || {
                let _ = tids.send(common::current_tid());
                completion.wait()
            })
        })
        .collect();
    let waiter_tids: Vec<u32> = tids_rx.iter().take(4).collect();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).build().expect("runtime");
    let (registered_tx, registered_rx) = std::sync::mpsc::channel();
    let tasks: Vec<_> = (4..8)
        .map(|input| {
            let mut completion = dep.call(input);
            let registered = registered_tx.clone();
            runtime.spawn(async move {
                assert!(futures::poll!(&mut completion).is_pending(), "a minute-long call is pending");
                let _ = registered.send(());
                completion.await
            })
        })
        .collect();
    assert_eq!(registered_rx.iter().take(4).count(), 4, "every task polled once");
    assert!(
        common::eventually(Duration::from_secs(20), || waiter_tids.iter().all(|&tid| common::sleeping(tid))),
        "the waiter threads never all blocked in their wait"
    );
    dep.shutdown();
    for waiter in waiters {
        assert_eq!(waiter.join().expect("waiter"), Err(CallError::ShutDown));
    }
    for task in tasks {
        assert_eq!(runtime.block_on(task).expect("task"), Err(CallError::ShutDown));
    }
    assert!(dep.timer_thread_ids().is_empty());
    assert!(common::eventually(Duration::from_secs(2), || tids.iter().all(|&tid| thread_gone(tid))));
    let stats = dep.stats();
    assert_eq!((stats.issued, stats.cancelled, stats.completed, stats.in_service, stats.queued), (8, 8, 0, 0, 0));
}

#[test]
fn calls_after_shutdown_are_refused_and_shutdown_is_idempotent() {
    let dep = Dependency::start(common::config(10, 1)).expect("start");
    assert!(dep.call(0).wait().is_ok());
    dep.shutdown();
    dep.shutdown();
    assert_eq!(dep.call(1).wait(), Err(CallError::ShutDown));
    let stats = dep.stats();
    assert_eq!((stats.issued, stats.completed, stats.cancelled), (2, 1, 1));
}

#[test]
fn dropping_the_last_handle_shuts_down() {
    let dep = Dependency::start(common::config(1, 60_000)).expect("start");
    let tids = dep.timer_thread_ids();
    let clone = dep.clone();
    let in_service = dep.call(0);
    let queued = clone.call(1);
    drop(dep);
    assert!(!in_service.is_complete(), "a clone is still alive");
    drop(clone);
    assert_eq!(in_service.wait(), Err(CallError::ShutDown));
    assert_eq!(queued.wait(), Err(CallError::ShutDown));
    assert!(common::eventually(Duration::from_secs(2), || tids.iter().all(|&tid| thread_gone(tid))));
}

#[test]
fn timer_cpu_survives_shutdown() {
    let dep = Dependency::start(common::config(100, 1)).expect("start");
    let completions: Vec<_> = (0..200).map(|input| dep.call(input)).collect();
    assert!(completions.into_iter().all(|c| c.wait().is_ok()));
    let running = dep.timer_cpu();
    dep.shutdown();
    assert!(dep.timer_cpu() >= running);
}
