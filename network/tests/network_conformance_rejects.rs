//! Every new check of the network conformance can fail: each deliberately broken contestant below (a real
//! contestant wrapped to misbehave in one way) is rejected by the check written for that misbehaviour: the
//! caller's cancel ignored, a thread left running, an answer counted twice, over-admission while a failure
//! propagates (`bound_under_failure` and the `fault_at_*` checks), a failed call swallowed into a short tally
//! passed off as success (`fault_at_*`), and a contestant left broken by a failed call (`clean_after_failures`).

mod common;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use measure::meter::{GaugeMeter, Meter};
use network::cancel::Cancel;
use network::checks::{self as conformance, FaultAt, Port, Runner, Size};
use network::error::NetworkError;
use network::http::contestants::HttpContestant;
use network::outcome::Outcome;
use network::tcp::contestants::TcpContestant;
use network::tcp_exchange::TcpJob;

/// How a broken contestant misbehaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Breakage {
    /// It never checks the caller's cancellation: the run goes on to its last call.
    IgnoresCancel,
    /// When cancelled, it leaves a worker thread running after it returned.
    LeavesThreadOnCancel,
    /// When cancelled, it answers a call it had already answered again (a retry of a call it thought lost).
    AnswersTwiceOnCancel,
    /// While a failure propagates, it lets in more than its bound (a slot freed twice, say).
    OverAdmitsOnFailure,
    /// It drops its failed requests from the count and reports the short tally as a complete success.
    SwallowsErrors,
    /// A failed request leaves it broken: every later run fails (its connections lost and never re-established).
    LeftBrokenByFailure,
}

/// Run the real `contestant` on `job`, misbehaving as `breakage` says.
fn misbehave(
    breakage: Breakage,
    bound: u64,
    meter: &GaugeMeter,
    cancel: &Cancel,
    broken: &AtomicBool,
    addr: SocketAddr,
    run: impl FnOnce(Cancel) -> Result<Outcome, NetworkError>,
) -> Result<Outcome, NetworkError> {
    if breakage == Breakage::LeftBrokenByFailure && broken.load(Ordering::Relaxed) {
        return Err(NetworkError::Closed { addr });
    }
    let heard = if breakage == Breakage::IgnoresCancel { cancel.deaf() } else { cancel.clone() };
    let mut out = run(heard);
    match (breakage, &mut out) {
        (Breakage::LeavesThreadOnCancel, Ok(_)) if cancel.is_raised() => {
            let _ = std::thread::Builder::new()
                .name("left-behind".to_string())
                .spawn(|| std::thread::sleep(conformance::SETTLE + Duration::from_secs(2)));
        }
        (Breakage::AnswersTwiceOnCancel, Ok(outcome)) if cancel.is_raised() => {
            outcome.tally.add(0);
            cancel.answered(0);
        }
        (Breakage::OverAdmitsOnFailure, Ok(outcome)) if outcome.errors > 0 => {
            meter.admit(bound + 1);
            meter.leave(bound + 1);
        }
        (Breakage::SwallowsErrors, Ok(outcome)) if outcome.errors + outcome.wrong > 0 => {
            outcome.requested = outcome.tally.count;
            (outcome.errors, outcome.wrong, outcome.first_error) = (0, 0, None);
        }
        (Breakage::LeftBrokenByFailure, Ok(outcome)) if outcome.errors + outcome.wrong > 0 => {
            broken.store(true, Ordering::Relaxed);
        }
        _ => {}
    }
    out
}

/// `runner`'s contestant, broken as `breakage` says.
fn broken(runner: Runner, breakage: Breakage) -> Runner {
    let (bound, run, broken) = (runner.bound, Arc::clone(&runner.run), AtomicBool::new(false));
    let misbehaving = move |addr, size, meter: GaugeMeter, cancel: Cancel| {
        misbehave(breakage, bound, &meter, &cancel, &broken, addr, |heard| run(addr, size, meter.clone(), heard))
    };
    Runner { run: Arc::new(misbehaving), ..runner }
}

/// The http contestant `contestant`, broken as `breakage` says, with the conformance sizes.
fn broken_http(contestant: HttpContestant, breakage: Breakage) -> Runner {
    broken(network::http::conformance::runner(contestant), breakage)
}

/// The tcp contestant `contestant`, broken as `breakage` says; its long run is 300 batches (about 1.5 s), so one
/// that ignores the cancel still ends within the test.
fn broken_tcp(contestant: TcpContestant, breakage: Breakage) -> Runner {
    const LONG: u64 = 300;
    let runner = Runner::new(contestant.name(), 8, 3 * 32, LONG * 32, move |addr, size, meter, cancel| {
        let batches = if size == Size::Small { 3 } else { LONG };
        contestant.run(&TcpJob { addr, connections: 8, exchanges: 32, batches, meter, cancel }, &mut || {})
    });
    broken(runner, breakage)
}

