//! Every conformance check for every chain contestant: one test per check, looping over the registry and
//! reporting every failure at once. No test looks at a clock except the checks' own hang watchdog.

use chain::chain::conformance::Chain;
use chain::ChainContestant;
use chain::{contestants, ChainConfig};
use measure::summary::Check;
use pipelines::conformance as kit;
use testkit::checks::assert_every_check_passes;

/// A registered contestant under a config, as the kit checks it.
type Checked = kit::Checked<Chain, dyn ChainContestant>;

/// Run `check` for every contestant under each of [`configs`]; fail listing every check that did not pass.
fn every_contestant_passes(check: impl Fn(&Checked) -> Vec<Check>) {
    let under =
        |config: ChainConfig| contestants().into_iter().map(move |c| (c.info().name, Checked::new(&c, &config)));
    assert_every_check_passes(configs().into_iter().flat_map(under), check);
}

/// The default sizing, and a cramped one (tiny channels, batches larger than a channel) where every stage
/// spends its time blocked.
fn configs() -> [ChainConfig; 2] {
    [ChainConfig::default(), ChainConfig { batch: 16, capacity: 4, messages: 16 }]
}

pipelines::one_test_per_check!(every_contestant_passes);

#[test]
fn the_checks_keep_their_names() {
    let names: Vec<String> = kit::all(&Checked::new(&contestants()[0], &ChainConfig::default()))
        .into_iter()
        .map(|check| check.name)
        .collect();
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
