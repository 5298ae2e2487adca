//! The checks every contestant of both scenarios passes, in `cargo test -p network` and in every trial process
//! before it is timed: every request answered exactly once with the right payload (and, for TCP, in order per
//! connection), a server killed mid-run ending the run with its errors counted and no hang, a refused
//! connection reported once with its address, no thread or socket left behind after the early stop, the bound
//! on requests in flight held while the killed server's failures propagate, one request failed on purpose by the
//! server at the first, the middle and the last call of a small run reported as an error (promptly, within the
//! bound, nothing left running), a clean run answered exactly once again after those failures, and a run
//! cancelled by the caller at a seeded point mid-run returning promptly with every answer once and nothing left
//! running.
//!
//! Each check runs under a watchdog ([`measure::watchdog`]), so a contestant that hangs fails its check instead
//! of the trial.

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::{Duration, Instant};

use measure::gauge::Outstanding;
use measure::meter::GaugeMeter;
use measure::summary::Check;
use pipelines::calls::{self, Held, Leftovers, Problems};

use crate::cancel::Cancel;
use crate::error::NetworkError;
pub use crate::launch::Port;
use crate::launch::{Launcher, ServerProcess, READY_WAIT};
use crate::outcome::{Outcome, Tally};
use crate::server::ServeConfig;

/// How big a conformance run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    /// A few hundred requests, expected to finish cleanly.
    Small,
    /// Far more than can finish before the server is killed.
    Long,
}

/// Runs a contestant against an address at a size, metering its requests in flight, cancelled by the caller
/// or not.
pub type Run = dyn Fn(SocketAddr, Size, GaugeMeter, Cancel) -> Result<Outcome, NetworkError> + Send + Sync;

/// A contestant as the checks run it.
#[derive(Clone)]
pub struct Runner {
    /// Its name (it seeds the point at which the caller cancels).
    pub name: String,
    /// The most requests it may have in flight in a conformance run.
    pub bound: u64,
    /// Requests of a [`Size::Small`] run (the fault checks fail the first, the middle and the last of them).
    pub small_requests: u64,
    /// Requests of a [`Size::Long`] run.
    pub long_requests: u64,
    /// One run.
    pub run: Arc<Run>,
}

impl std::fmt::Debug for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runner").field("name", &self.name).field("bound", &self.bound).finish_non_exhaustive()
    }
}

impl Runner {
    /// A runner named `name` whose runs keep at most `bound` requests in flight, `small_requests` in a small run
    /// and `long_requests` in a long run.
    pub fn new(
        name: &str,
        bound: u64,
        small_requests: u64,
        long_requests: u64,
        run: impl Fn(SocketAddr, Size, GaugeMeter, Cancel) -> Result<Outcome, NetworkError> + Send + Sync + 'static,
    ) -> Runner {
        Runner { name: name.to_string(), bound, small_requests, long_requests, run: Arc::new(run) }
    }

    /// A run cancelled by `cancel` (nobody, with [`Cancel::never`]): its outcome or its error's text, the
    /// high-water mark of requests in flight over it, and how long it took.
    fn metered(&self, addr: SocketAddr, size: Size, cancel: Cancel) -> (Result<Outcome, String>, u64, Duration) {
        let gauge = Arc::new(Outstanding::new());
        let started = Instant::now();
        let out = (self.run)(addr, size, GaugeMeter::new(Arc::clone(&gauge)), cancel);
        let took = started.elapsed();
        (out.map_err(|e| e.to_string()), u64::try_from(gauge.high_water()).unwrap_or(0), took)
    }

    /// A small run nobody cancels, under the watchdog as check `name`.
    fn small(&self, addr: SocketAddr, name: &str) -> Result<Outcome, String> {
        let run = self.clone();
        measure::watchdog::guarded(name, CHECK_TIMEOUT, move || run.metered(addr, Size::Small, Cancel::never()).0)
    }
}

/// How long a conformance run may take before its check fails as hung.
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(60);

