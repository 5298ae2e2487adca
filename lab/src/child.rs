//! The hidden subcommands the lab re-executes itself with: one trial in a fresh process, one floor-measuring
//! process, a network trial's loopback server. The command line ([`crate::cli`]), the dispatch
//! ([`crate::action`]) and the parents that start them ([`crate::executor`], [`crate::floor`]) read the names
//! here, so none of them reaches into another for a name.

/// Hidden subcommand the lab re-executes itself with to run one trial in a fresh process.
pub(crate) const TRIAL_SUBCOMMAND: &str = "__trial";

/// Hidden subcommand one floor-measuring process runs ([`crate::floor`]).
pub(crate) const FLOOR_CHILD_SUBCOMMAND: &str = "__floor";

/// Hidden subcommand a network trial starts its loopback server with (configuration on stdin; exits when stdin
/// closes).
pub(crate) const SERVE_SUBCOMMAND: &str = network::launch::SERVE_SUBCOMMAND;
