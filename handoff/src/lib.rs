//! The producer→consumer hand-off scenario: passing a million items from one thread or task to another in
//! each style. Not built yet; the lab does not list it until its contestants exist.
#![warn(missing_docs)]
