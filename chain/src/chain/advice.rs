//! How the chain answers a user's shape in `lab advise`: CPU work per item becomes its `work` rounds (the lab
//! times [`map1`](crate::ops::map1) to map µs onto rounds), run at the user's rounds and a tenth of them.

use std::hint::black_box;

use measure::advice::{trim, Advice, CpuWork, Shape, Side, Sweep};

/// Nanoseconds of the chain's own stages per item beside the work rounds (a loose upper figure for estimates).
const BASE_NS: f64 = 50.0;

/// CPU work per item is the `work` parameter's mixing rounds of [`map1`](crate::ops::map1).
pub const CPU_WORK: CpuWork = CpuWork { param: "work", round: "mixing round", items: map1_items };

/// Items `0..items` through [`map1`](crate::ops::map1) at `rounds` rounds each (both hidden from the optimiser
/// per item, as the chain's stages see them), summed.
fn map1_items(items: u64, rounds: u32) -> u64 {
    let mut sum = 0u64;
    for x in 0..items {
        sum = sum.wrapping_add(crate::ops::map1(black_box(x), black_box(rounds)));
    }
    sum
}

/// The chain answers a shape with no I/O, or whose CPU work is at least a tenth of its I/O wait: at the user's
/// items, at `rounds` (the shape's CPU work) and a tenth of them.
pub fn advise(shape: &Shape, rounds: u64) -> Option<Advice> {
    let (cpu, io) = (shape.cpu_seconds(), shape.io_seconds());
    if shape.io_calls_per_item > 0 && cpu < 0.1 * io {
        return None;
    }
    let us = shape.cpu_us_per_item;
    let why = if shape.io_calls_per_item == 0 {
        format!("{} µs of CPU work per item and no I/O: a CPU-bound pipeline", trim(us))
    } else {
        format!(
            "{} µs of CPU work per item is at least a tenth of the I/O wait ({cpu:.2} s against {io:.2} s): the CPU \
             side matters too",
            trim(us)
        )
    };
    let other = rounds / 10;
    let label = format!("{} µs of CPU work per item", trim(us / 10.0));
    let per_phase = |us: f64| shape.items as f64 * (us * 1e3 + BASE_NS) / 1e9;
    Some(Advice {
        cpu_metric: Some(super::CPU_PER_ITEM),
        sweep: Some(Sweep::new("work", "--cpu-us-per-item", rounds, other, label)),
        iteration_s: per_phase(us) + per_phase(us / 10.0),
        target: shape.per_million_target(),
        work_ns_per_item: us * 1000.0,
        ..Advice::new(Side::Cpu, why).param("items", vec![shape.items]).param("work", vec![rounds, other])
    })
}