/// When the server is killed in the `server_killed` check, after the run started.
pub const KILL_AFTER: Duration = Duration::from_millis(150);

/// How long threads and sockets may take to be released after a run.
pub const SETTLE: Duration = Duration::from_secs(3);

/// The most a cancelled run may take to return after the caller raised the cancellation (the calls kit's):
/// generous against the one call (10 ms) or exchange (1 ms) in flight per connection that a client finishes
/// before it sees the flag.
pub use pipelines::calls::CANCEL_WITHIN;

/// The range of answers after which the caller cancels a long run (the point is seeded by the contestant's name).
pub const CANCEL_POINTS: std::ops::Range<u64> = 64..2_000;

/// Every check of one contestant: against the running server at `addr`, and against servers of its own started
/// with `launcher` and `config` for the faults. `ordered` adds the per-connection order check.
pub fn all(
    runner: &Runner,
    addr: SocketAddr,
    launcher: &Launcher,
    config: &ServeConfig,
    port: Port,
    ordered: bool,
) -> Vec<Check> {
    let mut checks = answered(runner, addr, ordered);
    checks.extend(server_killed(runner, launcher, config, port));
    checks.push(refused(runner));
    checks.extend(FaultAt::ALL.map(|at| fault_at(runner, launcher, config, port, at)));
    checks.push(clean_after_failures(runner, addr, ordered));
    checks.push(caller_cancel(runner, addr));
    checks
}

/// `clean_after_failures`: after the killed server, the refused connection and the calls failed on purpose
/// ([`fault_at`]), the same runner (whatever runtime or pool it keeps between runs) answers a small run again,
/// every request once with its own payload (and in order per connection when `ordered`).
pub fn clean_after_failures(runner: &Runner, addr: SocketAddr, ordered: bool) -> Check {
    let after = "after the killed server, the refused connection and the failed calls";
    calls::clean_after("clean_after_failures", after, &answered(runner, addr, ordered))
}

/// How long a small run with one call failed on purpose may take to return: a clean small run takes a few
/// hundred milliseconds (200 calls of 10 ms, 16 in flight; 3 batches of 1 ms exchanges), so a client that waits
/// on the failed call (a retry loop, a lost wake-up) is caught well before the watchdog's [`CHECK_TIMEOUT`].
pub const FAULT_WITHIN: Duration = Duration::from_secs(5);

/// Where in a small run the server fails one request on purpose ([`ServeConfig::fail_seq`]): the calls kit's
/// three places.
pub use pipelines::calls::FaultAt;

