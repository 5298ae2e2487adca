//! What a scenario declares to `lab advise`: for a user's shape of work ([`Shape`]), whether it answers it, why,
//! at which parameters, with which mistake row and swept parameter, and how long one iteration takes
//! ([`Advice`], from [`Scenario::advise`](crate::scenario::Scenario::advise)); and how CPU work per item maps onto a
//! scenario's parameter ([`CpuWork`], from [`Scenario::cpu_work`](crate::scenario::Scenario::cpu_work)). The lab
//! loops over these declarations and knows no scenario by name.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::phase::PhaseKey;

/// The shape of a user's work, as `lab advise` takes it (the default: no work at all, for struct updates).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Shape {
    /// CPU work per item, in microseconds (`--cpu-us-per-item`).
    pub cpu_us_per_item: f64,
    /// Items in all (`--items`), or one second's worth when [`Shape::items_per_second`] is given.
    pub items: u64,
    /// The rate items arrive at, per second (`--items-per-second`), if the user gave one.
    pub items_per_second: Option<u64>,
    /// I/O calls each item makes (`--io-calls-per-item`; 0: none).
    pub io_calls_per_item: u64,
    /// Latency of one I/O call, in milliseconds (`--io-latency-ms`).
    pub io_latency_ms: u64,
    /// I/O calls that may be in flight at once (`--in-flight`).
    pub in_flight: u64,
    /// Whether results must come out in item order (`--ordered`).
    pub ordered: bool,
    /// Whether the dependency called can lose capacity mid-run (`--dependency-loses-capacity`).
    pub loses_capacity: bool,
    /// The dependency's concurrent slots once it lost capacity (`--capacity-after`; default a fifth of in-flight).
    pub capacity_after: u64,
    /// Whether items may be grouped into batches between stages (`--batchable`).
    pub batchable: bool,
    /// Cores the trials run on (`--cores`), pinned with `sched_setaffinity`.
    pub cores: u32,
}

impl Shape {
    /// A short name of the shape for the output folder, such as `cpu20us-items10000-cores2`.
    pub fn slug(&self) -> String {
        let mut parts = vec![format!("cpu{}us", trim(self.cpu_us_per_item))];
        match self.items_per_second {
            Some(rate) => parts.push(format!("rate{rate}")),
            None => parts.push(format!("items{}", self.items)),
        }
        if self.io_calls_per_item > 0 {
            parts.push(format!("io{}x{}ms", self.io_calls_per_item, self.io_latency_ms));
            parts.push(format!("inflight{}", self.in_flight));
        }
        if self.ordered {
            parts.push("ordered".to_string());
        }
        if self.loses_capacity {
            parts.push(format!("drop{}", self.capacity_after));
        }
        if self.batchable {
            parts.push("batchable".to_string());
        }
        parts.push(format!("cores{}", self.cores));
        parts.join("-")
    }

    /// Seconds of CPU work the whole shape needs per core.
    pub fn cpu_seconds(&self) -> f64 {
        self.items as f64 * self.cpu_us_per_item / 1e6 / f64::from(self.cores.max(1))
    }

    /// Seconds the shape's I/O takes at its in-flight bound.
    pub fn io_seconds(&self) -> f64 {
        self.calls() as f64 * self.io_latency_ms as f64 / 1e3 / self.in_flight.max(1) as f64
    }

    /// I/O calls in all.
    pub fn calls(&self) -> u64 {
        self.items.saturating_mul(self.io_calls_per_item)
    }

    /// Where `--items-per-second` was given, the milliseconds per million items that keep up with it, and what
    /// that is: a million items in 1e6 / rate s.
    pub fn per_million_target(&self) -> Option<(f64, String)> {
        self.items_per_second.map(|rate| {
            let ms = 1e9 / rate as f64;
            (ms, format!("{rate} items per second (a million items in {} ms)", trim(ms)))
        })
    }
}

/// A number without a trailing `.0`.
pub fn trim(x: f64) -> String {
    let s = format!("{x}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// A contestant run beside the candidates to show what a common mistake costs, with its label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mistake {
    /// The contestant.
    pub name: String,
    /// What the mistake is, as the advice prints it.
    pub label: String,
}

impl Mistake {
    /// Contestant `name`, whose mistake the advice calls `label`.
    pub fn new(name: &str, label: &str) -> Mistake {
        Mistake { name: name.to_string(), label: label.to_string() }
    }
}

/// The parameter a run sweeps beside the user's value, to find what would change the answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sweep {
    /// The scenario parameter's key, such as `in_flight`.
    pub key: String,
    /// How the user's shape names it, such as `--in-flight`.
    pub flag: String,
    /// The scenario's value at the user's shape.
    pub user: u64,
    /// The other value run.
    pub other: u64,
    /// The other value in the user's unit, such as `2 µs per item`.
    pub other_label: String,
}

impl Sweep {
    /// Parameter `key` (named `flag` in the user's shape) at the user's value `user` and at `other`, described
    /// as `other_label`.
    pub fn new(key: &str, flag: &str, user: u64, other: u64, other_label: String) -> Sweep {
        Sweep { key: key.to_string(), flag: flag.to_string(), user, other, other_label }
    }

