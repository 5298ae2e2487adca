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
    // Call 0 takes a minute, far longer than the test: from the window it was issued in, every window shows it
    // in service, and from call 1's window, call 1 queued, however late this thread issued them. Dropping the
    // dependency resolves both.
    let dep =
        Dependency::start(Config { window: Duration::from_millis(10), ..common::config(1, 60_000) }).expect("start");
    let _in_service = dep.call(0);
    let _queued = dep.call(1);
    // The window each call was issued in: where the issues so far first reach `n`.
    let issued_by = |windows: &[dependency::Window], n: u64| {
        let mut so_far = 0;
        windows.iter().position(|w| {
            so_far += w.issued;
            so_far >= n
        })
    };
    // At least four quiet windows after both calls, however long the machine kept this thread waiting.
    let deadline = Instant::now() + Duration::from_secs(20);
    let timeline = loop {
        let timeline = dep.timeline();
        if issued_by(&timeline.windows, 2).is_some_and(|second| timeline.windows.len() >= second + 5) {
            break timeline;
        }
        assert!(Instant::now() < deadline, "the timeline did not reach four windows past the calls within 20 s");
        std::thread::sleep(Duration::from_millis(1));
    };
    let windows = &timeline.windows;
    let (first, second) = (issued_by(windows, 1).expect("call 0"), issued_by(windows, 2).expect("call 1"));
    assert!(windows.iter().all(|w| w.capacity == 1));
    assert!(windows[first..].iter().all(|w| w.max_in_service == 1), "{windows:?}");
    assert!(windows[second..].iter().all(|w| (w.max_in_service, w.max_queued) == (1, 1)), "{windows:?}");
    assert!(windows[second + 1..].iter().all(|w| (w.issued, w.completed) == (0, 0)), "quiet: {windows:?}");
}
