//! Admission limits: one [`Gate`] that blocking threads, `may` coroutines and async tasks share, and the limit
//! algorithms that move its bound ([`Fixed`], [`Aimd`], [`Gradient2`], [`Vegas`]), each adaptive one updated
//! once per window ([`Windowed`]) and counting its [`Decisions`].
//!
//! - [`LimitAlgorithm`]: a pure algorithm, [`Sample`] in, new limit out; no clock, no lock, no runtime, so the
//!   same object serves both families and is tested on scripted latency sequences.
//! - [`Gate`]: the admission gate. [`Gate::acquire_blocking`] parks a thread (or, inside a `may` coroutine,
//!   the coroutine and not its carrier), [`Gate::acquire`] is a
//!   cancel-safe future, [`Gate::try_acquire`] never waits; all three queue in one FIFO list. A [`Permit`] is
//!   released with the call's latency and [`Outcome`], which feeds the algorithm under the gate's lock.
//! - [`LimiterKind`], [`LimiterParams`], [`build`]: how the scenario's contestants and CLI name and build a
//!   limiter.
//! - [`conformance`]: the check that the blocking and async acquire paths admit the same way.
//!
//! # Why the algorithms are written here
//!
//! The algorithms re-express Netflix's concurrency-limits (Java, `concurrency-limits-core`,
//! `com.netflix.concurrency.limits.limit.{AIMDLimit, Gradient2Limit, VegasLimit, AbstractLimit}`,
//! `limit.measurement.ExpAvgMeasurement`, `limit.functions.Log10RootFunction`, and
//! `limiter.{AbstractLimiter, SimpleLimiter}` for what a sample carries); each file names what it follows and
//! where it departs. The two Rust crates were considered first:
//!
//! - `congestion-limiter` 0.1.0 (AIMD, Gradient, Vegas, `Windowed`): its `LimitAlgorithm::update` is an
//!   `async fn`, and its `Sample` has crate-private fields and no constructor, so nothing outside the crate can
//!   feed one of its algorithms a sample: only its own `DefaultLimiter` can, which times each call with its own
//!   `Token` (from its own acquire), admits through its own `tokio::sync::Semaphore`, and shrinks by
//!   `tokio::spawn`ing a task (a runtime context in every caller, threads included). It cannot sit behind this
//!   gate as an algorithm, so it runs as its own stream-family contestant, `stream-congestion-limiter`, through
//!   its own `DefaultLimiter`, the gate only mirroring its limit ([`Followed`]). Its `Gradient` is its own
//!   design, not Gradient2.
//! - `tower-acc` 0.1.1: its `Algorithm` trait is synchronous and would serve both families, but it departs
//!   from Netflix where the lab needs Netflix's semantics: `Aimd` keeps an `f64` limit instead of truncating
//!   to an integer each step, `Gradient2` tests app-limiting against the truncated limit, `Vegas` ignores a
//!   drop while app-limited (Netflix backs off); and it brings tokio-util, tower-layer and tower-service for a
//!   few dozen lines of arithmetic.
//!
//! # Why the gate is hand-written
//!
//! Admission control is the lab's subject, so its mechanism has to be the same for both families and
//! visible. `tokio::sync::Semaphore` has no blocking acquire (a thread would need a runtime to wait on it),
//! and its permits cannot shrink below those outstanding, while an adaptive limit must drop below the
//! in-flight count without preempting anyone. The gate is a `std::sync::Mutex` over the in-flight count, the
//! limit, the algorithm and one FIFO queue of waiters (each a `Thread` or a `may` coroutine to unpark, or a
//! `Waker`); a freed slot is
//! handed straight to the queue's head, so neither family can overtake the other and no wake-up is wasted.

mod aimd;
mod algorithm;
pub mod conformance;
mod exp_avg;
mod fixed;
mod followed;
mod gate;
mod gradient2;
mod kind;
mod vegas;
mod windowed;

pub use aimd::{Aimd, AimdConfig};
pub use algorithm::{Decisions, LimitAlgorithm, Sample};
pub use fixed::Fixed;
pub use followed::Followed;
pub use gate::{Acquire, Gate, GateStats, Outcome, Permit};
pub use gradient2::{Gradient2, Gradient2Config};
pub use kind::{build, LimiterKind, LimiterParams, UnknownLimiter};
pub use vegas::{equilibrium as vegas_equilibrium, log10_root, Vegas, VegasConfig};
pub use windowed::{Aggregate, WindowConfig, Windowed};
