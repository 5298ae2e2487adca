//! Every http contestant passes every conformance check against a real server process: each call answered once with
//! its own payload; a server killed mid-run ends the run with its errors counted; a refused connection names its
//! address; one call failed on purpose by the server at the first, the middle and the last call is reported as an
//! error, promptly and within the bound; nothing is left behind; the bound holds while the failures propagate; a run
//! the caller cancels mid-run returns promptly with every answer once and nothing left running.

mod common;

use network::checks::Port;
use network::http::conformance::runner;
use network::http::contestants::HttpContestant;

#[test]
fn every_http_contestant_passes_every_check() {
    let test = "every_http_contestant_passes_every_check";
    common::each_passes_every_check(test, &HttpContestant::ALL.map(|c| c.name()), (Port::Http, false), |name| {
        runner(HttpContestant::find(name).unwrap_or_else(|| panic!("no {name}")))
    });
}
