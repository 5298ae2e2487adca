//! The standalone program (`baseline-loop-standalone`, role `reference`): `baseline-loop` as the smallest program
//! a person writes to time it by hand (`standalone loop` of the `standalone` crate), each trial a fresh process of
//! the `standalone` binary instead of the lab's trial process: no trial protocol, no sampler, no counting allocator,
//! no harness in it. It runs in the same rotation as the lab's trials, so "lab ÷ standalone" calibrates the lab's
//! trial process on one thread doing the chain's work.
//!
//! The lab never runs it in its own process: [`external`] gives the program and its arguments for a trial (the
//! trial's `items` and `work`), and the lab's executor turns each line the program prints into a timed iteration.
//! The program checks every iteration itself (the kept values' wrapping sum against a reference restated
//! apart from its loop; it exits non-zero otherwise); the conformance checks that need a meter, a fault or a cancel
//! are not applicable to it ([`checks`]).

use measure::external::ExternalProgram;
use measure::record::TrialRequest;
use measure::scenario::TrialError;
use measure::summary::{Check, ContestantInfo, Family, Role};
use pipelines::conformance::{program_checks, standalone_program};
use standalone::{Args, Program};

use crate::chain::conformance::Chain;

/// The lab contestant the program calibrates.
const LAB: &str = "baseline-loop";

/// The program's name in the registry.
const NAME: &str = "baseline-loop-standalone";

/// The standalone program as the registry lists it, after the lab's own contestants.
pub(crate) fn info() -> ContestantInfo {
    ContestantInfo::new(
        NAME,
        Family::Baseline,
        "the standalone program of `baseline-loop`, `standalone loop` run as a process of its own with no lab code \
         in it: a plain `for` loop over `0..items` applying map1 (with `work` mixing rounds), the even filter and \
         map2 inline and summing with wrapping_add on the main thread, timed with `Instant` and the process's CPU \
         clock (calibration of the lab's trial process)",
    )
    .with_role(Role::Reference)
}

/// The lab contestant beside its standalone program: `(lab, standalone)` names.
pub(crate) fn pairs() -> Vec<(String, String)> {
    vec![(LAB.to_string(), NAME.to_string())]
}

/// The program that runs `request`'s trial, when its contestant is the standalone program: the trial's `items` at
/// its `work`, the warm-ups and measured iterations one after another.
pub(crate) fn external(request: &TrialRequest) -> Result<Option<ExternalProgram>, TrialError> {
    if request.contestant != NAME {
        return Ok(None);
    }
    let items = request.param("items")?;
    let work = u32::try_from(request.param("work")?)
        .map_err(|_| TrialError::BadParam("`work` does not fit in u32".to_string()))?;
    let capacity = request.param_usize("capacity")?;
    let args = Args { program: Program::Loop, items, capacity, iterations: 0, work };
    Ok(Some(standalone_program(args, request, checks(items))))
}

/// What the standalone program's clean run reports: the checks it makes itself on every iteration (passed), and
/// every other conformance check of a chain contestant, which it cannot be asked (not applicable).
fn checks(items: u64) -> Vec<Check> {
    let own = "checked by the program itself on every iteration against a reference restated apart from its loop \
               (it exits non-zero on a wrong one)";
    let checksum = format!("the wrapping sum of the values kept from {items} items, {own}");
    program_checks::<Chain>(&[("checksum", checksum)], |check| match check {
        "exactly_once" => {
            "a standalone loop sums without counting, as `baseline-loop` does: its sum is the check it makes"
        }
        "bounded_outstanding" => "a standalone loop hands nothing off: there is nothing to bound",
        "early_stop" => {
            "a standalone program always sums every value, so how far its source runs after an early stop is not \
             counted"
        }
        "caller_cancel" => "a standalone program has no cancellable consumer: it sums every value",
        _ => "a standalone program has no fault injection: its stages are inline arithmetic",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(contestant: &str) -> TrialRequest {
        let params = [("items", 1_000_000), ("work", 64), ("batch", 256), ("capacity", 1024), ("messages", 16)];
        testkit::fixture::trial_request("chain", contestant, "work_64", &params)
    }

    #[test]
    fn the_standalone_trial_asks_the_binary_for_the_loop_at_the_trial_s_work() {
        let program = external(&request(NAME)).ok().flatten().expect("external");
        assert_eq!((program.program.as_str(), program.items), ("standalone", 1_000_000));
        let args = Args::parse(program.args).expect("the binary reads what the lab writes");
        assert_eq!((args.program, args.items, args.iterations, args.work), (Program::Loop, 1_000_000, 4, 64));
    }

    #[test]
    fn the_lab_s_own_contestants_run_in_the_lab() {
        assert_eq!(external(&request(LAB)).ok(), Some(None));
    }
}
