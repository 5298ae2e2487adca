//! Starting: a config that makes no sense is refused before any thread starts; a good one starts its named
//! timer threads, ready to time calls at once.

mod common;

use std::io::ErrorKind;
use std::time::Duration;

use dependency::{CapacityChange, Config, Dependency};

#[test]
fn a_bad_config_is_refused_with_invalid_input() {
    let bad = [
        Config { timer_threads: 0, ..Config::default() },
        Config { window: Duration::ZERO, ..Config::default() },
        Config { service: Duration::from_secs(200_000), ..Config::default() },
        Config {
            schedule: vec![CapacityChange { at_call: 9, capacity: 1 }, CapacityChange { at_call: 3, capacity: 2 }],
            ..Config::default()
        },
    ];
    for config in bad {
        let error = Dependency::start(config.clone()).expect_err("refused");
        assert_eq!(error.kind(), ErrorKind::InvalidInput, "{config:?}: {error}");
    }
}

#[test]
fn its_timer_threads_are_named_and_running_when_start_returns() {
    let dep = Dependency::start(Config { timer_threads: 2, ..common::config(10, 1) }).expect("start");
    let tids = dep.timer_thread_ids();
    assert_eq!(tids.len(), 2);
    for tid in tids {
        let name = std::fs::read_to_string(format!("/proc/self/task/{tid}/comm")).expect("thread is alive");
        assert!(name.trim().starts_with("dep-timer-"), "{name}");
    }
    assert_eq!(dep.capacity(), 10);
    assert_eq!(dep.config().service, Duration::from_millis(1));
    assert!(format!("{dep:?}").contains("Dependency"));
}