/// `fault_at_first`, `fault_at_middle`, `fault_at_last`: a small run against a server of its own that fails one request
/// on purpose, the first, the middle or the last (HTTP: `500` for that call; TCP: that exchange's connection closed
/// unanswered). The run must report the failure (counted as an error or a wrong reply naming the server's address, or
/// the run's own error; never a short tally passed off as success), account for every request, count the failed one as
/// unanswered and every answer once (checked against a record of each request's answers, kept by a [`Cancel`] nobody
/// raises), return within [`FAULT_WITHIN`], keep its requests in flight within the runner's bound while the failure
/// propagates (the gauge's high-water mark, as `bound_under_failure` measures it), and leave the process with no more
/// threads or sockets than before within [`SETTLE`]. Over HTTP, where one call fails alone, every other call must be
/// answered exactly once; over TCP the closed connection's later exchanges fail with it.
pub fn fault_at(runner: &Runner, launcher: &Launcher, config: &ServeConfig, port: Port, at: FaultAt) -> Check {
    // `fault_at_first`, `fault_at_middle`, `fault_at_last`.
    let name = format!("fault_at_{}", at.place());
    let requests = runner.small_requests;
    let seq = at.call(requests);
    let config = ServeConfig { fail_seq: Some(seq), ..config.clone() };
    let (run, launcher) = (runner.clone(), launcher.clone());
    let result = measure::watchdog::guarded(&name, CHECK_TIMEOUT, move || {
        on_own_server(&launcher, &config, port, |_, addr| {
            // Nobody raises this cancellation: it is here for its record of each request's answers.
            let record = Cancel::after(u64::MAX, requests);
            (run.metered(addr, Size::Small, record.clone()), record, addr)
        })
    });
    let (((out, high, took), record, addr), held) = match result {
        Ok(parts) => parts,
        Err(detail) => return Check::new(name, false, format!("request {seq} of {requests} failed: {detail}")),
    };
    let server = addr.to_string();
    let mut problems = Problems::default();
    let reported = match &out {
        Err(e) => {
            problems.when(!e.contains(&server), || format!("the run's error does not name the server {server}: {e}"));
            format!("the run returned its error: {e}")
        }
        Ok(outcome) => {
            let failed = outcome.errors + outcome.wrong;
            let (answered, first) = (outcome.tally.count, first_error(outcome));
            problems.when(failed == 0, || {
                format!(
                    "no error reported: {answered} of {} requests answered and passed off as success",
                    outcome.requested
                )
            });
            problems.when(failed > 0 && !first.contains(&server), || {
                format!("the first error does not name the server {server}: {first}")
            });
            problems.when(outcome.requested != requests || !outcome.accounted(), || {
                format!(
                    "{answered} answered, {} errors and {} wrong do not account for the {requests} requests (the run says \
                     {})",
                    outcome.errors, outcome.wrong, outcome.requested
                )
            });
            problems.when(record.was_answered(seq), || {
                format!("request {seq} counted as answered, though the server failed it")
            });
            once_each(&mut problems, &record, &outcome.tally);
            if port == Port::Http && failed > 0 {
                let mut others = Tally::default();
                (0..requests).filter(|&s| s != seq).for_each(|s| others.add(s));
                problems.when(failed != 1 || outcome.tally != others, || {
                    format!(
                        "{failed} calls failed and {answered} answered where call {seq} alone should fail and every \
                         other be answered once"
                    )
                });
            }
            format!(
                "{answered} answered, {} errors and {} wrong counted; first error: {first}",
                outcome.errors, outcome.wrong
            )
        }
    };
    problems.when(took > FAULT_WITHIN, || {
        format!("returned after {} ms (limit {} ms)", took.as_millis(), FAULT_WITHIN.as_millis())
    });
    problems.note(calls::over_bound(high, runner.bound, "requests in flight while the failure propagated"));
    problems.note(held.left("the return"));
    problems.check(
        &name,
        || format!("the server failed request {seq} of {requests}"),
        || {
            format!(
            "the server failed request {seq} of {requests} on purpose: the run returned after {} ms (limit {} ms), \
             {reported}; at most {high} in flight against the bound of {}; {}",
            took.as_millis(),
            FAULT_WITHIN.as_millis(),
            runner.bound,
            held.back_to()
        )
        },
    )
}

/// `answered_once` (and `order_per_connection` when `ordered`): a small run, every request answered once with
/// its own payload.
pub fn answered(runner: &Runner, addr: SocketAddr, ordered: bool) -> Vec<Check> {
    let outcome = match runner.small(addr, "answered_once") {
        Ok(outcome) => outcome,
        Err(detail) => return vec![Check::new("answered_once", false, detail)],
    };
    let mut checks = vec![match outcome.verify() {
        Ok(()) => Check::new(
            "answered_once",
            true,
            format!("{} requests, each answered exactly once with its sequence number and checksum", outcome.requested),
        ),
        Err(detail) => Check::new("answered_once", false, detail.to_string()),
    }];
    if ordered {
        checks.push(Check::new(
            "order_per_connection",
            outcome.wrong == 0 && outcome.errors == 0,
            format!(
                "{} replies out of order or wrong over {} exchanges, one outstanding per connection",
                outcome.wrong, outcome.requested
            ),
        ));
    }
    checks
}

