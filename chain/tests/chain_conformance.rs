//! Every conformance check for every chain contestant: one test per check, looping over the registry and
//! reporting every failure at once. No test looks at a clock except the checks' own hang watchdog.

use chain::chain::conformance::{checked, Checked};
use chain::{contestants, ChainConfig};
use measure::summary::Check;
use pipelines::conformance as kit;

/// Run `check` for every contestant under `config`; fail listing every check that did not pass.
fn every_contestant_passes(check: impl Fn(&Checked) -> Vec<Check>, config: ChainConfig) {
    let failures: Vec<String> = contestants()
        .iter()
        .flat_map(|c| check(&checked(c, &config)).into_iter().map(move |result| (c.info().name, result)))
        .filter(|(_, result)| result.failed())
        .map(|(name, result)| format!("{name}: {} — {}", result.name, result.detail))
        .collect();
    assert!(failures.is_empty(), "{} check(s) failed:\n{}", failures.len(), failures.join("\n"));
}

/// The default sizing, and a cramped one (tiny channels, batches larger than a channel) where every stage
/// spends its time blocked.
fn configs() -> [ChainConfig; 2] {
    [ChainConfig::default(), ChainConfig { batch: 16, capacity: 4, messages: 16 }]
}

#[test]
fn every_contestant_sums_exactly_like_the_reference() {
    for config in configs() {
        every_contestant_passes(|c| vec![kit::checksum(c)], config);
    }
}

#[test]
fn every_contestant_delivers_each_item_exactly_once() {
    for config in configs() {
        every_contestant_passes(|c| vec![kit::exactly_once(c)], config);
    }
}

#[test]
fn channel_contestants_hold_no_more_than_their_bound() {
    for config in configs() {
        every_contestant_passes(|c| vec![kit::bounded_outstanding(c)], config);
    }
}

#[test]
fn every_contestant_stops_early_and_leaves_nothing_running() {
    for config in configs() {
        every_contestant_passes(|c| vec![kit::early_stop(c)], config);
    }
}

#[test]
fn a_fault_at_the_first_middle_or_last_element_ends_every_contestant_with_it_and_a_clean_run_follows() {
    for config in configs() {
        every_contestant_passes(kit::faults, config);
    }
}

#[test]
fn every_contestant_stops_promptly_when_the_caller_cancels() {
    for config in configs() {
        every_contestant_passes(|c| vec![kit::caller_cancel(c)], config);
    }
}

#[test]
fn the_checks_keep_their_names() {
    let names: Vec<String> =
        kit::all(&checked(&contestants()[0], &ChainConfig::default())).into_iter().map(|check| check.name).collect();
    let expected = [
        "checksum",
        "exactly_once",
        "bounded_outstanding",
        "early_stop",
        "stage_error",
        "stage_panic",
        "clean_after_faults",
        "caller_cancel",
    ];
    assert_eq!(names, expected);
}
