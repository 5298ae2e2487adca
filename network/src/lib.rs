//! The network scenarios: real sockets over loopback against a server in its own process.
//!
//! - `http` ([`HttpScenario`]): HTTP/1.1 with keep-alive, 500 requests in flight, a 10 ms timer on the
//!   server; blocking clients (a thread per connection with a hand-written HTTP/1.1 client, `ureq` on threads)
//!   against stream clients (hyper's client and `reqwest`, driven by `buffer_unordered`).
//! - `tcp` ([`TcpScenario`]): 64 persistent connections, batches of 256 exchanges, a 1 ms timer; blocking
//!   threads, tokio tasks, and blocking socket calls inside the runtime.
//!
//! Modules:
//! - [`server`]: the server (`lab __serve`); [`launch`]: starting and stopping it; [`affinity`]: pinning;
//!   [`session`]: what a trial sets up; [`runtime_sizes`]: the placement and runtime sizes both scenarios declare.
//! - [`wire`]: what travels; [`outcome`]: what a run hands back; [`tick`]: the scheduling probe;
//!   [`wakeup`]: the cost of one cross-thread wake-up on this machine; [`round_trip`]: one TCP exchange alone
//!   and the server's timer.
//! - [`mod@http`], [`tcp`]: the scenarios, each in the folder shape every scenario has (`contestants/`,
//!   `claims.rs`, `conformance.rs`, `routine.rs`, `report.rs` and `templates/report.md`); their two report
//!   templates place the one discussion both share (`templates/figures.md` beside this file), the two
//!   discussions differing only in their figures.
//!
//! Building blocks both scenario folders share (each scenario's own file of the same role is a thin use of them):
//! - [`checks`]: the conformance checks every contestant passes (a scenario's `conformance.rs` runs them on its
//!   contestants at its sizes); [`routine`]: the harness's routine, generic over a scenario's client (a
//!   scenario's `routine.rs` supplies the client and the trial).
//! - [`cancel`]: the caller's cancellation of a run, checked between calls; [`claim`]: the shape of every claim.
//! - [`http_calls`]: what an HTTP run is asked to do and the shapes the http contestants share;
//!   [`tcp_exchange`]: one TCP exchange in each way and what a TCP run is asked to do; [`tasks`]: the tokio
//!   runtime every tokio contestant builds, and the shape the tcp scenario's tokio contestants share.
//! - [`figures`]: what both reports show beyond their tables (ratios to a baseline, where the blocking time
//!   goes), as data for the template both render; the published figures are in `measure/references.json`.
#![warn(missing_docs)]

pub mod affinity;
pub mod cancel;
pub mod checks;
pub mod claim;
pub mod error;
pub mod figures;
pub mod http;
pub mod http_calls;
pub mod launch;
pub mod outcome;
pub mod round_trip;
pub mod routine;
pub mod runtime_sizes;
pub mod server;
pub mod session;
pub mod tasks;
pub mod tcp;
pub mod tcp_exchange;
pub mod tick;
pub mod wakeup;
pub mod wire;

pub use error::NetworkError;
pub use http::HttpScenario;
pub use server::serve_stdio;
pub use tcp::TcpScenario;
