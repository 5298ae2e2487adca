//! The server process: it serves, exits by itself when its standard input closes, is killed after a bounded
//! wait when it is slow to start (with an error saying how long the client waited), and reports its pinning.

mod common;

use std::time::Duration;

use network::launch::{is_running, ServerProcess, READY_WAIT};
use network::server::ServeConfig;

#[test]
fn the_server_exits_by_itself_when_its_input_closes() {
    let server = common::server();
    let pid = server.pid();
    assert!(is_running(pid));
    assert!(server.stop(), "the server had to be killed");
    assert!(common::gone_within(pid, Duration::from_secs(2)));
}

#[test]
fn dropping_the_handle_stops_the_server() {
    let server = common::server();
    let pid = server.pid();
    drop(server);
    assert!(common::gone_within(pid, Duration::from_secs(3)));
}

#[test]
fn a_server_slow_to_start_is_killed_after_a_bounded_wait_with_a_clear_error() {
    let config = ServeConfig { start_delay_ms: 5_000, ..common::config() };
    let started = std::time::Instant::now();
    let err =
        ServerProcess::start(&common::launcher(), &config, Duration::from_millis(300)).err().map(|e| e.to_string());
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(err.as_deref().is_some_and(|e| e.contains("did not report its ports within 300 ms")), "{err:?}");
}

#[test]
fn the_server_reports_the_pinning_it_was_given() {
    let config = ServeConfig { core: network::affinity::allowed_cores().first().copied(), ..common::config() };
    let server = ServerProcess::start(&common::launcher(), &config, READY_WAIT);
    let pinned = server.as_ref().map(|s| s.pinned().clone()).map_err(|e| e.to_string());
    assert_eq!(pinned, Ok(Ok(config.core)));
}
