//! Every tcp contestant passes every conformance check against a real server process: each exchange answered once,
//! in order per connection; a server killed mid-run ends the run with its errors counted; a refused connection names
//! its address; one call failed on purpose by the server at the first, the middle and the last call is reported as
//! an error, promptly and within the bound; nothing is left behind; the bound holds while the failures propagate; a
//! run the caller cancels mid-run returns promptly with every answer once and nothing left running.

mod common;

use network::checks::{self, Port};
use network::tcp::conformance::runner;
use network::tcp::contestants::ALL;

#[test]
fn every_tcp_contestant_passes_every_check() {
    // Each contestant in a process of its own, with a server of its own, as the lab runs it: the checks count the
    // process's threads and sockets.
    let names: Vec<String> = ALL.iter().map(|c| c.name().to_string()).collect();
    testkit::each_in_own_process("every_tcp_contestant_passes_every_check", &names, |name| {
        let contestant = *ALL.iter().find(|c| c.name() == name).unwrap_or_else(|| panic!("no {name}"));
        let server = common::server();
        let checks = checks::all(
            &runner(contestant),
            server.tcp_addr(),
            &common::launcher(),
            &common::config(),
            Port::Tcp,
            true,
        );
        let names: Vec<&str> = checks.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "answered_once",
                "order_per_connection",
                "server_killed",
                "bound_under_failure",
                "no_leftovers",
                "refused",
                "fault_at_first",
                "fault_at_middle",
                "fault_at_last",
                "clean_after_failures",
                "caller_cancel"
            ]
        );
        for check in checks {
            eprintln!("{} {}: {}", contestant.name(), check.name, check.detail);
            assert!(check.passed, "{} {}: {}", contestant.name(), check.name, check.detail);
        }
    });
}
