//! Brackets one iteration: starts the 1 ms sampler and reads every clock and counter before, settles CPU
//! accounting and reads them again after, and turns the differences into the contract's metrics.

use std::sync::Arc;

use crate::gauge::Outstanding;
use crate::record::{MetricValues, Series};

/// An iteration being measured. Create it right before the contestant starts; finish it after every thread
/// and task the contestant started has ended.
#[derive(Debug)]
pub struct Probe {
    _private: (),
}

/// What one iteration cost, in raw units; [`Measurement::metrics`] names them as in the contract.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// Items (or calls) the iteration processed, the divisor of every per-item metric.
    pub items: u64,
    /// Wall-clock time of the iteration, in nanoseconds.
    pub wall_ns: u64,
    /// Process user CPU, less the sampler's and the settling sleep's, in nanoseconds.
    pub cpu_user_ns: u64,
    /// Process system CPU, less the sampler's and the settling sleep's, in nanoseconds.
    pub cpu_system_ns: u64,
    /// CPU the sampler thread itself used (already subtracted above), in nanoseconds.
    pub sampler_cpu_ns: u64,
    /// Heap allocations made during the iteration (0 where the counting allocator is not installed).
    pub allocs: u64,
    /// Bytes allocated during the iteration.
    pub alloc_bytes: u64,
    /// Voluntary plus involuntary context switches, less the sampler's.
    pub ctx_switches: u64,
    /// Exact high-water mark of the gauge, `None` if the contestant never touched it.
    pub max_outstanding: Option<u64>,
    /// Highest value the 1 ms sampler saw, `None` if the gauge was never touched.
    pub max_outstanding_sampled: Option<u64>,
    /// Most threads the process had at any sample.
    pub threads_max: u64,
    /// The gauge sampled every millisecond.
    pub outstanding_series: Series,
}

impl Probe {
    /// Reset `gauge`, start the sampler on it and read the starting clocks.
    pub fn start(gauge: Arc<Outstanding>) -> Probe {
        let _ = gauge;
        unimplemented!()
    }

    /// Stop the sampler, let CPU accounting settle, read the clocks again; `items` is the per-item divisor.
    pub fn finish(self, items: u64) -> Measurement {
        let _ = items;
        unimplemented!()
    }
}

impl Measurement {
    /// The contract's metrics: `wall_ms`, `ms_per_million`, `cpu_ns_per_item`, `cores_used`, `allocs_per_item`,
    /// `ctx_switches_per_item`, `threads`, `sampler_cpu_ms`, and `max_outstanding` /
    /// `max_outstanding_sampled` where the gauge was used.
    pub fn metrics(&self) -> MetricValues {
        unimplemented!()
    }
}
