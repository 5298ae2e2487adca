//! Every conformance check for every chain contestant: one test per check, looping over the registry and
//! reporting every failure at once. No test looks at a clock except the checks' own hang watchdog.

use chain::chain::conformance::{checked, Checked};
use chain::{contestants, ChainConfig};
use measure::summary::Check;
use pipelines::conformance as kit;

/// Run `check` for every contestant under each of [`configs`]; fail listing every check that did not pass.
fn every_contestant_passes(check: impl Fn(&Checked) -> Vec<Check>) {
    for config in configs() {
        let failures: Vec<String> = contestants()
            .iter()
            .flat_map(|c| check(&checked(c, &config)).into_iter().map(move |result| (c.info().name, result)))
            .filter(|(_, result)| result.failed())
            .map(|(name, result)| format!("{name}: {} — {}", result.name, result.detail))
            .collect();
        assert!(failures.is_empty(), "{} check(s) failed:\n{}", failures.len(), failures.join("\n"));
    }
}

/// The default sizing, and a cramped one (tiny channels, batches larger than a channel) where every stage
/// spends its time blocked.
fn configs() -> [ChainConfig; 2] {
    [ChainConfig::default(), ChainConfig { batch: 16, capacity: 4, messages: 16 }]
}

/// One test per row: the test's name and the checks it runs for every contestant.
macro_rules! every_contestant {
    ($($test:ident: $check:expr;)*) => {
        $(
            #[test]
            fn $test() {
                every_contestant_passes($check);
            }
        )*
    };
}

every_contestant! {
    every_contestant_sums_exactly_like_the_reference: |c| vec![kit::checksum(c)];
    every_contestant_delivers_each_item_exactly_once: |c| vec![kit::exactly_once(c)];
    channel_contestants_hold_no_more_than_their_bound: |c| vec![kit::bounded_outstanding(c)];
    every_contestant_stops_early_and_leaves_nothing_running: |c| vec![kit::early_stop(c)];
    a_fault_at_the_first_middle_or_last_element_ends_every_contestant_with_it_and_a_clean_run_follows: kit::faults;
    every_contestant_stops_promptly_when_the_caller_cancels: |c| vec![kit::caller_cancel(c)];
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
