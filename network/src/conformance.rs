//! The checks every contestant of both scenarios passes, in `cargo test -p network` and in every trial process
//! before it is timed: every request answered exactly once with the right payload (and, for TCP, in order per
//! connection), a server killed mid-run ending the run with its errors counted and no hang, a refused
//! connection reported once with its address, no thread or socket left behind after the early stop, and a
//! clean run answered exactly once again after those failures.
//!
//! Each check runs under a watchdog ([`measure::watchdog`]), so a contestant that hangs fails its check instead
//! of the trial.

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::{Duration, Instant};

use measure::summary::Check;

use crate::error::NetworkError;
use crate::launch::{Launcher, ServerProcess, READY_WAIT};
use crate::outcome::Outcome;
use crate::resources::Held;
use crate::server::ServeConfig;

/// How big a conformance run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    /// A few hundred requests, expected to finish cleanly.
    Small,
    /// Far more than can finish before the server is killed.
    Long,
}

/// Runs a contestant against an address at a size.
pub type Runner = Arc<dyn Fn(SocketAddr, Size) -> Result<Outcome, NetworkError> + Send + Sync>;

/// Which of the server's ports a scenario talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Port {
    /// The HTTP port.
    Http,
    /// The TCP echo port.
    Tcp,
}

/// How long a conformance run may take before its check fails as hung.
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(60);

/// When the server is killed in the `server_killed` check, after the run started.
pub const KILL_AFTER: Duration = Duration::from_millis(150);

/// How long threads and sockets may take to be released after a run.
pub const SETTLE: Duration = Duration::from_secs(3);

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
    checks.push(clean_after_failures(runner, addr, ordered));
    checks
}

/// `clean_after_failures`: after the killed server and the refused connection, the same runner (whatever
/// runtime or pool it keeps between runs) answers a small run again, every request once with its own payload
/// (and in order per connection when `ordered`).
pub fn clean_after_failures(runner: &Runner, addr: SocketAddr, ordered: bool) -> Check {
    let checks = answered(runner, addr, ordered);
    let passed = !checks.is_empty() && checks.iter().all(|c| c.passed);
    let details: Vec<String> = checks.iter().map(|c| format!("{}: {}", c.name, c.detail)).collect();
    Check::new(
        "clean_after_failures",
        passed,
        format!("after the killed server and the refused connection, a small run again: {}", details.join("; ")),
    )
}

/// `answered_once` (and `order_per_connection` when `ordered`): a small run, every request answered once with
/// its own payload.
pub fn answered(runner: &Runner, addr: SocketAddr, ordered: bool) -> Vec<Check> {
    let run = Arc::clone(runner);
    let result = measure::watchdog::guarded("answered_once", CHECK_TIMEOUT, move || {
        run(addr, Size::Small).map_err(|e| e.to_string())
    });
    match result {
        Ok(outcome) => {
            let mut checks = vec![match outcome.verify() {
                Ok(()) => Check::new(
                    "answered_once",
                    true,
                    format!(
                        "{} requests, each answered exactly once with its sequence number and checksum",
                        outcome.requested
                    ),
                ),
                Err(detail) => Check::new("answered_once", false, detail),
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
        Err(detail) => vec![Check::new("answered_once", false, detail)],
    }
}

/// `server_killed` and `no_leftovers`: a long run against a server of its own, killed mid-run; the run must end
/// with every request answered or counted as an error, and the process must hold no more threads or sockets
/// than before.
pub fn server_killed(runner: &Runner, launcher: &Launcher, config: &ServeConfig, port: Port) -> Vec<Check> {
    let (run, launcher, config) = (Arc::clone(runner), launcher.clone(), config.clone());
    let result = measure::watchdog::guarded("server_killed", CHECK_TIMEOUT, move || {
        let baseline = Held::now();
        let mut server = ServerProcess::start(&launcher, &config, READY_WAIT).map_err(|e| e.to_string())?;
        let addr = match port {
            Port::Http => server.http_addr(),
            Port::Tcp => server.tcp_addr(),
        };
        let started = Instant::now();
        let outcome = std::thread::scope(|scope| {
            let worker = scope.spawn(|| run(addr, Size::Long));
            std::thread::sleep(KILL_AFTER);
            server.kill();
            worker.join().map_err(|_| "the run panicked".to_string())
        })?;
        let took = started.elapsed();
        drop(server);
        let settled = Held::settle_to(baseline, SETTLE);
        Ok((outcome.map_err(|e| e.to_string())?, took, baseline, settled))
    });
    match result {
        Ok((outcome, took, baseline, settled)) => {
            let ended = outcome.errors > 0 && outcome.accounted();
            let killed = Check::new(
                "server_killed",
                ended,
                format!(
                    "server killed {} ms into a run of {} requests: it ended after {} ms with {} answered and {} \
                     errors counted ({} wrong){}",
                    KILL_AFTER.as_millis(),
                    outcome.requested,
                    took.as_millis(),
                    outcome.tally.count,
                    outcome.errors,
                    outcome.wrong,
                    outcome.first_error.as_ref().map_or_else(String::new, |e| format!("; first error: {e}"))
                ),
            );
            let leftovers = match settled {
                Ok(now) => Check::new(
                    "no_leftovers",
                    true,
                    format!(
                        "after the early stop: {} threads and {} sockets, as before the run ({} and {})",
                        now.threads, now.sockets, baseline.threads, baseline.sockets
                    ),
                ),
                Err(now) => Check::new(
                    "no_leftovers",
                    false,
                    format!(
                        "{} threads and {} sockets {} s after the early stop, against {} and {} before",
                        now.threads,
                        now.sockets,
                        SETTLE.as_secs(),
                        baseline.threads,
                        baseline.sockets
                    ),
                ),
            };
            vec![killed, leftovers]
        }
        Err(detail) => vec![Check::new("server_killed", false, detail)],
    }
}

/// `refused`: a run against a port nobody listens on ends at once with every request an error and one clear
/// message naming the address.
pub fn refused(runner: &Runner) -> Check {
    let Ok(addr) = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()) else {
        return Check::new("refused", false, "could not find a free port on 127.0.0.1");
    };
    let run = Arc::clone(runner);
    let result =
        measure::watchdog::guarded("refused", CHECK_TIMEOUT, move || run(addr, Size::Small).map_err(|e| e.to_string()));
    match result {
        Ok(outcome) => {
            let named =
                outcome.first_error.as_ref().is_some_and(|e| e.contains(&addr.to_string()) && e.contains("refused"));
            Check::new(
                "refused",
                named && outcome.tally.count == 0 && outcome.accounted(),
                format!(
                    "{} of {} requests failed; first error: {}",
                    outcome.errors,
                    outcome.requested,
                    outcome.first_error.as_deref().unwrap_or("none")
                ),
            )
        }
        Err(detail) => Check::new(
            "refused",
            detail.contains(&addr.to_string()) && detail.contains("refused"),
            format!("the run failed: {detail}"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_after_failures_rejects_a_runner_left_broken_by_the_failures() {
        let addr: SocketAddr = ([127, 0, 0, 1], 9).into();
        // A runner whose connections were all lost to the earlier failures and never re-established.
        let broken: Runner = Arc::new(|addr, _| Err(NetworkError::Closed { addr }));
        let check = clean_after_failures(&broken, addr, true);
        assert!(check.failed(), "{}", check.detail);
        assert!(check.detail.contains("closed the connection"), "{}", check.detail);
    }
}
