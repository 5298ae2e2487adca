//! Helpers shared by the integration tests: the server stand-in binary and a server started with it.

#![allow(dead_code, unreachable_pub)]

use std::time::Duration;

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
