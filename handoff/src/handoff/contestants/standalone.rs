//! The standalone programs (`*-standalone`, role `reference`): `blocking-crossbeam`, `stream-flume` and
//! `stream-tokio` as the smallest programs a person writes to time each pair by hand (the `standalone` crate), each
//! trial a fresh process of the `standalone` binary instead of the lab's trial process: no trial protocol, no
//! sampler, no counting allocator, no harness in it. They run in the same rotation as the lab's trials, so "lab ÷
//! standalone" calibrates the lab's trial process itself, where the bare pairs (`bare`) calibrate the contestants'
//! code inside it.
//!
//! The lab never runs them in its own process: [`external`] gives the program and its arguments for a trial, and the
//! lab's executor turns each line the program prints into a timed iteration. The program checks every iteration
//! itself (every item, in order, summing to the reference; it exits non-zero otherwise); the conformance checks
//! that need a meter, a fault or a cancel are not applicable to it ([`checks`]).
//!
//! **What is left between them, measured (2026-12-07, 2-vCPU AMD EPYC, `79736da`).** With both processes pinned
//! to one CPU (`taskset -c 0`), a million items at capacity 4096 take 15.2–15.7 ms in
//! `standalone crossbeam` and 17.0–18.0 ms in the lab's `blocking-crossbeam` (17.0–17.7 in its bare pair): the
//! same context switches (`perf stat`: 39,071 against 39,142 for 80 million items), 2 ns more user time per item.
//! `perf record` shows why: in the standalone program LLVM inlines crossbeam's `Sender::send` and
//! `Receiver::recv` into its one loop each, and in the lab binary, where the same instantiations are called from
//! more than one place (timed, accounting and conformance runs), it calls them. Given one more call site of the
//! same two methods, the standalone program ran 18.6–20.0 ms, the lab's figure. That is code generation, not the
//! trial process, and most programs that use a channel call it from more than one place; the standalone programs
//! stay the smallest programs, not tuned toward the lab. It shows only where the pair takes turns on one CPU (at
//! capacity 4096); at 256, where wake-ups dominate, the lab's pair runs at 0.91× its program.

use measure::external::ExternalProgram;
use measure::record::TrialRequest;
use measure::scenario::TrialError;
use measure::summary::{Check, ContestantInfo, Family, Role};
use pipelines::conformance::{program_checks, standalone_program};
use standalone::{Args, Program};

use crate::handoff::conformance::Handoff;
use crate::handoff::items_at;

/// Suffix of every standalone program's name.
const SUFFIX: &str = "-standalone";

/// Each standalone program beside the lab contestant it calibrates, with what it does, in listing order.
const PAIRS: [(Program, &str, &str); 3] = [
    (
        Program::Crossbeam,
        "blocking-crossbeam",
        "a producer thread sends `0..items` as `u64` into `crossbeam_channel::bounded(capacity)` and the main thread \
         receives",
    ),
    (
        Program::FlumeAsync,
        "stream-flume",
        "on a multi-thread tokio runtime (default workers, built once), a producer task `send_async`s `0..items` as \
         `u64` into `flume::bounded(capacity)` and a consumer task `recv_async`s",
    ),
    (
        Program::TokioMpsc,
        "stream-tokio",
        "on a multi-thread tokio runtime (default workers, built once), a producer task `send`s `0..items` as `u64` \
         into `tokio::sync::mpsc::channel(capacity)` and a consumer task `recv`s",
    ),
];

/// Every standalone program as the registry lists it, after the lab's own contestants.
pub(crate) fn infos() -> Vec<ContestantInfo> {
    PAIRS
        .iter()
        .map(|&(program, lab, what)| {
            let family = if program.tasks() { Family::Stream } else { Family::Blocking };
            let description = format!(
                "the standalone program of `{lab}`, `standalone {}` run as a process of its own with no lab code in \
                 it: {what}, summing and checking order, timed with `Instant` and the process's CPU clock \
                 (calibration of the lab's trial process)",
                program.name()
            );
            ContestantInfo::new(format!("{lab}{SUFFIX}"), family, description).with_role(Role::Reference)
        })
        .collect()
}