/// `caller_cancel` rejects each runner against a server's `port`, saying `why`.
fn cancel_rejected(runners: &[(Runner, Port)], why: &str) {
    let server = common::server();
    for (runner, port) in runners {
        rejected(&conformance::caller_cancel(runner, server.addr(*port)), why);
    }
}

fn rejected(check: &measure::summary::Check, why: &str) {
    eprintln!("{}: {}", check.name, check.detail);
    assert!(check.failed(), "{} passed: {}", check.name, check.detail);
    assert!(check.detail.contains(why), "{} failed for another reason: {}", check.name, check.detail);
}

// Each test in a process of its own, as the lab runs each contestant in a fresh trial process: the checks
// count the whole process's threads, sockets or CPU, which another test's would change.
testkit::own_process! {
    #[test]
    fn caller_cancel_rejects_a_contestant_that_ignores_the_cancel() {
        cancel_rejected(&[
            (broken_http(HttpContestant::BlockingStd, Breakage::IgnoresCancel), Port::Http),
            (broken_http(HttpContestant::StreamHyper, Breakage::IgnoresCancel), Port::Http),
            (broken_tcp(TcpContestant::TokioTasks, Breakage::IgnoresCancel), Port::Tcp),
        ], "the cancel did not stop the run");
    }

    #[test]
    fn caller_cancel_rejects_a_thread_left_running() {
        cancel_rejected(&[(broken_http(HttpContestant::BlockingUreq, Breakage::LeavesThreadOnCancel), Port::Http)], "threads and");
    }

    #[test]
    fn caller_cancel_rejects_an_answer_counted_twice() {
        let runner = broken_tcp(TcpContestant::BlockingThreads, Breakage::AnswersTwiceOnCancel);
        cancel_rejected(&[(runner, Port::Tcp)], "answered more than once");
    }

    #[test]
    fn bound_under_failure_rejects_a_contestant_that_over_admits_on_failure() {
        for runner in [
            broken_http(HttpContestant::StreamReqwest, Breakage::OverAdmitsOnFailure),
            broken_tcp(TcpContestant::CoroutineMay, Breakage::OverAdmitsOnFailure),
        ] {
            let port = if runner.bound == 8 { Port::Tcp } else { Port::Http };
            let checks = conformance::server_killed(&runner, &common::launcher(), &common::config(), port);
            let bound = checks.iter().find(|c| c.name == "bound_under_failure");
            let Some(bound) = bound else { panic!("no bound_under_failure check in {checks:?}") };
            rejected(bound, "against the bound of");
        }
    }

    #[test]
    fn fault_at_rejects_a_contestant_that_swallows_the_failed_call() {
        for (runner, port, at) in [
            (broken_http(HttpContestant::BlockingStd, Breakage::SwallowsErrors), Port::Http, FaultAt::First),
            (broken_http(HttpContestant::StreamReqwest, Breakage::SwallowsErrors), Port::Http, FaultAt::Last),
            (broken_tcp(TcpContestant::TokioTasks, Breakage::SwallowsErrors), Port::Tcp, FaultAt::First),
            (broken_tcp(TcpContestant::BlockingThreads, Breakage::SwallowsErrors), Port::Tcp, FaultAt::Last),
        ] {
            let check = conformance::fault_at(&runner, &common::launcher(), &common::config(), port, at);
            rejected(&check, "no error reported");
        }
    }

    #[test]
    fn fault_at_rejects_a_contestant_that_over_admits_on_failure() {
        for (runner, port) in [
            (broken_http(HttpContestant::StreamHyper, Breakage::OverAdmitsOnFailure), Port::Http),
            (broken_tcp(TcpContestant::SpawnBlocking, Breakage::OverAdmitsOnFailure), Port::Tcp),
        ] {
            let check = conformance::fault_at(&runner, &common::launcher(), &common::config(), port, FaultAt::Middle);
            rejected(&check, "against the bound of");
        }
    }

    #[test]
    fn clean_after_failures_rejects_a_contestant_left_broken_by_a_failed_call() {
        let server = common::server();
        for (runner, port, addr, ordered) in [
            (
                broken_http(HttpContestant::BlockingUreq, Breakage::LeftBrokenByFailure),
                Port::Http,
                server.addr(Port::Http),
                false,
            ),
            (broken_tcp(TcpContestant::BlockInPlace, Breakage::LeftBrokenByFailure), Port::Tcp, server.addr(Port::Tcp), true),
        ] {
            // The failed call itself is reported as it should be; the harm shows in the clean run after it.
            let fault = conformance::fault_at(&runner, &common::launcher(), &common::config(), port, FaultAt::First);
            assert!(fault.passed, "{}: {}", fault.name, fault.detail);
            let check = conformance::clean_after_failures(&runner, addr, ordered);
            rejected(&check, "closed the connection");
        }
    }
}
