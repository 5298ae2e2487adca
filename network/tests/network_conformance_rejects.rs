//! Every new check of the network conformance can fail: each deliberately broken contestant below (a real
//! contestant wrapped to misbehave in one way) is rejected by the check written for that misbehaviour.

mod common;

use std::net::SocketAddr;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use measure::meter::{GaugeMeter, Meter};
use network::cancel::Cancel;
use network::conformance::{self, Port, Runner, Size};
use network::error::NetworkError;
use network::http::contestants::HttpContestant;
use network::http::job::HttpJob;
use network::http::routine::CONFORMANCE_IN_FLIGHT;
use network::outcome::Outcome;
use network::tcp::contestants::TcpContestant;
use network::tcp::exchange::TcpJob;

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
}

/// Run the real `contestant` on `job`, misbehaving as `breakage` says.
fn misbehave(
    breakage: Breakage,
    bound: u64,
    meter: &GaugeMeter,
    cancel: &Cancel,
    run: impl FnOnce(Cancel) -> Result<Outcome, NetworkError>,
) -> Result<Outcome, NetworkError> {
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
        _ => {}
    }
    out
}

/// The http contestant `contestant`, broken as `breakage` says, with the conformance sizes.
fn broken_http(contestant: HttpContestant, breakage: Breakage) -> Runner {
    let bound = CONFORMANCE_IN_FLIGHT as u64;
    Runner::new(contestant.name(), bound, 5_000, move |addr: SocketAddr, size, meter, cancel| {
        let requests = if size == Size::Small { 200 } else { 5_000 };
        misbehave(breakage, bound, &meter, &cancel, |heard| {
            let job = HttpJob { addr, requests, in_flight: CONFORMANCE_IN_FLIGHT, meter: meter.clone(), cancel: heard };
            contestant.run(&job, &mut || {})
        })
    })
}

/// The tcp contestant `contestant`, broken as `breakage` says; its long run is 300 batches (about 1.5 s), so one
/// that ignores the cancel still ends within the test.
fn broken_tcp(contestant: TcpContestant, breakage: Breakage) -> Runner {
    const LONG: u64 = 300;
    Runner::new(contestant.name(), 8, LONG * 32, move |addr: SocketAddr, size, meter, cancel| {
        let batches = if size == Size::Small { 3 } else { LONG };
        misbehave(breakage, 8, &meter, &cancel, |heard| {
            let job = TcpJob { addr, connections: 8, exchanges: 32, batches, meter: meter.clone(), cancel: heard };
            contestant.run(&job, &mut || {})
        })
    })
}

/// The checks count the whole process's threads and sockets: one test at a time.
fn serial() -> MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL.lock().unwrap_or_else(PoisonError::into_inner)
}

fn rejected(check: &measure::summary::Check, why: &str) {
    eprintln!("{}: {}", check.name, check.detail);
    assert!(check.failed(), "{} passed: {}", check.name, check.detail);
    assert!(check.detail.contains(why), "{} failed for another reason: {}", check.name, check.detail);
}

#[test]
fn caller_cancel_rejects_a_contestant_that_ignores_the_cancel() {
    let _serial = serial();
    let server = common::server();
    let check = conformance::caller_cancel(
        &broken_http(HttpContestant::BlockingStd, Breakage::IgnoresCancel),
        server.http_addr(),
    );
    rejected(&check, "the cancel did not stop the run");
    let check = conformance::caller_cancel(
        &broken_http(HttpContestant::StreamHyper, Breakage::IgnoresCancel),
        server.http_addr(),
    );
    rejected(&check, "the cancel did not stop the run");
    let check =
        conformance::caller_cancel(&broken_tcp(TcpContestant::TokioTasks, Breakage::IgnoresCancel), server.tcp_addr());
    rejected(&check, "the cancel did not stop the run");
}

#[test]
fn caller_cancel_rejects_a_thread_left_running() {
    let _serial = serial();
    let server = common::server();
    let check = conformance::caller_cancel(
        &broken_http(HttpContestant::BlockingUreq, Breakage::LeavesThreadOnCancel),
        server.http_addr(),
    );
    rejected(&check, "threads and");
}

#[test]
fn caller_cancel_rejects_an_answer_counted_twice() {
    let _serial = serial();
    let server = common::server();
    let check = conformance::caller_cancel(
        &broken_tcp(TcpContestant::BlockingThreads, Breakage::AnswersTwiceOnCancel),
        server.tcp_addr(),
    );
    rejected(&check, "answered more than once");
}

#[test]
fn bound_under_failure_rejects_a_contestant_that_over_admits_on_failure() {
    let _serial = serial();
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
