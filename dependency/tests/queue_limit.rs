//! The optional queue limit: a call that finds the queue full is rejected at once with `Overloaded` and
//! counted; the others are served as usual.

mod common;

use dependency::{CallError, Config, Dependency};

#[test]
fn a_call_finding_the_queue_full_is_rejected_at_once() {
    let dep = Dependency::start(Config { queue_limit: Some(2), ..common::config(1, 200) }).expect("start");
    let completions: Vec<_> = (0..5).map(|input| dep.call(input)).collect();
    // Call 0 is in service, 1 and 2 queue, 3 and 4 find the queue full.
    assert!(completions[3].is_complete() && completions[4].is_complete());
    let stats = dep.stats();
    assert_eq!((stats.issued, stats.rejected, stats.in_service, stats.queued), (5, 2, 1, 2));
    let results: Vec<_> = completions.into_iter().map(|c| c.wait()).collect();
    assert!(results[..3].iter().all(|result| result.is_ok()));
    assert_eq!(results[3..], [Err(CallError::Overloaded), Err(CallError::Overloaded)]);
    let stats = dep.stats();
    assert_eq!((stats.completed, stats.rejected, stats.max_queued), (3, 2, 2));
    assert_eq!(dep.timeline().windows.iter().map(|w| w.rejected).sum::<u64>(), 2);
}

#[tokio::test]
async fn an_awaited_rejection_is_ready_at_once() {
    let dep = Dependency::start(Config { queue_limit: Some(0), ..common::config(1, 100) }).expect("start");
    let served = dep.call(0);
    assert_eq!(dep.call(1).await, Err(CallError::Overloaded));
    assert!(served.await.is_ok());
    assert_eq!(dep.stats().rejected, 1);
}

#[test]
fn without_a_limit_nothing_is_rejected() {
    let dep = Dependency::start(common::config(1, 1)).expect("start");
    let completions: Vec<_> = (0..100).map(|input| dep.call(input)).collect();
    assert!(completions.into_iter().all(|c| c.wait().is_ok()));
    assert_eq!((dep.stats().rejected, dep.stats().max_queued), (0, 99));
}
