//! The two pipeline families, demand-driven async streams and blocking threads behind bounded channels, and
//! the chain scenario (map/filter/map/sum) that compares them with a plain loop.
#![warn(missing_docs)]
