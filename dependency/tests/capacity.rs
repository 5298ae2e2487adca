//! Capacity: queued calls start in FIFO order, and the dependency never serves more calls at once than its
//! capacity, however many threads or tasks call it concurrently.

mod common;

use std::time::Instant;

use dependency::Dependency;

/// Before every call of the test.
fn far_past() -> Instant {
    Instant::now().checked_sub(std::time::Duration::from_secs(60)).unwrap_or_else(Instant::now)
}

#[test]
fn queued_calls_start_in_issue_order() {
    // Every call is issued before any slot opens, so all twenty queue and two start at once when the slots
    // open, whatever the machine's load while they were issued.
    let dep = Dependency::start(common::config(0, 3)).expect("start");
    let completions: Vec<_> = (0..20).map(|input| dep.call(input)).collect();
    dep.set_capacity(2);
    let replies: Vec<_> = completions.into_iter().map(|c| c.wait().expect("served")).collect();
    for pair in replies.windows(2) {
        assert!(pair[0].started <= pair[1].started, "call {} started after call {}", pair[0].value, pair[1].value);
    }
    // With 2 slots, every call starts with at most one other in service.
    assert!(common::max_in_service_at_start(&replies, far_past()) < 2);
    let stats = dep.stats();
    assert_eq!((stats.max_in_service, stats.over_capacity_starts), (2, 0));
    assert_eq!(stats.max_queued, 20);
}

#[test]
fn many_threads_never_push_it_over_capacity() {
    let dep = Dependency::start(common::config(8, 1)).expect("start");
    let replies: Vec<_> = std::thread::scope(|scope| {
        let callers: Vec<_> = (0..64)
            .map(|t| {
                let dep = &dep;
                scope.spawn(move || (0..40).map(|i| dep.call(t * 1000 + i).wait().expect("served")).collect::<Vec<_>>())
            })
            .collect();
        callers.into_iter().flat_map(|caller| caller.join().expect("caller thread")).collect()
    });
    assert_eq!(replies.len(), 64 * 40);
    let stats = dep.stats();
    assert_eq!(stats.over_capacity_starts, 0);
    assert!(stats.max_in_service <= 8);
    assert!(common::max_in_service_at_start(&replies, far_past()) < 8);
    assert_eq!(stats.completed, 64 * 40);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_tasks_never_push_it_over_capacity() {
    let dep = Dependency::start(common::config(8, 1)).expect("start");
    let tasks: Vec<_> = (0..256u64)
        .map(|t| {
            let dep = dep.clone();
            tokio::spawn(async move {
                let mut replies = Vec::new();
                for i in 0..10 {
                    let reply = dep.call(t * 1000 + i).await.expect("served");
                    assert_eq!(reply.value, Dependency::answer(t * 1000 + i));
                    replies.push(reply);
                }
                replies
            })
        })
        .collect();
    let mut replies = Vec::new();
    for task in tasks {
        replies.extend(task.await.expect("task"));
    }
    assert_eq!(replies.len(), 2560);
    let stats = dep.stats();
    assert_eq!(stats.over_capacity_starts, 0);
    assert!(stats.max_in_service <= 8);
    assert!(common::max_in_service_at_start(&replies, far_past()) < 8);
}
