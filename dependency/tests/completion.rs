//! One completion type for both families: the same `Completion` is waited on by a blocking thread or awaited
//! on tokio (multi-thread and current-thread), and the `ready`/`pending` fakes behave like real calls.

mod common;

use std::future::Future;
use std::pin::Pin;
use std::task::Context;
use std::time::{Duration, Instant};

use dependency::{CallError, Completion, Dependency, Reply};

fn reply(value: u64) -> Reply {
    let now = Instant::now();
    Reply { value, issued: now, started: now, finished: now }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn awaited_on_a_multi_thread_runtime() {
    let dep = Dependency::start(common::config(100, 2)).expect("start");
    let replies = futures::future::join_all((0..50).map(|input| dep.call(input))).await;
    for (input, reply) in replies.into_iter().enumerate() {
        assert_eq!(reply.expect("served").value, Dependency::answer(input as u64));
    }
}

#[tokio::test(flavor = "current_thread")]
async fn awaited_on_a_current_thread_runtime() {
    let dep = Dependency::start(common::config(100, 2)).expect("start");
    let replies = futures::future::join_all((0..50).map(|input| dep.call(input))).await;
    assert!(replies.iter().all(Result::is_ok));
    let one = dep.call(7).await.expect("served");
    assert_eq!(one.value, Dependency::answer(7));
}

#[tokio::test(flavor = "current_thread")]
async fn waited_on_a_blocking_thread_from_an_async_caller() {
    let dep = Dependency::start(common::config(100, 2)).expect("start");
    let completion = dep.call(3);
    let reply = tokio::task::spawn_blocking(move || completion.wait()).await.expect("blocking task");
    assert_eq!(reply.expect("served").value, Dependency::answer(3));
}

#[test]
fn waited_on_plain_threads() {
    let dep = Dependency::start(common::config(100, 2)).expect("start");
    let completions: Vec<_> = (0..20).map(|input| dep.call(input)).collect();
    let waiters: Vec<_> = completions.into_iter().map(|c| std::thread::spawn(move || c.wait())).collect();
    for (input, waiter) in waiters.into_iter().enumerate() {
        assert_eq!(waiter.join().expect("waiter").expect("served").value, Dependency::answer(input as u64));
    }
}

#[test]
fn polled_once_then_waited_blocking() {
    // No slot until the poll is done: the call is certainly pending then, however late this thread runs.
    let dep = Dependency::start(common::config(0, 20)).expect("start");
    let mut completion = dep.call(5);
    let waker = futures::task::noop_waker();
    assert!(Pin::new(&mut completion).poll(&mut Context::from_waker(&waker)).is_pending());
    dep.set_capacity(1);
    assert_eq!(completion.wait().expect("served").value, Dependency::answer(5));
}

#[test]
fn wait_until_times_out_then_the_call_still_completes() {
    // No slot until the wait has timed out: it cannot complete first, however late this thread runs.
    let dep = Dependency::start(common::config(0, 50)).expect("start");
    let completion = match dep.call(1).wait_until(Instant::now() + Duration::from_millis(1)) {
        Ok(result) => panic!("a call with no slot to run in finished: {result:?}"),
        Err(completion) => completion,
    };
    dep.set_capacity(1);
    assert!(completion.wait().is_ok());
}

#[tokio::test(flavor = "current_thread")]
async fn ready_fakes_resolve_at_once() {
    assert_eq!(Completion::ready(Ok(reply(4))).await.map(|r| r.value), Ok(4));
    assert_eq!(Completion::ready(Err(CallError::Overloaded)).wait(), Err(CallError::Overloaded));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pending_fakes_complete_by_hand_from_another_thread() {
    let (completer, mut completion) = Completion::pending();
    // The task polls once (registering its waker) and says so before it awaits: the completer then certainly
    // wakes a waiting task rather than finding the result picked up at the first poll.
    let (registered, waiting) = tokio::sync::oneshot::channel();
    let task = tokio::spawn(async move {
        assert!(futures::poll!(&mut completion).is_pending(), "nothing completed it yet");
        let _ = registered.send(());
        completion.await
    });
    waiting.await.expect("the task polled once");
    std::thread::spawn(move || completer.complete(Ok(reply(42)))).join().expect("completer thread");
    assert_eq!(task.await.expect("task").map(|r| r.value), Ok(42));

    let (completer, completion) = Completion::pending();
    let waiter = std::thread::spawn(move || completion.wait());
    completer.complete(Err(CallError::Overloaded));
    assert_eq!(waiter.join().expect("waiter"), Err(CallError::Overloaded));
}

#[test]
fn a_scripted_fake_stands_in_for_the_dependency() {
    /// What a scenario can code against in tests: anything that turns an input into a `Completion`.
    fn served_by(call: impl Fn(u64) -> Completion) -> Vec<Result<u64, CallError>> {
        (0..4).map(|input| call(input).wait().map(|r| r.value)).collect()
    }
    let fake = |input: u64| {
        if input % 2 == 0 {
            Completion::ready(Ok(reply(Dependency::answer(input))))
        } else {
            Completion::ready(Err(CallError::Overloaded))
        }
    };
    let results = served_by(fake);
    assert_eq!(results[0], Ok(Dependency::answer(0)));
    assert_eq!(results[1], Err(CallError::Overloaded));
}

#[test]
fn answer_is_a_cheap_pure_mix() {
    assert_eq!(Dependency::answer(12345), Dependency::answer(12345));
    assert_ne!(Dependency::answer(1), 1);
    assert_ne!(Dependency::answer(1), Dependency::answer(2));
}
