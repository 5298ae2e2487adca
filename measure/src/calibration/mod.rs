//! Calibrate, then judge: the smallest ratio this testbed can tell apart, per class of metric, measured by A/A
//! pairs, and the thresholds every noise line reads from it.
//!
//! - [`class`]: the classes of metric and the one table that puts each judged metric in its class;
//! - [`threshold`]: the threshold of a metric ([`Thresholds::for_metric`]): its class's calibrated smallest
//!   detectable ratio, else the run's uncalibrated default, labelled as such;
//! - [`pairs`]: A/A pairs from one contestant's `2F` processes, the false-separation rate at a threshold, and the
//!   smallest detectable ratio;
//! - [`file`]: `calibration.json`, and which calibration a run may read (the same testbed and build, its process
//!   count);
//! - [`paired`]: a user's own two contestants in alternating processes (`--paired A,B`), A against B with its
//!   interval and the smallest ratio the pairing itself can tell;
//! - [`modes`]: process medians that fall into two separated groups, which no verdict treats as one population
//!   without saying so.
//!
//! Anchors: Kalibera and Jones (ISMM 2013) for repeating at the level where the variance is (the process);
//! Mytkowicz et al. (ASPLOS 2009) for varying the environment's size, which alone biases results; google
//! benchmark's random interleaving for the rotation of the order.

pub mod class;
pub mod file;
pub mod modes;
pub mod paired;
pub mod paired_answer;
pub mod pairs;
pub mod threshold;

pub use class::{class_of, MetricClass};
pub use file::{Calibration, ClassCalibration, Pool};
pub use modes::{mark_modes, modes};
pub use pairs::{Pair, Rate};
pub use threshold::{Threshold, ThresholdSource, Thresholds};
