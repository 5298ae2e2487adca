//! Demand-driven async streams: what the stream contestants share, one idea per file.
//!
//! - [`runtime`]: the tokio runtimes the stream contestants run on, built once and reused.
//! - [`tasks`]: a stage-per-task pipeline on a tokio runtime, joined by bounded `tokio::sync::mpsc` channels
//!   (the async counterpart of [`crate::blocking::Pipeline`]).
//! - [`count_pending`]: a stream adapter that counts how often its inner stream returned `Pending`.
//! - [`yield_interval`]: how many items `tokio_stream::iter` hands out before it yields to the scheduler, as
//!   built into this binary (it depends on tokio-stream's `rt` feature).
//!
//! Single-task stream pipelines need no library of their own: they are a source stream plus `StreamExt`
//! adapters, polled by one executor (see the `chain` crate's contestants).

pub mod count_pending;
pub mod runtime;
pub mod tasks;
pub mod yield_interval;

pub use count_pending::{count_pending, CountPending};
pub use tasks::{TaskPipeline, TaskStages};
pub use yield_interval::tokio_iter_yield_interval;
