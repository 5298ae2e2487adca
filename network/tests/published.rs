//! The published figures the network reports compare with stand for like-for-like contestants, over the committed
//! run: the JVM study's stream library ran its own hand-written socket client, so the figure is compared with the
//! lab's hand-written client in a tokio task (`stream-tokio-tasks`), never with a different client library.

use measure::references::{self, compare};
use measure::summary::Summary;

/// The committed http summary.
fn committed_http() -> Summary {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../reports/http.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("decoding {path}: {e}"))
}

#[test]
fn the_stream_library_over_the_hand_written_client_stands_for_the_same_client_in_a_task() {
    let figure = references::figure("http", "Kotlin stream library").expect("the study's stream-library figure");
    assert_eq!(figure.baseline.as_deref(), Some("blocking socket client"));
    let baseline = figure.baseline_figure().expect("its baseline");
    assert_eq!(baseline.here.contestant.as_deref(), Some("blocking-std"));
    assert_eq!(figure.here.contestant.as_deref(), Some("stream-tokio-tasks"), "like for like: {figure:?}");
    assert!(!figure.cause.is_empty(), "a ratio that may differ carries its cause");

    let summary = committed_http();
    let row = compare(&summary).into_iter().find(|r| r.figure.subject == figure.subject).expect("a row");
    let names: Vec<&str> = row.here.values.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["`stream-tokio-tasks`"], "never `stream-hyper`, another client");
    let median = |name: &str| summary.median(name, "cpu_us_per_call").expect("a median");
    let expected = median("stream-tokio-tasks") / median("blocking-std");
    let (low, high) = row.here_ratio.expect("a ratio here");
    assert!((low - expected).abs() < 1e-9 && (high - expected).abs() < 1e-9, "{low}–{high} against {expected}");
}
