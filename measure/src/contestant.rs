//! What a contestant is ([`ContestantInfo`]: its name, [`Family`], [`Role`] and one-line description), as the
//! scenario registers it, the raw file's header records it and the summary carries it. Kept below both
//! [`crate::record`] and [`crate::summary`] (re-exported there), so that neither depends on the other.

use serde::{Deserialize, Serialize};

/// Which style a contestant is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// Demand-driven async streams (futures, tokio-stream, async-stream on tokio).
    Stream,
    /// OS threads behind bounded channels, and rayon.
    Blocking,
    /// A plain loop: the physical floor.
    Baseline,
    /// Blocking-style code on stackful coroutines (`may`): Rust's counterpart of virtual threads.
    Coroutine,
}

impl Family {
    /// The contract's spelling: `stream`, `blocking`, `baseline` or `coroutine`.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Stream => "stream",
            Family::Blocking => "blocking",
            Family::Baseline => "baseline",
            Family::Coroutine => "coroutine",
        }
    }
}

/// What a contestant is for. Only a [`Role::Candidate`] is ever "the pick"; every other role is shown as what it
/// costs (a pathology, a trap), as the floor beneath the candidates, or as the lab's own calibration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Code a user could adopt as it is, written as an expert in its style would write it.
    #[default]
    Candidate,
    /// A labelled bad setting, kept to show what it costs (one message as large as the channel, no bound).
    Pathology,
    /// A common mistake or a switch that disables a safety mechanism (blocking inside a task, opting out of
    /// tokio's cooperative budget).
    Trap,
    /// The physical floor: a plain loop, or a row that skips the shared resource the scenario is about.
    Floor,
    /// A bare program that calibrates the lab (the smallest correct program of one pair).
    Reference,
}

impl Role {
    /// The contract's spelling: `candidate`, `pathology`, `trap`, `floor` or `reference`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Candidate => "candidate",
            Role::Pathology => "pathology",
            Role::Trap => "trap",
            Role::Floor => "floor",
            Role::Reference => "reference",
        }
    }
}

/// What a contestant is, as `lab list` and the report describe it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContestantInfo {
    /// Unique name within the scenario, such as `blocking-crossbeam-batched`.
    pub name: String,
    /// Its family.
    pub family: Family,
    /// What it is for: only candidates are ever picked.
    #[serde(default)]
    pub role: Role,
    /// One line saying exactly what it is: crate, API, batching, ordering.
    pub description: String,
    /// Why it is expected to fail its checks, when it is: a peer crate's known behaviour that the checks catch,
    /// reported as a finding with this cause rather than as a defect of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_failure: Option<String>,
}

impl ContestantInfo {
    /// A [`Role::Candidate`] named `name` of `family`, described by `description`.
    pub fn new(name: impl Into<String>, family: Family, description: impl Into<String>) -> ContestantInfo {
        ContestantInfo {
            name: name.into(),
            family,
            role: Role::Candidate,
            description: description.into(),
            expected_failure: None,
        }
    }

    /// The same contestant, expected to fail its checks for the reason `why` (one clause, the cause).
    pub fn expected_to_fail(mut self, why: impl Into<String>) -> ContestantInfo {
        self.expected_failure = Some(why.into());
        self
    }

    /// The same contestant with `role`.
    pub fn with_role(mut self, role: Role) -> ContestantInfo {
        self.role = role;
        self
    }
}
