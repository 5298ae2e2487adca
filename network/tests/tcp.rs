//! Every tcp contestant passes every conformance check against a real server process: each exchange answered once,
//! in order per connection; a server killed mid-run ends the run with its errors counted; a refused connection names
//! its address; one call failed on purpose by the server at the first, the middle and the last call is reported as
//! an error, promptly and within the bound; nothing is left behind; the bound holds while the failures propagate; a
//! run the caller cancels mid-run returns promptly with every answer once and nothing left running.

mod common;

use network::checks::Port;
use network::tcp::conformance::runner;
use network::tcp::contestants::TcpContestant;

#[test]
fn every_tcp_contestant_passes_every_check() {
    let test = "every_tcp_contestant_passes_every_check";
    common::each_passes_every_check(test, &TcpContestant::ALL.map(|c| c.name()), (Port::Tcp, true), |name| {
        runner(TcpContestant::find(name).unwrap_or_else(|| panic!("no {name}")))
    });
}
