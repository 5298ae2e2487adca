//! The chain scenario (map/filter/map/sum), comparing the pipeline families of `pipelines` with a plain loop.
//!
//! - [`chain`]: the scenario folder, in the shape every scenario has (contestants, conformance, claims,
//!   routine, report and its template);
//! - [`ops`]: the stage functions, the stage objects contestants run and the independent reference;
//! - `job`: the work a contestant runs (configuration, behaviour, faults, outcome and errors);
//! - `sink`: where the chain's one-thread consumer puts its items.
#![warn(missing_docs)]

pub mod chain;
mod job;
pub mod ops;
mod sink;

pub use chain::{contestants, find, ChainContestant, ChainScenario, PreparedChain, HEADLINE};
pub use job::{
    Behaviour, ChainConfig, ChainError, Consumer, Fault, FaultAction, Instruments, Job, Outcome, StageError, StageName,
};
pub use ops::reference_checksum;
pub use pipelines::InjectedPanic;