    /// The phase at the user's value.
    pub fn user_phase(&self) -> String {
        PhaseKey::default().with(&self.key, self.user).to_string()
    }

    /// The phase at the other value.
    pub fn other_phase(&self) -> String {
        PhaseKey::default().with(&self.key, self.other).to_string()
    }
}

/// The side of a user's shape a scenario answers; the advice runs its scenarios in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Side {
    /// The CPU work per item.
    Cpu,
    /// The wait on I/O calls at the in-flight bound.
    Io,
    /// A dependency that loses capacity mid-run.
    LostCapacity,
    /// Items grouped into batches between stages.
    Batching,
}

/// How a scenario answers a user's shape: what `lab advise` runs of it, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Advice {
    /// The side of the shape it answers.
    pub side: Side,
    /// Why the shape needs it, one sentence.
    pub why: String,
    /// Parameter values at the shape, by key (the rest keep their defaults).
    pub params: BTreeMap<String, Vec<u64>>,
    /// The contestants that keep item order, where not every candidate does (`None`: every one does).
    pub keeps_order: Option<Vec<String>>,
    /// The one row beside the candidates showing what a common mistake costs, if the scenario has one.
    pub mistake: Option<Mistake>,
    /// The swept parameter, if any.
    pub sweep: Option<Sweep>,
    /// The CPU metric the advice reports, if any.
    pub cpu_metric: Option<&'static str>,
    /// Estimated seconds of one iteration of every phase (a loose upper figure).
    pub iteration_s: f64,
    /// The headline value the pick must reach to keep up with `--items-per-second`, and what it is.
    pub target: Option<(f64, String)>,
    /// The CPU work of one item at the shape in nanoseconds, where the run carries it (0 where it does not).
    pub work_ns_per_item: f64,
}

impl Advice {
    /// An answer to the `side` of a shape, for the reason `why`, with nothing set yet.
    pub fn new(side: Side, why: String) -> Advice {
        Advice {
            side,
            why,
            params: BTreeMap::new(),
            keeps_order: None,
            mistake: None,
            sweep: None,
            cpu_metric: None,
            iteration_s: 0.0,
            target: None,
            work_ns_per_item: 0.0,
        }
    }

    /// Set parameter `key` to `values`.
    pub fn param(mut self, key: &str, values: Vec<u64>) -> Advice {
        self.params.insert(key.to_string(), values);
        self
    }
}

/// How CPU work per item maps onto a scenario's parameter: `lab advise` times [`CpuWork::items`] on this machine to
/// turn `--cpu-us-per-item` into rounds of it, and hands those rounds to every scenario's
/// [`advise`](crate::scenario::Scenario::advise).
#[derive(Debug, Clone, Copy)]
pub struct CpuWork {
    /// The parameter the rounds set, such as `work` (its range bounds the rounds).
    pub param: &'static str,
    /// What one round is called, as the advice prints it, such as `mixing round`.
    pub round: &'static str,
    /// The work of items `0..items` at `rounds` rounds each, returning a checksum of them: the loop timed.
    pub items: fn(u64, u32) -> u64,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// 10,000 items of 20 µs of CPU each on 2 cores, no I/O.
    pub(crate) fn shape() -> Shape {
        Shape { cpu_us_per_item: 20.0, items: 10_000, cores: 2, ..Shape::default() }
    }

    #[test]
    fn the_slug_names_the_shape() {
        let calls = Shape { io_calls_per_item: 1, io_latency_ms: 5, in_flight: 100, ..shape() };
        let dropping = Shape { ordered: true, loses_capacity: true, capacity_after: 20, ..calls };
        assert_eq!(dropping.slug(), "cpu20us-items10000-io1x5ms-inflight100-ordered-drop20-cores2");
        let batched = Shape { items_per_second: Some(50), batchable: true, cpu_us_per_item: 0.5, ..shape() };
        assert_eq!(batched.slug(), "cpu0.5us-rate50-batchable-cores2");
    }

    #[test]
    fn cpu_and_io_seconds_follow_the_cores_and_the_in_flight_bound() {
        let io = Shape { io_calls_per_item: 2, io_latency_ms: 10, in_flight: 100, ..shape() };
        assert!((io.cpu_seconds() - 0.1).abs() < 1e-12, "10,000 × 20 µs over 2 cores");
        assert_eq!(io.calls(), 20_000);
        assert!((io.io_seconds() - 2.0).abs() < 1e-12, "20,000 calls of 10 ms, 100 at a time");
    }

    #[test]
    fn a_rate_sets_the_milliseconds_per_million_items_to_keep_up_with() {
        assert_eq!(shape().per_million_target(), None);
        let (ms, words) = Shape { items_per_second: Some(5_000), ..shape() }.per_million_target().unwrap_or_default();
        assert_eq!(ms, 200_000.0);
        assert_eq!(words, "5000 items per second (a million items in 200000 ms)");
    }

    #[test]
    fn a_sweep_names_both_phases() {
        let sweep = Sweep::new("work", "--cpu-us-per-item", 15_000, 1_500, "2 µs".to_string());
        assert_eq!((sweep.user_phase(), sweep.other_phase()), ("work_15000".to_string(), "work_1500".to_string()));
    }
}
