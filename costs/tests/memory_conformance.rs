//! Every contestant of both scenarios passes its checks: exact payloads, every unit waiting, the OS's limits
//! respected (memory); every operation done once (primitives).

use costs::memory::conformance;
use costs::memory::contestants::Contestant as Unit;
use costs::primitives::contestants::Contestant as Primitive;
use costs::primitives::trial::check_small_run;

#[test]
fn every_waiting_unit_passes_every_check() {
    for contestant in Unit::ALL {
        for check in conformance::all(contestant) {
            assert!(check.passed, "{}: {} — {}", contestant.info().name, check.name, check.detail);
        }
    }
}

#[test]
fn every_primitive_does_every_operation_once() {
    for contestant in Primitive::ALL {
        let name = contestant.info().name;
        let primitive = contestant.prepare().unwrap_or_else(|e| panic!("{name}: {e}"));
        let check = check_small_run(primitive.as_ref());
        assert!(check.passed, "{name}: {}", check.detail);
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
