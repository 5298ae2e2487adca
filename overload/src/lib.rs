//! The overload scenario: a dependency that loses capacity mid-run, under a fixed bound and under adaptive
//! limits in both styles. Not built yet; the lab does not list it until its contestants exist.
#![warn(missing_docs)]
