//! The two scenarios built on the shared contestants: [`device`] (throughput and cost per call at 1,000 to
//! 100,000 calls in flight) and [`backpressure`] (whether a bound on outstanding calls holds).

pub mod backpressure;
pub mod device;
