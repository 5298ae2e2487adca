//! A thread that samples the outstanding-work gauge and the process's thread count every millisecond, and
//! measures its own CPU so the probe can subtract it.

use std::sync::Arc;

use crate::cpu::Usage;
use crate::gauge::Outstanding;
use crate::record::Series;

/// The running sampler; [`Sampler::stop`] joins it and returns what it saw.
#[derive(Debug)]
pub struct Sampler {
    _private: (),
}

/// What the sampler saw, and what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampled {
    /// Highest gauge value seen at any sample.
    pub max_outstanding: u64,
    /// The gauge at every sample.
    pub series: Series,
    /// Most threads the process had at any sample.
    pub threads_max: u64,
    /// The sampler thread's own CPU and context switches, from `RUSAGE_THREAD` just before it ended.
    pub own_usage: Usage,
}

impl Sampler {
    /// Start sampling `gauge` every `period_ms` milliseconds.
    pub fn start(gauge: Arc<Outstanding>, period_ms: f64) -> Sampler {
        let _ = (gauge, period_ms);
        unimplemented!()
    }

    /// Stop and join the sampler.
    pub fn stop(self) -> Sampled {
        unimplemented!()
    }
}
