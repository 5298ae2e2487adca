//! `lab advise` with a bad shape: one clear line on stderr, exit status 2, and nothing written.
#![allow(clippy::unwrap_used)]

mod common;

use common::lab;
use predicates::str::contains;

fn assert_bad_shape(args: &[&str], message: &str) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut cmd = lab();
    cmd.arg("advise").args(args).arg("--out").arg(&out);
    cmd.assert().code(2).stderr(contains(message));
    assert!(!out.exists(), "`lab advise {}` wrote {}", args.join(" "), out.display());
}

#[test]
fn zero_or_negative_sizes_are_refused() {
    assert_bad_shape(&["--items", "0"], "--items must be at least 1, got 0");
    assert_bad_shape(&["--items", "-5"], "--items must be at least 1, got -5");
    assert_bad_shape(&["--cpu-us-per-item", "0"], "--cpu-us-per-item must be above 0 µs, got 0");
    assert_bad_shape(&["--cpu-us-per-item", "-2.5"], "--cpu-us-per-item must be above 0 µs, got -2.5");
    assert_bad_shape(&["--io-calls-per-item", "1", "--io-latency-ms", "0"], "--io-latency-ms must be at least 1");
    assert_bad_shape(&["--io-calls-per-item", "1", "--in-flight", "-1"], "--in-flight must be at least 1");
    assert_bad_shape(&["--io-calls-per-item", "-1"], "--io-calls-per-item must be 0 or more");
    assert_bad_shape(&["--cores", "0"], "--cores must be at least 1");
    assert_bad_shape(&["--budget", "0"], "--budget must be above 0 seconds");
    assert_bad_shape(&["--items", "ten"], "`ten` is not a whole number");
}

#[test]
fn in_flight_above_what_the_os_allows_names_the_limit() {
    // More threads than any kernel's pid_max allows (4,194,304 at most).
    assert_bad_shape(
        &["--io-calls-per-item", "1", "--io-latency-ms", "1", "--in-flight", "50000000"],
        "--in-flight 50000000 is above what this machine allows",
    );
    assert_bad_shape(&["--io-calls-per-item", "1", "--io-latency-ms", "1", "--in-flight", "50000000"], "kernel.");
}

#[test]
fn more_cores_than_this_process_may_use_are_refused() {
    assert_bad_shape(&["--cores", "100000"], "--cores 100000: this process may run on");
}

#[test]
fn a_budget_too_short_says_what_fits() {
    assert_bad_shape(&["--budget", "1"], "the budget of 1 s is too short");
    assert_bad_shape(&["--budget", "1"], "What fits: --budget");
}

#[test]
fn inconsistent_flags_are_refused() {
    assert_bad_shape(&["--dependency-loses-capacity"], "--dependency-loses-capacity needs calls to a dependency");
    assert_bad_shape(
        &["--io-calls-per-item", "1", "--in-flight", "100", "--dependency-loses-capacity", "--capacity-after", "100"],
        "is not a loss",
    );
    assert_bad_shape(&["--items", "5", "--items-per-second", "5"], "not both");
}
