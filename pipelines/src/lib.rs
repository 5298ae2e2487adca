//! The families' toolkit every scenario crate builds its contestants from: the two pipeline families
//! (demand-driven async streams, blocking threads behind bounded channels), coroutines, cancellation and the
//! conformance kit. The chain scenario that compares the families with a plain loop is the `chain` crate.
//!
//! - [`blocking`]: a stage-per-thread pipeline builder generic over a channel [`blocking::Flavor`]
//!   (crossbeam-channel, flume, `std::sync::mpsc::sync_channel`).
//! - [`stream`]: a stage-per-task pipeline builder on tokio, runtime constructors, and stream diagnostics.
//! - [`coroutine`]: the coroutine family's `may` configuration (carriers, stack size) and coroutine spawning.
//! - [`floor`]: the machine's own floor (a cache line, a wake-up, a task wake-up, a spawn, an SPSC ring, the
//!   loop), timed as the smallest correct program of each mechanism.
//! - [`conformance`]: the conformance kit the chain and handoff scenarios check their contestants with, and a
//!   contestant wrapped to misbehave for the reject tests.
//! - [`calls`]: the calls kit: what the checks of every calls scenario (device, backpressure, http, tcp,
//!   overload) judge alike (verdicts, guarded checks, fault places, the cancel's promptness, leftovers, the
//!   ledger of calls made or answered once).
//! - [`sink`]: where a one-thread consumer's items end up, shared by the chain and handoff scenarios.
//! - [`start_line`]: where threads wait, already spawned, until the measuring thread has started its clock.
//! - [`PipelineError`], [`LiveStages`]: what both builders share (how a pipeline failed; how many of its
//!   stage threads or tasks are still alive).
#![warn(missing_docs)]

pub mod blocking;
pub mod calls;
pub mod cancel;
pub mod conformance;
pub mod coroutine;
mod error;
pub mod floor;
mod live;
mod panic;
pub mod sink;
pub mod start_line;
pub mod stream;

pub use error::PipelineError;
pub use live::{LiveStages, StageGuard};
pub use panic::{panic_message, InjectedPanic, QuietInjectedPanics};
