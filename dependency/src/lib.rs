//! A simulated remote dependency (being built).
#![warn(missing_docs)]
