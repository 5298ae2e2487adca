//! The capacity schedule applies exactly when its call is issued; after a drop, calls in service finish and
//! no call starts until in-service is below the new capacity; after an increase, queued calls start at once.

mod common;

use std::time::Duration;

use dependency::{CapacityChange, Config, Dependency};

#[test]
fn a_drop_applies_at_its_call_and_in_service_drains_before_new_starts() {
    // 4 slots, 300 ms calls, capacity 1 from call 6: calls 0-3 start, 4-5 queue; at call 6 capacity drops.
    let schedule = vec![CapacityChange { at_call: 6, capacity: 1 }];
    let dep = Dependency::start(Config { schedule, ..common::config(4, 300) }).expect("start");
    let mut completions: Vec<_> = (0..6).map(|input| dep.call(input)).collect();
    assert_eq!(dep.capacity(), 4);
    assert!(dep.stats().capacity_changed_at.is_none());
    completions.push(dep.call(6));
    assert_eq!(dep.capacity(), 1);
    let at_change = dep.stats();
    let changed_at = at_change.capacity_changed_at.expect("the change applied at call 6");
    assert_eq!(at_change.in_service + at_change.queued, 7, "nothing finished within 300 ms of issue");
    assert_eq!(at_change.in_service, 4, "calls in service are not preempted");

    let replies: Vec<_> = completions.into_iter().map(|c| c.wait().expect("served")).collect();
    let started_after: Vec<_> = replies.iter().filter(|reply| reply.started >= changed_at).collect();
    assert_eq!(started_after.len(), 3, "calls 4, 5 and 6 start after the change");
    // Each of them started only when nothing else was in service (capacity 1).
    assert_eq!(common::max_in_service_at_start(&replies, changed_at), 0);
    let last_early_finish = replies[..4].iter().map(|reply| reply.finished).max().expect("four replies");
    assert!(started_after.iter().all(|reply| reply.started >= last_early_finish), "a call started before the drain");
    for pair in started_after.windows(2) {
        assert!(pair[1].started >= pair[0].finished);
    }
    let stats = dep.stats();
    assert_eq!((stats.over_capacity_starts, stats.max_in_service), (0, 4));
    let timeline = dep.timeline();
    // The drop happened in window 0, which ends with the new capacity but saw 4 in service and 3 queued.
    assert_eq!(timeline.windows.first().map(|w| (w.capacity, w.max_in_service, w.max_queued)), Some((1, 4, 3)));
    assert!(timeline.windows.iter().all(|w| w.capacity == 1));
}

#[test]
fn an_increase_starts_queued_calls_at_once() {
    let schedule = vec![CapacityChange { at_call: 3, capacity: 3 }];
    let dep = Dependency::start(Config { schedule, ..common::config(1, 200) }).expect("start");
    let mut completions: Vec<_> = (0..3).map(|input| dep.call(input)).collect();
    completions.push(dep.call(3));
    assert_eq!(dep.capacity(), 3);
    let replies: Vec<_> = completions.into_iter().map(|c| c.wait().expect("served")).collect();
    let changed_at = dep.stats().capacity_changed_at.expect("applied");
    // Calls 1 and 2 start at the change, long before call 0 finishes; call 3 waits for a free slot.
    assert!(replies[1].started >= changed_at && replies[1].started < replies[0].finished);
    assert!(replies[2].started >= changed_at && replies[2].started < replies[0].finished);
    let first_free = replies[..3].iter().map(|reply| reply.finished).min().expect("three replies");
    assert!(replies[3].started >= first_free);
    assert!(common::max_in_service_at_start(&replies, changed_at) < 3);
    assert_eq!(dep.stats().over_capacity_starts, 0);
}

#[test]
fn the_overload_schedule_under_concurrent_callers_never_exceeds_capacity() {
    // The overload shape, small: 40 slots drop to 10 at call 400 of 800, with 80 concurrent callers.
    let calls = 800u64;
    let schedule = vec![CapacityChange { at_call: calls / 2, capacity: 10 }];
    let dep = Dependency::start(Config { schedule, jitter: Duration::from_millis(1), ..common::config(40, 2) })
        .expect("start");
    let replies: Vec<_> = std::thread::scope(|scope| {
        let callers: Vec<_> = (0..80)
            .map(|_| scope.spawn(|| (0..calls / 80).map(|i| dep.call(i).wait().expect("served")).collect::<Vec<_>>()))
            .collect();
        callers.into_iter().flat_map(|caller| caller.join().expect("caller")).collect()
    });
    let stats = dep.stats();
    assert_eq!((stats.completed, stats.over_capacity_starts), (calls, 0));
    assert!(stats.max_in_service <= 40);
    let changed_at = stats.capacity_changed_at.expect("applied at call 400");
    // Every start from the change on (including after the 40 have drained) saw fewer than 10 in service.
    let last_before = replies.iter().filter(|r| r.started < changed_at).map(|r| r.finished).max().expect("early calls");
    assert!(common::max_in_service_at_start(&replies, last_before) < 10);
    assert!(common::max_in_service_at_start(&replies, changed_at) < 10);
}
