//! The timer never fires early: every reply spends at least its service time in service, and the caller sees
//! at least that much, blocking or awaited, with and without jitter.

mod common;

use std::time::{Duration, Instant};

use dependency::{Config, Dependency};

#[test]
fn a_blocking_call_never_completes_before_its_service_time() {
    let config = common::config(500, 2);
    let dep = Dependency::start(config.clone()).expect("start");
    for input in 0..50 {
        let before = Instant::now();
        let reply = dep.call(input).wait().expect("served");
        let seen = before.elapsed();
        assert!(reply.in_service() >= config.service, "call {input} served in {:?}", reply.in_service());
        assert!(seen >= config.service, "call {input} returned after {seen:?}");
        assert!(reply.issued >= before && reply.started >= reply.issued && reply.finished >= reply.started);
        assert_eq!(reply.value, Dependency::answer(input));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_awaited_call_never_completes_before_its_service_time() {
    let config = common::config(500, 2);
    let dep = Dependency::start(config.clone()).expect("start");
    for input in 0..50 {
        let before = Instant::now();
        let reply = dep.call(input).await.expect("served");
        assert!(reply.in_service() >= config.service);
        assert!(before.elapsed() >= config.service);
    }
}

#[test]
fn jittered_calls_waited_on_by_many_threads_each_take_at_least_their_own_service_time() {
    let config = Config { jitter: Duration::from_millis(2), ..common::config(500, 3) };
    let dep = Dependency::start(config.clone()).expect("start");
    // Issued from this thread, so call i has issue index i; waited on from 8 threads.
    let completions: Vec<_> = (0..240).map(|input| (input, dep.call(input))).collect();
    let mut chunks: Vec<Vec<_>> = (0..8).map(|_| Vec::new()).collect();
    for (position, item) in completions.into_iter().enumerate() {
        chunks[position % 8].push(item);
    }
    let replies: Vec<_> = std::thread::scope(|scope| {
        let waiters: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                scope.spawn(|| {
                    chunk.into_iter().map(|(index, c)| (index, c.wait().expect("served"))).collect::<Vec<_>>()
                })
            })
            .collect();
        waiters.into_iter().flat_map(|waiter| waiter.join().expect("waiter thread")).collect()
    });
    assert_eq!(replies.len(), 240);
    for (index, reply) in &replies {
        let service = config.service_time(*index);
        assert!(reply.in_service() >= service, "call {index} served {:?} < {service:?}", reply.in_service());
        assert_eq!(reply.value, Dependency::answer(*index));
    }
    let distinct: std::collections::HashSet<Duration> = (0..240).map(|index| config.service_time(index)).collect();
    assert!(distinct.len() > 100, "jitter spreads service times");
}

#[test]
fn a_call_with_an_earlier_deadline_wakes_the_sleeping_timer() {
    // One timer thread; with jitter, pick a seed where call 0 takes > 800 ms and call 1 < 50 ms.
    let base = Config { timer_threads: 1, jitter: Duration::from_millis(499), ..common::config(10, 500) };
    let config = (0..100_000)
        .map(|seed| Config { seed, ..base.clone() })
        .find(|c| c.service_time(0) > Duration::from_millis(800) && c.service_time(1) < Duration::from_millis(50))
        .expect("some seed gives a long call then a short one");
    let dep = Dependency::start(config.clone()).expect("start");
    // The short call is issued only once the timer thread sleeps towards call 0's deadline, so it certainly
    // has to be woken for it: first the thread is idle (asleep with nothing pending, woken only by a call),
    // then call 0 wakes it, and its next sleep is the one until call 0's deadline.
    let timer = *dep.timer_thread_ids().first().expect("one timer thread");
    let asleep = || common::eventually(Duration::from_secs(20), || common::sleeping(timer));
    assert!(asleep(), "the timer thread never went idle");
    let idle = common::voluntary_switches(timer).expect("the timer thread's status");
    let long = dep.call(0);
    assert!(
        common::eventually(Duration::from_secs(20), || {
            common::voluntary_switches(timer).is_some_and(|n| n > idle) && common::sleeping(timer)
        }),
        "the timer thread never went to sleep until call 0's deadline"
    );
    let short = dep.call(1).wait().expect("served");
    assert!(short.in_service() >= config.service_time(1));
    let long = long.wait().expect("served");
    assert!(short.finished < long.started + config.service_time(0), "the short call waited for the long deadline");
    assert!(long.in_service() >= config.service_time(0));
}
