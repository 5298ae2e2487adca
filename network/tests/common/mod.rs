//! Helpers shared by the integration tests: the server stand-in binary and a server started with it.

#![allow(dead_code, unreachable_pub)]

use std::time::Duration;

use network::checks::{self, Port, Runner};
use network::launch::{Launcher, ServerProcess, READY_WAIT};
use network::server::ServeConfig;

/// This crate's `network-serve` binary, which serves and runs trials as the lab does.
pub fn launcher() -> Launcher {
    Launcher::program(env!("CARGO_BIN_EXE_network-serve"))
}

/// A server with a 10 ms HTTP timer and a 1 ms TCP timer.
pub fn config() -> ServeConfig {
    ServeConfig { http_delay_us: 10_000, tcp_delay_us: 1_000, core: None, start_delay_ms: 0, fail_seq: None }
}

/// Start a server, or fail the test with the error.
pub fn server() -> ServerProcess {
    match ServerProcess::start(&launcher(), &config(), READY_WAIT) {
        Ok(server) => server,
        Err(err) => panic!("the server did not start: {err}"),
    }
}

/// Wait up to `wait` for `pid` to stop running.
pub fn gone_within(pid: u32, wait: Duration) -> bool {
    let deadline = std::time::Instant::now() + wait;
    while std::time::Instant::now() < deadline {
        if !network::launch::is_running(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// Every conformance check of each contestant named in `names` passes, each contestant in a process of its own
/// (test `test`) with a server of its own, as the lab runs it (the checks count the process's threads and
/// sockets): its `runner` checked against the server's `port` (`ordered`: with the per-connection order check),
/// and they are the checks [`every_check`] names, in order.
pub fn each_passes_every_check(
    test: &str,
    names: &[&str],
    (port, ordered): (Port, bool),
    runner: impl Fn(&str) -> Runner,
) {
    let names: Vec<String> = names.iter().map(ToString::to_string).collect();
    let expected = every_check(ordered);
    testkit::each_in_own_process(test, &names, |name| {
        let server = server();
        let checks = checks::all(&runner(name), server.addr(port), &launcher(), &config(), port, ordered);
        let got: Vec<&str> = checks.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(got, expected);
        for check in checks {
            eprintln!("{name} {}: {}", check.name, check.detail);
            assert!(check.passed, "{name} {}: {}", check.name, check.detail);
        }
    });
}

/// The names of every conformance check, in order; `ordered` adds the per-connection order check.
pub fn every_check(ordered: bool) -> Vec<&'static str> {
    let order = ordered.then_some("order_per_connection");
    let rest = ["server_killed", "bound_under_failure", "no_leftovers", "refused", "fault_at_first", "fault_at_middle"];
    let end = ["fault_at_last", "clean_after_failures", "caller_cancel"];
    ["answered_once"].into_iter().chain(order).chain(rest).chain(end).collect()
}
