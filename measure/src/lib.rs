//! The lab's measurement vocabulary, shared by every scenario.
//!
//! Measurement (what one iteration cost) lives in [`cpu`], [`gauge`], [`meter`], [`sampler`], [`alloc`],
//! [`memory`], [`latency`] and [`probe`], and the one loop that runs a trial's iterations in [`harness`]; analysis (what many iterations say) in [`stats`] and [`compare`], over the types of [`metric_stats`]; the typed
//! records that travel from a trial process to the lab and on to the reports in [`record`] and
//! [`summary`], over the types both carry: [`contestant`] (what a contestant is), [`check`] (a check's outcome)
//! and [`setup`] (the machine and method of a run); the interface a scenario implements in [`scenario`]; and [`watchdog`], which runs a scenario's
//! conformance checks so that one that hangs or panics fails instead of taking the trial process with it.
//! [`question`] declares the questions a scenario answers and decides each from a summary; the answers the summary
//! carries are in [`answers`], and the [`verdict`] of a claim, a guard or a comparison below them all.
//! [`references`] holds every figure from a published study, and [`judge`] judges every scenario's claim table.
//! [`calibration`] measures the smallest ratio this testbed can tell apart, per class of metric, and gives every noise
//! line its threshold from it. [`busy`] is the guard that notices other processes using the machine during a timed iteration.
//! [`external`] runs a contestant as a program of its own outside the trial process (the standalone programs that
//! calibrate the lab's harness) and sets the lab beside it.
//! [`cost_model`] predicts a contestant's per-item cost from what it counted and the machine's floor.
//! [`limits`] reads how many more threads the OS lets this process start, so a thread count that cannot fit is
//! refused up front. [`phase`] names a sweep's phases and reads a parameter's level back; [`runtime_size`] is how a
//! scenario declares the sizes of the runtimes inside its trials.
#![warn(missing_docs)]

pub mod advice;
pub mod alloc;
pub mod answers;
pub mod busy;
pub mod calibration;
pub mod check;
pub mod compare;
pub mod contestant;
pub mod cores;
pub mod cost_model;
pub mod cpu;
pub mod external;
pub mod floor;
pub mod gauge;
pub mod harness;
pub mod judge;
pub mod latency;
pub mod limits;
pub mod memory;
pub mod meter;
pub mod metric_stats;
pub mod phase;
pub mod probe;
pub mod question;
pub mod record;
pub mod references;
mod registry;
pub mod runtime_size;
pub mod sampler;
pub mod scenario;
mod scenario_files;
pub mod separation;
pub mod setup;
pub mod stats;
pub mod summary;
pub mod template;
pub mod units;
pub mod verdict;
pub mod watchdog;
