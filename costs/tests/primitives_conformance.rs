//! Every primitive passes its check: every operation done once.

use costs::primitives::conformance::check_small_run;
use costs::primitives::contestants::Contestant as Primitive;

#[test]
fn every_primitive_does_every_operation_once() {
    for contestant in Primitive::ALL {
        let name = contestant.info().name;
        let primitive = contestant.prepare().unwrap_or_else(|e| panic!("{name}: {e}"));
        let check = check_small_run(primitive.as_ref());
        assert!(check.passed, "{name}: {}", check.detail);
    }
}
