//! The device and backpressure scenarios: every item makes one simulated I/O call, and the question is how
//! many calls each style can keep in flight, at what cost, and whether its bound holds.
//!
//! - [`call`]: how one call is made (the shared device, or the contestant's own timer).
//! - [`job`]: what a run is asked to do and the counters it reports through.
//! - [`contestants`]: the stream and blocking shapes.
//! - [`conformance`]: the checks every contestant passes before it is measured.
//! - [`trial`]: one trial in its own process, shared by both scenarios.
//! - [`threads`]: per-thread CPU and context switches, read in accounting iterations.
//! - [`scenarios`]: the `device` and `backpressure` scenarios as the lab sees them.
#![warn(missing_docs)]

pub mod call;
pub mod conformance;
pub mod contestants;
pub mod job;
pub mod scenarios;
pub mod threads;
pub mod trial;

pub use scenarios::backpressure::BackpressureScenario;
pub use scenarios::device::DeviceScenario;
