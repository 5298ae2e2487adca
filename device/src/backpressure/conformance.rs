//! The backpressure scenario's conformance checks: every shared check of [`crate::checks`] (the exact sum, the
//! bound, failed calls and a clean run after them, a run cut short, the caller's cancel, and for contestants
//! that start threads up front a refusal with the OS's reason), at the checks' own small sizes
//! ([`crate::checks::ITEMS`] 1 ms calls, bound [`crate::checks::LIMIT`]), not at the scenario's own items and
//! limit: a check proves the shape right, the trial's own checks hold every measured run to its answer and
//! bound (`bounded_outstanding`), and the report reads `small_run_bound` beside that.

use measure::record::TrialRequest;
use measure::summary::Check;

use crate::checks;
use crate::contestants::Contestant;

/// The checks `contestant` passes before the trial `request` names is measured; the caller's cancel lands at
/// the process's own seeded point ([`checks::trial_seed`]).
pub(crate) fn checks(contestant: Contestant, request: &TrialRequest) -> Vec<Check> {
    checks::all(contestant, checks::trial_seed(request))
}
