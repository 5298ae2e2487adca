//! What the units of each style cost: the `memory` scenario (a waiting tokio task, a future in a
//! `FuturesUnordered` and an `async-stream` generator, each awaiting its own oneshot; a blocked OS thread and a
//! parked `may` coroutine; each holding a payload) and the `primitives` scenario (spawn + join of a task, a thread,
//! a rayon job and a coroutine; an uncontended permit against a mutex; a oneshot hand-off to a waiting unit).
//!
//! Both run through the harness's one loop ([`measure::harness`]): the times come from timed iterations, the
//! memory figures from accounting iterations, where the counting allocator is on.
//!
//! - [`payload`]: the bytes each waiting unit holds, and their checksum.
//! - [`memory`]: the `memory` scenario, in the folder shape every scenario has (contestants, conformance, claims,
//!   routine, report and its template).
//! - [`work`]: what a unit or an operation does with its number, generic so the timed runs ([`work::Plain`]) and
//!   the conformance checks ([`work::Checked`]: faults, live count, ledger, the caller's cancel) run the same code.
//! - [`primitives`]: the `primitives` scenario, in the same shape.
#![warn(missing_docs)]

pub mod memory;
pub mod payload;
pub mod primitives;
pub mod work;

pub use memory::MemoryScenario;
pub use primitives::PrimitivesScenario;
