//! Every memory contestant passes its checks: exact payloads, every unit waiting, the OS's limits respected; and
//! the names of both scenarios' contestants are unique and follow their family.

use costs::memory::conformance;
use costs::memory::contestants::Contestant as Unit;
use costs::primitives::contestants::Contestant as Primitive;

#[test]
fn every_waiting_unit_passes_every_check() {
    for contestant in Unit::ALL {
        for check in conformance::all(contestant) {
            assert!(check.passed, "{}: {} — {}", contestant.info().name, check.name, check.detail);
        }
    }
}

#[test]
fn names_are_unique_and_follow_the_family() {
    let mut names: Vec<String> = Unit::ALL.iter().map(|c| c.info().name).collect();
    names.extend(Primitive::ALL.iter().map(|c| c.info().name));
    for (i, c) in Unit::ALL.iter().map(|c| c.info()).chain(Primitive::ALL.iter().map(|c| c.info())).enumerate() {
        assert!(c.name.starts_with(c.family.as_str()), "{}", c.name);
        assert!(!names[..i].contains(&c.name), "{} twice", c.name);
    }
}
