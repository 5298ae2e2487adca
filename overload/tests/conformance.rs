//! Every overload contestant passes every conformance check: each call once with the right answer through a
//! capacity drop, the dependency within its capacity, the gate within its limit, rejections counted, and the
//! limit following latency the same way in every family.

use overload::conformance;
use overload::contestants::Contestant;

fn assert_passes(name: &str) {
    let contestant = Contestant::find(name).unwrap_or_else(|| panic!("no contestant {name}"));
    let checks = conformance::all(contestant);
    assert!(!checks.is_empty());
    let failed: Vec<String> =
        checks.iter().filter(|c| c.failed()).map(|c| format!("{}: {}", c.name, c.detail)).collect();
    assert!(failed.is_empty(), "{name} failed: {failed:#?}");
}

/// Every contestant's name, as the tests below spell them: a new contestant must be added here too.
const NAMES: [&str; 23] = [
    "stream-fixed",
    "stream-aimd",
    "stream-aimd-latency-1.5x",
    "stream-aimd-latency-2x",
    "stream-aimd-latency-4x",
    "stream-gradient2",
    "stream-vegas",
    "blocking-fixed",
    "blocking-aimd",
    "blocking-aimd-latency-1.5x",
    "blocking-aimd-latency-2x",
    "blocking-aimd-latency-4x",
    "blocking-gradient2",
    "blocking-vegas",
    "coroutine-fixed",
    "coroutine-aimd",
    "coroutine-aimd-latency-1.5x",
    "coroutine-aimd-latency-2x",
    "coroutine-aimd-latency-4x",
    "coroutine-gradient2",
    "coroutine-vegas",
    "stream-unbounded",
    "blocking-unbounded",
];

#[test]
fn every_contestant_is_listed_once_and_tested_below() {
    let names: Vec<String> = Contestant::all().iter().map(Contestant::name).collect();
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "{names:?}");
    assert_eq!(names, NAMES, "the contestants and the tests below have drifted apart");
}

/// One test per contestant, so a failure names it and they run in parallel.
macro_rules! conforms {
    ($($test:ident => $name:literal,)*) => {
        $(
            #[test]
            fn $test() {
                assert_passes($name);
            }
        )*
    };
}

conforms! {
    stream_fixed_conforms => "stream-fixed",
    stream_aimd_conforms => "stream-aimd",
    stream_aimd_latency_1_5x_conforms => "stream-aimd-latency-1.5x",
    stream_aimd_latency_2x_conforms => "stream-aimd-latency-2x",
    stream_aimd_latency_4x_conforms => "stream-aimd-latency-4x",
    stream_gradient2_conforms => "stream-gradient2",
    stream_vegas_conforms => "stream-vegas",
    blocking_fixed_conforms => "blocking-fixed",
    blocking_aimd_conforms => "blocking-aimd",
    blocking_aimd_latency_1_5x_conforms => "blocking-aimd-latency-1.5x",
    blocking_aimd_latency_2x_conforms => "blocking-aimd-latency-2x",
    blocking_aimd_latency_4x_conforms => "blocking-aimd-latency-4x",
    blocking_gradient2_conforms => "blocking-gradient2",
    blocking_vegas_conforms => "blocking-vegas",
    coroutine_fixed_conforms => "coroutine-fixed",
    coroutine_aimd_conforms => "coroutine-aimd",
    coroutine_aimd_latency_1_5x_conforms => "coroutine-aimd-latency-1.5x",
    coroutine_aimd_latency_2x_conforms => "coroutine-aimd-latency-2x",
    coroutine_aimd_latency_4x_conforms => "coroutine-aimd-latency-4x",
    coroutine_gradient2_conforms => "coroutine-gradient2",
    coroutine_vegas_conforms => "coroutine-vegas",
    stream_unbounded_conforms => "stream-unbounded",
    blocking_unbounded_conforms => "blocking-unbounded",
}
