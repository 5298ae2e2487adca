//! `stream-tokio-tasks`: one tokio task per persistent connection on a 1-worker multi-thread runtime, each
//! exchange a tokio `TcpStream` `write_all` + `read_exact` (the task yields while the socket is not ready).

use measure::meter::Meter;

use crate::error::NetworkError;
use crate::outcome::Outcome;
use crate::tcp::exchange::TcpJob;
use crate::tcp::runtime::{self, Style};

/// Run `job`, calling `go` once every connection is open.
pub fn run<M: Meter>(job: &TcpJob<M>, go: &mut dyn FnMut()) -> Result<Outcome, NetworkError> {
    runtime::run(Style::Async, job, go)
}
