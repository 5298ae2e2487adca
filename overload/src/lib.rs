//! Two scenarios of a dependency that loses capacity mid-run, under a fixed bound and adaptive limits, in the
//! stream, blocking and coroutine families:
//!
//! - [`overload`]: a batch job, calls issued back to back (`overload`).
//! - [`overload_service`]: calls arrive on a schedule, latency counts from it, and a reply past its deadline is
//!   the loss signal (`overload-service`).
//!
//! Each scenario folder holds `mod.rs`, `contestants/`, `conformance.rs`, `claims.rs`, `routine.rs`,
//! `report.rs` and `templates/`. Building blocks they share:
//!
//! - [`config`] and [`service_config`]: one run's parameters as typed values, and the dependency and limiters
//!   they configure.
//! - [`limit`]: the admission gate every family shares, the limit algorithms, their window and their decision
//!   counts.
//! - [`stream_ext`]: `limited_unordered`, `buffer_unordered` whose width follows the gate.
//! - [`job`]: what every batch contestant is handed for one iteration, and how each finishes a call.
//! - [`feed`]: what kind of sample stream each family fed a limiter, compared pair by pair for the report.
//! - [`ledger`] and [`analysis`]: each batch call recorded lock-free, analysed after the run into overall and
//!   per-phase metrics and per-window series.
//! - [`arrivals`], [`book`] and [`service_analysis`]: the service's schedule, every arrival's fate, and the
//!   figures made from them after the run.
//! - [`clocks`]: wall time, CPU and the instruments' readings, as both scenarios report them.
//! - [`error`]: why a contestant could not be prepared or a run of it could not finish.
//! - [`policy`]: the family question both scenarios ask at each admission policy apart.
//! - [`settle`]: the rule that drops the capacity once the limit has settled, and reads it back from a history.
#![warn(missing_docs)]

pub mod analysis;
pub mod arrivals;
pub mod book;
pub mod clocks;
pub mod config;
pub mod error;
pub mod feed;
#[cfg(test)]
mod fixture;
pub mod job;
pub mod ledger;
pub mod limit;
pub mod overload;
pub mod overload_service;
pub mod policy;
pub mod service_analysis;
pub mod service_config;
#[cfg(test)]
mod service_fixture;
pub mod settle;
pub mod stream_ext;

pub use analysis::HEADLINE;
pub use overload::OverloadScenario;
pub use overload_service::ServiceScenario;
