//! The check every primitive passes before it is timed: a small run does every operation once, handing back the
//! sum of their numbers.

use measure::summary::Check;

use super::contestants::Primitive;

/// Operations of the check that runs before the loop.
const CHECK_OPS: u64 = 100;

/// The sum `0 + 1 + … + (ops − 1)`, wrapping.
pub fn expected_sum(ops: u64) -> u64 {
    (0..ops).fold(0u64, u64::wrapping_add)
}

/// A run of [`CHECK_OPS`] operations hands back the sum of their numbers.
pub fn check_small_run(primitive: &dyn Primitive) -> Check {
    let expected = expected_sum(CHECK_OPS);
    match primitive.run(CHECK_OPS) {
        Ok(sum) => Check::new(
            "every_operation_once",
            sum == expected,
            format!("{CHECK_OPS} operations handed back {sum}, expected {expected}"),
        ),
        Err(e) => Check::new("every_operation_once", false, format!("{CHECK_OPS} operations: {e}")),
    }
}
