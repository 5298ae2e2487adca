//! Stats and timeline add up: every issued call is completed, rejected, cancelled, in service or queued, at
//! any moment; the timeline's windows sum to the counters and cover the time since start.

mod common;

use std::time::{Duration, Instant};

use dependency::{Config, Dependency, Stats};

fn accounted(stats: &Stats) -> u64 {
    stats.completed + stats.rejected + stats.cancelled + stats.in_service as u64 + stats.queued as u64
}

#[test]
fn counters_add_up_during_and_after_a_run() {
    let config = Config {
        queue_limit: Some(5),
        jitter: Duration::from_millis(1),
        window: Duration::from_millis(20),
        ..common::config(4, 2)
    };
    // The dependency's clock starts somewhere between these two readings (starting its timer threads can take
    // a while on a busy machine), so each bound below is taken from the reading that makes it certain.
    let before_start = Instant::now();
    let dep = Dependency::start(config).expect("start");
    let after_start = Instant::now();
    let results: Vec<_> = std::thread::scope(|scope| {
        let watcher = scope.spawn(|| {
            for _ in 0..50 {
                let stats = dep.stats();
                assert_eq!(accounted(&stats), stats.issued, "{stats:?}");
                assert!(stats.in_service <= 4 && stats.queued <= 5);
                std::thread::sleep(Duration::from_millis(2));
            }
        });
        let callers: Vec<_> =
            (0..16).map(|_| scope.spawn(|| (0..25).map(|i| dep.call(i).wait()).collect::<Vec<_>>())).collect();
        let results = callers.into_iter().flat_map(|caller| caller.join().expect("caller")).collect();
        watcher.join().expect("watcher");
        results
    });
    let stats = dep.stats();
    let ok = results.iter().filter(|r| r.is_ok()).count() as u64;
    assert_eq!(stats.issued, 400);
    assert_eq!((stats.completed, stats.rejected), (ok, 400 - ok));
    assert_eq!(accounted(&stats), stats.issued);
    assert_eq!((stats.in_service, stats.queued, stats.over_capacity_starts), (0, 0, 0));
    assert!(stats.max_in_service <= 4 && stats.max_queued <= 5 && stats.max_outstanding <= 9);

    let before_timeline = Instant::now();
    let timeline = dep.timeline();
    let after_timeline = Instant::now();
    assert_eq!(timeline.window, Duration::from_millis(20));
    let windows = &timeline.windows;
    assert_eq!(windows.iter().map(|w| w.completed).sum::<u64>(), stats.completed);
    assert_eq!(windows.iter().map(|w| w.issued).sum::<u64>(), stats.issued);
    assert_eq!(windows.iter().map(|w| w.rejected).sum::<u64>(), stats.rejected);
    assert_eq!(windows.iter().map(|w| w.max_in_service).max(), Some(stats.max_in_service));
    assert_eq!(windows.iter().map(|w| w.max_queued).max(), Some(stats.max_queued));
    assert!(windows.iter().all(|w| w.capacity == 4));
    // The windows run from the dependency's start to the window holding the moment the timeline was taken.
    let covered = timeline.window * windows.len() as u32;
    let least = before_timeline.saturating_duration_since(after_start);
    let most = after_timeline.saturating_duration_since(before_start) + timeline.window;
    assert!(covered > least && covered <= most, "{} windows for {least:?} to {most:?}", windows.len());
}

#[test]
fn quiet_windows_carry_the_state() {
    // Call 0 takes a minute, far longer than the test: every window certainly shows it in service and call 1
    // queued, however long the machine keeps this thread waiting. Dropping the dependency resolves both.
    let dep =
        Dependency::start(Config { window: Duration::from_millis(10), ..common::config(1, 60_000) }).expect("start");
    let _in_service = dep.call(0);
    let _queued = dep.call(1);
    std::thread::sleep(Duration::from_millis(45));
    let timeline = dep.timeline();
    assert!(timeline.windows.len() >= 4);
    assert!(timeline.windows.iter().all(|w| (w.max_in_service, w.max_queued, w.capacity) == (1, 1, 1)));
}
