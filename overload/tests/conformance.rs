//! Every overload contestant passes every conformance check: each call once with the right answer through a
//! capacity drop, the dependency within its capacity, the gate within its limit, rejections counted, and the
//! limit following latency the same way in both families.

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

#[test]
fn every_contestant_is_listed_once() {
    let names: Vec<String> = Contestant::all().iter().map(Contestant::name).collect();
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "{names:?}");
    assert_eq!(names.len(), 10);
}

#[test]
fn stream_fixed_conforms() {
    assert_passes("stream-fixed");
}

#[test]
fn stream_aimd_conforms() {
    assert_passes("stream-aimd");
}

#[test]
fn stream_gradient2_conforms() {
    assert_passes("stream-gradient2");
}

#[test]
fn stream_vegas_conforms() {
    assert_passes("stream-vegas");
}

#[test]
fn stream_unbounded_conforms() {
    assert_passes("stream-unbounded");
}

#[test]
fn blocking_fixed_conforms() {
    assert_passes("blocking-fixed");
}

#[test]
fn blocking_aimd_conforms() {
    assert_passes("blocking-aimd");
}

#[test]
fn blocking_gradient2_conforms() {
    assert_passes("blocking-gradient2");
}

#[test]
fn blocking_vegas_conforms() {
    assert_passes("blocking-vegas");
}

#[test]
fn blocking_unbounded_conforms() {
    assert_passes("blocking-unbounded");
}
