//! The service scenario (`service`): requests arrive on a seeded schedule whether or not earlier ones finished;
//! each does W µs of CPU work split over k stages, passed from stage to stage the way its style passes work, one
//! call to a dependency of L ms under a concurrency bound, and a reply. Every style as its experts write a
//! service, with the same admission bound, the same dependency bound and the same cores.
//!
//! Why a crate of its own: the scenario joins the building blocks of three others (the chain's mixing rounds,
//! [`chain::ops::map1`], as its CPU work; the simulated [`dependency`] as its downstream call; overload's
//! seeded [`arrivals`](overload::arrivals) and lock-free [`book`](overload::book) of every arrival's fate), and
//! adds the pieces only a request path needs (stages, an admission bound, per-request verification). Placed in
//! any one of those crates it would make that crate depend on another scenario's crate; here each stays as it is
//! and this crate depends on them.
//!
//! - [`config`]: one run's parameters as typed values.
//! - [`work`]: the CPU work of one request, calibrated from µs to mixing rounds on the trial's own machine.
//! - [`requests`]: what every style's request path shares in one run: the admission bound, the counted
//!   dependency call, the reply and its record.
//! - [`analysis`]: a run's figures, made after its clocks stopped.
//! - [`service`]: the scenario folder (contestants, conformance, routine, claims, findings, report).
#![warn(missing_docs)]

pub mod analysis;
pub mod config;
pub mod error;
pub mod requests;
pub mod service;
pub mod work;

pub use service::ServiceScenario;
