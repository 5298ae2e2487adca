//! Every conformance check for every handoff contestant: one test per check, looping over the registry and
//! reporting every failure at once, under the default sizing and under cramped ones (a channel of one item, and
//! batches larger than the channel). No test looks at a clock except the checks' own hang watchdog.

mod common;

use common::configs;
use handoff::conformance::Handoff;
use handoff::HandoffContestant;
use handoff::{contestants, HandoffConfig};
use measure::summary::Check;
use pipelines::conformance as kit;
use testkit::checks::assert_every_check_passes;

/// A registered contestant under a config, as the kit checks it.
type Checked = kit::Checked<Handoff, dyn HandoffContestant>;

/// Run `check` for every contestant under every config; fail listing every check that did not pass.
fn every_contestant_passes(check: impl Fn(&Checked) -> Vec<Check>) {
    let under = |config: HandoffConfig| {
        contestants().into_iter().map(move |c| (format!("{} at {config:?}", c.info().name), Checked::new(&c, &config)))
    };
    assert_every_check_passes(configs().into_iter().flat_map(under), check);
}

pipelines::one_test_per_check!(every_contestant_passes);

/// The floor contestant, `blocking-rtrb` (role `reference`), under every config: every check, none skipped.
fn the_ring_passes_every_check() -> Vec<String> {
    let ring = handoff::find("blocking-rtrb").expect("blocking-rtrb is registered");
    let mut failures = Vec::new();
    for config in configs() {
        for check in handoff::conformance::all(&ring, &config) {
            if !check.passed {
                failures.push(format!("at {config:?}: {} — {}", check.name, check.detail));
            }
        }
    }
    failures
}

#[test]
fn blocking_rtrb_passes_every_check_that_the_other_per_item_contestants_pass() {
    let failures = the_ring_passes_every_check();
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn blocking_rtrb_passes_every_check_with_both_ends_on_one_cpu() {
    // Pinned before it spawns anything, so the producer threads inherit the one CPU: an end that only spun would
    // hold the CPU its peer needs until preempted; the ring's ends yield instead.
    let pinned = std::thread::spawn(|| {
        let cpus = std::thread::available_parallelism().map_or(1, usize::from);
        (0..cpus.max(1) * 64).find(|&cpu| pipelines::floor::pin(cpu).is_ok()).map(|_| the_ring_passes_every_check())
    });
    let failures = pinned.join().expect("the pinned thread ran").expect("pinned to one allowed CPU");
    assert!(failures.is_empty(), "{} failure(s) on one CPU:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn the_checks_keep_their_names() {
    let contestant = handoff::find("blocking-crossbeam").expect("blocking-crossbeam");
    let names: Vec<String> =
        kit::all(&Checked::new(&contestant, &HandoffConfig::default())).into_iter().map(|check| check.name).collect();
    let expected = [
        "checksum",
        "exactly_once",
        "bounded_outstanding",
        "early_stop",
        "producer_error",
        "producer_panic",
        "clean_after_faults",
        "caller_cancel",
    ];
    assert_eq!(names, expected);
}
