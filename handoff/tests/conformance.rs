//! Every conformance check for every handoff contestant: one test per check, looping over the registry and
//! reporting every failure at once, under the default sizing and under cramped ones (a channel of one item, and
//! batches larger than the channel). No test looks at a clock except the checks' own hang watchdog.

use std::sync::Arc;

use handoff::{conformance, contestants, HandoffConfig, HandoffContestant};
use measure::summary::Check;

type CheckFn = fn(&Arc<dyn HandoffContestant>, &HandoffConfig) -> Check;

/// Run `check` for every contestant under every config; fail listing every contestant that did not pass.
fn every_contestant_passes(check: CheckFn) {
    let mut failures = Vec::new();
    for config in configs() {
        for contestant in contestants() {
            let result = check(&contestant, &config);
            if result.failed() {
                let name = contestant.info().name;
                failures.push(format!("{name} at {config:?}: {} — {}", result.name, result.detail));
            }
        }
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
}

/// The default sizing; a channel of one item (the futures channel is then `channel(0)`); and batches of 16 in
/// a channel of 4 items, so batched channels hold one batch, more than their capacity.
fn configs() -> [HandoffConfig; 3] {
    [
        HandoffConfig::default(),
        HandoffConfig { capacity: 1, batch: 256, messages: 16 },
        HandoffConfig { capacity: 4, batch: 16, messages: 2 },
    ]
}

#[test]
fn every_contestant_sums_every_item_in_order() {
    every_contestant_passes(conformance::checksum);
}

#[test]
fn every_contestant_delivers_each_item_exactly_once() {
    every_contestant_passes(conformance::exactly_once);
}

#[test]
fn outstanding_work_stays_within_each_bound() {
    every_contestant_passes(conformance::bounded_outstanding);
}

#[test]
fn a_consumer_that_stops_early_stops_the_producer_and_leaves_nothing_running() {
    every_contestant_passes(conformance::early_stop);
}

#[test]
fn a_producer_error_reaches_the_consumer_as_that_error() {
    every_contestant_passes(conformance::producer_error);
}

#[test]
fn a_producer_panic_ends_the_run_with_an_error_not_a_short_sum() {
    every_contestant_passes(conformance::producer_panic);
}

#[test]
fn faults_at_the_first_middle_and_last_item_end_the_run_with_them_and_a_clean_run_follows() {
    let mut failures = Vec::new();
    for config in configs() {
        for contestant in contestants() {
            for result in conformance::faults(&contestant, &config).into_iter().filter(Check::failed) {
                let name = contestant.info().name;
                failures.push(format!("{name} at {config:?}: {} — {}", result.name, result.detail));
            }
        }
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_contestant_stops_promptly_when_the_caller_cancels() {
    every_contestant_passes(conformance::caller_cancel);
}