/// Each lab contestant beside its standalone program: `(lab, standalone)` names.
pub(crate) fn pairs() -> Vec<(String, String)> {
    PAIRS.iter().map(|&(_, lab, _)| (lab.to_string(), format!("{lab}{SUFFIX}"))).collect()
}

/// The program that runs `request`'s trial, when its contestant is a standalone program: `items` items per
/// iteration as every per-item contestant hands off at the trial's capacity ([`items_at`]), the warm-ups and
/// measured iterations one after another.
pub(crate) fn external(request: &TrialRequest) -> Result<Option<ExternalProgram>, TrialError> {
    let Some(&(program, _, _)) = PAIRS.iter().find(|(_, lab, _)| request.contestant == format!("{lab}{SUFFIX}")) else {
        return Ok(None);
    };
    let capacity = request.param_usize("capacity")?;
    let items = items_at(request.param("items")?, request.param("small_items")?, capacity as u64, Some(1));
    let args = Args { program, items, capacity, iterations: 0, work: 0 };
    Ok(Some(standalone_program(args, request, checks(items))))
}

/// What a standalone program's clean run reports: the checks it makes itself on every iteration (passed), and
/// every other conformance check of a hand-off contestant, which it cannot be asked (not applicable).
fn checks(items: u64) -> Vec<Check> {
    let own = "checked by the program itself on every iteration (it exits non-zero on a wrong one)";
    let made = [
        ("checksum", format!("{items} items summing to items·(items−1)/2, {own}")),
        ("exactly_once", format!("item i arriving i-th, every one of the {items}, {own}")),
    ];
    program_checks::<Handoff>(&made, |check| match check {
        "bounded_outstanding" => "a standalone program carries no meter, so there is no outstanding count to bound",
        "early_stop" => {
            "a standalone program always receives every item, so how far its producer runs after an early stop is \
             not counted"
        }
        "caller_cancel" => "a standalone program has no cancellable consumer: it sums what it receives",
        _ => "a standalone program has no fault injection: its producer is a plain `for` loop",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(contestant: &str, capacity: u64) -> TrialRequest {
        let params =
            [("items", 250_000), ("small_items", 10_000), ("capacity", capacity), ("batch", 256), ("messages", 16)];
        testkit::fixture::trial_request("handoff", contestant, &format!("capacity_{capacity}"), &params)
    }

    #[test]
    fn a_standalone_trial_asks_the_binary_for_the_pair_at_the_trial_s_sizes() {
        let program = external(&request("stream-flume-standalone", 256)).ok().flatten().expect("external");
        assert_eq!(program.program, "standalone");
        let args = Args::parse(program.args.clone()).expect("the binary reads what the lab writes");
        assert_eq!(args, Args { program: Program::FlumeAsync, items: 250_000, capacity: 256, iterations: 4, work: 0 });
        assert_eq!(program.items, 250_000);
        // Below capacity 256 every per-item hand-off runs `small_items`.
        let small = external(&request("blocking-crossbeam-standalone", 16)).ok().flatten().expect("external");
        assert_eq!((small.items, Args::parse(small.args).map(|a| a.items)), (10_000, Ok(10_000)));
    }

    #[test]
    fn the_lab_s_own_contestants_run_in_the_lab() {
        for name in ["blocking-crossbeam", "stream-tokio-bare", "baseline-loop"] {
            assert_eq!(external(&request(name, 256)).ok(), Some(None), "{name}");
        }
    }

    #[test]
    fn every_standalone_program_is_a_reference_beside_a_registered_candidate() {
        for ((lab, name), info) in pairs().into_iter().zip(infos()) {
            assert_eq!(info.name, name);
            assert_eq!(info.role, Role::Reference, "{name}");
            assert!(name.starts_with(info.family.as_str()), "{name}");
            let twin = crate::handoff::contestants::find(&lab).map(|c| c.info().role);
            assert_eq!(twin, Some(Role::Candidate), "{lab}");
        }
    }
}
