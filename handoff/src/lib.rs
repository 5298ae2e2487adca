//! The handoff crate: the handoff scenario (`handoff/`, one producer passing a million items to one consumer)
//! and the building blocks its contestants share.
//!
//! Building blocks, lowest first: `job` (the work, its configuration, outcome and errors); `message` (the item
//! source, the message shapes and the sink, shared by both ends); `produce` and `consume` (the producer and
//! consumer loops); `pair` (spawning and joining the two ends); [`condvar_queue`] (the hand-written bounded
//! blocking queue). The scenario's folder is [`mod@handoff`]; its public items are re-exported here.
#![warn(missing_docs)]

pub mod condvar_queue;
mod consume;
pub mod handoff;
mod job;
mod message;
mod pair;
mod produce;

pub use handoff::{
    ab_variants, bare_pairs, claims, conformance, contestants, find, findings, items_at, report, AbVariant,
    HandoffContestant, HandoffScenario, PreparedHandoff, BATCHED, CPU_PER_ITEM, HEADLINE, PER_ITEM, SERIES_CAPACITY,
    SMALL_CAPACITY_BELOW,
};
pub use job::{
    injected_panic_message, Behaviour, Consumer, Fault, FaultAction, HandoffConfig, HandoffError, Instruments, Job,
    Outcome, ProducerError, ProducerSite, Side, HOLDERS,
};