/// `server_killed`, `bound_under_failure` and `no_leftovers`: a long run against a server of its own, killed
/// mid-run; the run must end with every request answered or counted as an error, its requests in flight must
/// stay within the runner's bound while the failures propagate, and the process must hold no more threads or
/// sockets than before.
pub fn server_killed(runner: &Runner, launcher: &Launcher, config: &ServeConfig, port: Port) -> Vec<Check> {
    let (run, launcher, config) = (runner.clone(), launcher.clone(), config.clone());
    let result = measure::watchdog::guarded("server_killed", CHECK_TIMEOUT, move || {
        let ((ran, took), held) = on_own_server(&launcher, &config, port, |server, addr| {
            let started = Instant::now();
            let ran = std::thread::scope(|scope| {
                let worker = scope.spawn(|| run.metered(addr, Size::Long, Cancel::never()));
                std::thread::sleep(KILL_AFTER);
                server.kill();
                worker.join().map_err(|_| "the run panicked".to_string())
            });
            (ran, started.elapsed())
        })?;
        let (outcome, high, _) = ran?;
        Ok((outcome?, high, took, held))
    });
    let (outcome, high, took, held) = match result {
        Ok(parts) => parts,
        Err(detail) => return vec![Check::new("server_killed", false, detail)],
    };
    let killed = Check::new(
        "server_killed",
        outcome.errors > 0 && outcome.accounted(),
        format!(
            "server killed {} ms into a run of {} requests: it ended after {} ms with {} answered and {} errors \
             counted ({} wrong){}",
            KILL_AFTER.as_millis(),
            outcome.requested,
            took.as_millis(),
            outcome.tally.count,
            outcome.errors,
            outcome.wrong,
            outcome.first_error.as_ref().map_or_else(String::new, |e| format!("; first error: {e}"))
        ),
    );
    let leftovers = match (held.settled, held.left("the early stop")) {
        (Ok(now), _) => Check::new(
            "no_leftovers",
            true,
            format!(
                "after the early stop: {} threads and {} sockets, as before the run ({} and {})",
                now.threads, now.sockets, held.baseline.threads, held.baseline.sockets
            ),
        ),
        (Err(_), left) => Check::new("no_leftovers", false, left.unwrap_or_default()),
    };
    let bounded = Check::new(
        "bound_under_failure",
        high <= runner.bound,
        format!(
            "at most {high} requests in flight over the run cut by the killed server ({} errors), against the bound \
             of {}",
            outcome.errors, runner.bound
        ),
    );
    vec![killed, bounded, leftovers]
}

/// `refused`: a run against a port nobody listens on ends at once with every request an error and one clear
/// message naming the address.
pub fn refused(runner: &Runner) -> Check {
    let Ok(addr) = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()) else {
        return Check::new("refused", false, "could not find a free port on 127.0.0.1");
    };
    let names = |e: &str| e.contains(&addr.to_string()) && e.contains("refused");
    match runner.small(addr, "refused") {
        Ok(outcome) => Check::new(
            "refused",
            names(first_error(&outcome)) && outcome.tally.count == 0 && outcome.accounted(),
            format!(
                "{} of {} requests failed; first error: {}",
                outcome.errors,
                outcome.requested,
                first_error(&outcome)
            ),
        ),
        Err(detail) => Check::new("refused", names(&detail), format!("the run failed: {detail}")),
    }
}

