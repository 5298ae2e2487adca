//! Injected failures (`Config::fail_inputs`, for conformance checks only): a listed call fails at once with
//! `Injected`, is counted once, and takes no slot; every other call is served as usual.

mod common;

use dependency::{CallError, Config, Dependency};

#[test]
fn a_listed_call_fails_at_once_and_the_others_are_served() {
    let dep = Dependency::start(Config { fail_inputs: vec![0, 5, 9], ..common::config(2, 200) }).expect("start");
    let completions: Vec<_> = (0..10).map(|input| dep.call(input)).collect();
    assert!(completions[0].is_complete() && completions[5].is_complete() && completions[9].is_complete());
    let results: Vec<_> = completions.into_iter().map(|c| c.wait()).collect();
    for (input, result) in results.iter().enumerate() {
        match input {
            0 | 5 | 9 => assert_eq!(*result, Err(CallError::Injected), "call {input}"),
            _ => assert_eq!(result.map(|r| r.value), Ok(Dependency::answer(input as u64)), "call {input}"),
        }
    }
    let stats = dep.stats();
    assert_eq!((stats.issued, stats.injected, stats.completed, stats.rejected), (10, 3, 7, 0));
    assert!(stats.max_in_service <= 2);
}

#[test]
fn by_default_nothing_is_injected() {
    let dep = Dependency::start(common::config(4, 100)).expect("start");
    let completions: Vec<_> = (0..20).map(|input| dep.call(input)).collect();
    assert!(completions.into_iter().all(|c| c.wait().is_ok()));
    assert_eq!(dep.stats().injected, 0);
}
