//! The device and backpressure scenarios: every item makes one simulated I/O call, and the question is how
//! many calls each style can keep in flight, at what cost, and whether its bound holds.
//!
//! Each scenario is a folder of the one scenario shape ([`device`], [`backpressure`]: `mod.rs`, `contestants/`,
//! `conformance.rs`, `claims.rs`, `routine.rs`, `report.rs`, `templates/`). The building blocks both
//! share sit at the crate's root, each below the scenarios that use it (none imports a scenario):
//!
//! - [`call`]: how one call is made (the shared device, or the contestant's own timer), and the conformance
//!   checks' failing call and ledgers.
//! - [`job`]: what a run is asked to do, the counters it reports through, and the meters it counts with.
//! - [`contestants`]: the registry of stream, blocking and coroutine shapes both scenarios pick from.
//! - [`checks`]: the conformance checks every contestant passes for its figures to count (a scenario's
//!   `conformance.rs` gives their sizes).
//! - [`trial`]: one trial in its own process (idle call, the harness's timed and accounting loop, then, in the first process, the checks), which
//!   each scenario's `routine.rs` runs with its own parameters.
//! - [`threads`]: per-thread CPU and context switches, read in accounting iterations.
//! - `format` and `finding_rows`: how both reports print a figure, and how both scenarios' `findings.rs` write a
//!   finding as a judged row.
#![warn(missing_docs)]

pub mod backpressure;
pub mod call;
pub mod checks;
pub mod contestants;
pub mod device;
mod finding_rows;
mod format;
pub mod job;
pub mod threads;
pub mod trial;

pub use backpressure::BackpressureScenario;
pub use device::DeviceScenario;
