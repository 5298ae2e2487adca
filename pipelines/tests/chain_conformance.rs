//! Every conformance check for every chain contestant: one test per check, looping over the registry and
//! reporting every failure at once. No test looks at a clock except the checks' own hang watchdog.

use std::sync::Arc;

use measure::summary::Check;
use pipelines::chain::{conformance, contestants, ChainConfig, ChainContestant};

type CheckFn = fn(&Arc<dyn ChainContestant>, &ChainConfig) -> Check;

/// Run `check` for every contestant under `config`; fail listing every contestant that did not pass.
fn every_contestant_passes(check: CheckFn, config: ChainConfig) {
    let failures: Vec<String> = contestants()
        .iter()
        .map(|c| (c.info().name, check(c, &config)))
        .filter(|(_, result)| result.failed())
        .map(|(name, result)| format!("{name}: {} — {}", result.name, result.detail))
        .collect();
    assert!(failures.is_empty(), "{} contestant(s) failed:\n{}", failures.len(), failures.join("\n"));
}

/// The default sizing, and a cramped one (tiny channels, batches larger than a channel) where every stage
/// spends its time blocked.
fn configs() -> [ChainConfig; 2] {
    [ChainConfig::default(), ChainConfig { batch: 16, capacity: 4, messages: 16 }]
}

#[test]
fn every_contestant_sums_exactly_like_the_reference() {
    for config in configs() {
        every_contestant_passes(conformance::checksum, config);
    }
}

#[test]
fn every_contestant_delivers_each_item_exactly_once() {
    for config in configs() {
        every_contestant_passes(conformance::exactly_once, config);
    }
}

#[test]
fn channel_contestants_hold_no_more_than_their_bound() {
    for config in configs() {
        every_contestant_passes(conformance::bounded_outstanding, config);
    }
}

#[test]
fn every_contestant_stops_early_and_leaves_nothing_running() {
    for config in configs() {
        every_contestant_passes(conformance::early_stop, config);
    }
}

/// Run [`conformance::faults`] for every contestant under `config`; fail listing every failed check.
fn every_contestant_passes_faults(config: ChainConfig) {
    let failures: Vec<String> = contestants()
        .iter()
        .flat_map(|c| conformance::faults(c, &config).into_iter().map(move |check| (c.info().name, check)))
        .filter(|(_, result)| result.failed())
        .map(|(name, result)| format!("{name}: {} — {}", result.name, result.detail))
        .collect();
    assert!(failures.is_empty(), "{} check(s) failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn a_fault_at_the_first_middle_or_last_element_ends_every_contestant_with_it_and_a_clean_run_follows() {
    for config in configs() {
        every_contestant_passes_faults(config);
    }
}

#[test]
fn a_failing_stage_ends_every_contestant_with_its_error() {
    every_contestant_passes(conformance::stage_error, ChainConfig::default());
}

#[test]
fn a_panicking_stage_is_reported_not_propagated() {
    every_contestant_passes(conformance::stage_panic, ChainConfig::default());
}

#[test]
fn every_contestant_stops_promptly_when_the_caller_cancels() {
    for config in configs() {
        every_contestant_passes(conformance::caller_cancel, config);
    }
}