/// `caller_cancel`: a long run the caller cancels from its own thread once a seeded number of requests were
/// answered ([`Cancel::after`]): the run returns within [`CANCEL_WITHIN`] of the cancel, before the end of the
/// run, every request it answered answered once (its tally is the set the contestant's answers recorded, none
/// twice), no error or wrong reply counted for the cancel, and the process back to its threads and sockets of
/// before within [`SETTLE`]. (A synchronous call returns once by construction; what is checked is that it
/// returns, promptly, with nothing left running.)
pub fn caller_cancel(runner: &Runner, addr: SocketAddr) -> Check {
    let point = pipelines::cancel::seeded_point(&runner.name, CANCEL_POINTS);
    let run = runner.clone();
    let result = measure::watchdog::guarded("caller_cancel", CHECK_TIMEOUT, move || {
        let cancel = Cancel::after(point, run.long_requests);
        let baseline = Held::steady();
        let caller = {
            let cancel = cancel.clone();
            std::thread::Builder::new()
                .name("caller-cancel".to_string())
                .spawn(move || cancel.raise_when_reached())
                .map_err(|e| format!("could not start the caller's thread: {e}"))?
        };
        let (out, _, _) = run.metered(addr, Size::Long, cancel.clone());
        let returned = Instant::now();
        cancel.abandon();
        let raised = caller.join().unwrap_or(false);
        let held = Leftovers::settle(baseline, SETTLE);
        Ok((out?, cancel, returned, raised, held))
    });
    let (outcome, cancel, returned, raised, held) = match result {
        Ok(parts) => parts,
        Err(detail) => return Check::new("caller_cancel", false, format!("cancelled after {point} answers: {detail}")),
    };
    let latency = cancel.raised_at().map(|t| returned.saturating_duration_since(t)).unwrap_or_default();
    let mut problems = Problems::default();
    problems.when(!raised, || format!("the run never answered {point} requests, so the caller never cancelled"));
    problems.note(calls::late(latency, CANCEL_WITHIN, "the cancel"));
    problems.when(outcome.tally.count >= outcome.requested, || {
        format!("all {} requests answered: the cancel did not stop the run", outcome.requested)
    });
    once_each(&mut problems, &cancel, &outcome.tally);
    problems.when(outcome.errors > 0 || outcome.wrong > 0, || {
        format!(
            "{} errors and {} wrong replies counted for the cancel{}",
            outcome.errors,
            outcome.wrong,
            outcome.first_error.as_ref().map_or_else(String::new, |e| format!(" (first: {e})"))
        )
    });
    problems.note(held.left("the return"));
    problems.check(
        "caller_cancel",
        || format!("cancelled after {point} answers"),
        || {
            format!(
            "cancelled by the caller after {point} of {} requests were answered: returned {:.1} ms later (limit {} \
             ms) with {} answered, each once; {}",
            outcome.requested,
            latency.as_secs_f64() * 1e3,
            CANCEL_WITHIN.as_millis(),
            outcome.tally.count,
            held.back_to()
        )
        },
    )
}

/// A run's first error or wrong reply, or `none`.
fn first_error(outcome: &Outcome) -> &str {
    outcome.first_error.as_deref().unwrap_or("none")
}

/// Every request the run counted (`tally`) was answered, once, by the record's count (`record`).
fn once_each(problems: &mut Problems, record: &Cancel, tally: &Tally) {
    let (recorded, twice) = record.record();
    problems.when(twice > 0 || recorded != *tally, || {
        format!(
            "the run counted {} answers, not each of the {} requests answered once ({twice} repeated answers: \
             requests answered more than once)",
            tally.count, recorded.count
        )
    });
}

/// With the process's threads and sockets counted first, start a server of its own with `config`, run `f` on it
/// and its `port`'s address, stop the server, and let the threads and sockets settle.
fn on_own_server<T>(
    launcher: &Launcher,
    config: &ServeConfig,
    port: Port,
    f: impl FnOnce(&mut ServerProcess, SocketAddr) -> T,
) -> Result<(T, Leftovers), String> {
    let baseline = Held::steady();
    let mut server = ServerProcess::start(launcher, config, READY_WAIT).map_err(|e| e.to_string())?;
    let addr = server.addr(port);
    let out = f(&mut server, addr);
    drop(server);
    Ok((out, Leftovers::settle(baseline, SETTLE)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_after_failures_rejects_a_runner_left_broken_by_the_failures() {
        let addr: SocketAddr = ([127, 0, 0, 1], 9).into();
        // A runner whose connections were all lost to the earlier failures and never re-established.
        let broken = Runner::new("broken", 16, 100, 1_000, |addr, _, _, _| Err(NetworkError::Closed { addr }));
        let check = clean_after_failures(&broken, addr, true);
        assert!(check.failed(), "{}", check.detail);
        assert!(check.detail.contains("closed the connection"), "{}", check.detail);
    }
}
