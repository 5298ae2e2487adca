//! The overload scenario: a simulated dependency loses capacity mid-run (500 slots of 5 ms drop to 100), and
//! every limiter (fixed, AIMD, Gradient2, Vegas) runs in both families, plus one unbounded contestant per
//! family.
//!
//! - [`limit`]: the admission gate shared by both families and the limit algorithms.
//! - [`stream_ext`]: `limited_unordered`, `buffer_unordered` whose width follows the gate.
//! - [`contestants`]: every contestant.
//! - [`ledger`] and [`analysis`]: each call recorded lock-free, analysed after the run into overall and
//!   per-phase metrics and per-window series.
//! - [`conformance`]: checks every contestant passes before timing.
//! - [`OverloadScenario`]: the lab's view (parameters, charts, trials, claims, discussion).
#![warn(missing_docs)]

pub mod analysis;
pub mod claims;
pub mod config;
pub mod conformance;
pub mod contestants;
pub mod discussion;
pub mod ledger;
pub mod limit;
pub mod scenario;
pub mod stream_ext;
mod trial;

pub use scenario::{OverloadScenario, HEADLINE};
