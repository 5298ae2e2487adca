//! The overload scenario (being built).
#![warn(missing_docs)]

pub mod limit;
