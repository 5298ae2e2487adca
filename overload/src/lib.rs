//! The overload scenario: a simulated dependency loses capacity once the limit has settled (500 slots of 5 ms
//! drop to 100), and every limiter (fixed; AIMD on rejections and on 1.5×, 2× and 4× the no-load latency;
//! Gradient2; Vegas; each updated per call as Netflix's `SimpleLimiter` runs it)
//! runs in the stream, blocking and coroutine families, plus one unbounded stream and one unbounded thread
//! contestant.
//!
//! - [`limit`]: the admission gate every family shares, the limit algorithms, their window and their decision
//!   counts.
//! - [`stream_ext`]: `limited_unordered`, `buffer_unordered` whose width follows the gate.
//! - [`contestants`]: every contestant.
//! - [`ledger`] and [`analysis`]: each call recorded lock-free, analysed after the run into overall and
//!   per-phase metrics and per-window series.
//! - [`conformance`]: checks every contestant passes before timing.
//! - [`cancel`]: a cancellation from the caller's side, for the `caller_cancel` check.
//! - [`edges`]: conformance at the edges: failing calls at the first, a middle and the last call, and the
//!   caller's cancellation.
//! - [`settle`]: the rule that drops the capacity once the limit has settled, and reads it back from a history.
//! - [`OverloadScenario`]: the lab's view (parameters, charts, trials, claims, discussion).
#![warn(missing_docs)]

pub mod analysis;
pub mod cancel;
pub mod claims;
pub mod config;
pub mod conformance;
pub mod contestants;
pub mod discussion;
pub mod edges;
pub mod ledger;
pub mod limit;
pub mod scenario;
pub mod settle;
pub mod stream_ext;
mod trial;

pub use scenario::{OverloadScenario, HEADLINE};
