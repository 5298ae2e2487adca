//! How the device scenario answers a user's shape in `lab advise`: I/O calls at their latency, at the user's
//! in-flight bound and a tenth of it.

use measure::advice::{Advice, Shape, Side, Sweep};

/// Microseconds of CPU per call of the costliest candidates (a loose upper figure for estimates).
const CPU_US_PER_CALL: f64 = 25.0;

/// The candidates that answer in item order.
const ORDERED: &[&str] = &["stream-buffered"];

/// The device answers a shape with I/O calls whose wait is at least a tenth of its CPU work: at the call's latency,
/// enough rounds of the in-flight bound for the shape's calls (at most 10,000), at the bound and a tenth of it.
pub(super) fn advise(shape: &Shape, _rounds: u64) -> Option<Advice> {
    let (cpu, io) = (shape.cpu_seconds(), shape.io_seconds());
    if shape.io_calls_per_item == 0 || io < 0.1 * cpu {
        return None;
    }
    let why = format!(
        "{} I/O call(s) of {} ms per item, {} in flight: the wait dominates or matters ({io:.2} s of I/O against \
         {cpu:.2} s of CPU per core)",
        shape.io_calls_per_item, shape.io_latency_ms, shape.in_flight
    );
    let other = (shape.in_flight / 10).max(1);
    let rounds = shape.calls().div_ceil(shape.in_flight).clamp(1, 10_000);
    let values = if other == shape.in_flight { vec![shape.in_flight] } else { vec![shape.in_flight, other] };
    let iteration_ms = rounds * shape.io_latency_ms;
    let sweep = (other != shape.in_flight)
        .then(|| Sweep::new("in_flight", "--in-flight", shape.in_flight, other, format!("{other} calls in flight")));
    // Each phase lasts `rounds` waits of the latency, or longer where the calls' CPU (some 25 µs each for the
    // costliest candidates, over the cores) exceeds that; the lower in-flight level makes a tenth of the calls.
    let waits = iteration_ms as f64 / 1e3;
    let cpu = |calls: u64| calls as f64 * CPU_US_PER_CALL / 1e6 / f64::from(shape.cores.max(1));
    let calls = rounds * shape.in_flight;
    Some(Advice {
        keeps_order: Some(ORDERED.iter().map(|c| c.to_string()).collect()),
        sweep,
        cpu_metric: Some("cpu_us_per_call"),
        iteration_s: waits.max(cpu(calls)) + waits.max(cpu(calls / 10)),
        target: shape.items_per_second.map(|rate| {
            let calls = rate.saturating_mul(shape.io_calls_per_item);
            (calls as f64, format!("{rate} items per second ({calls} calls per second)"))
        }),
        ..Advice::new(Side::Io, why)
            .param("in_flight", values)
            .param("rounds", vec![rounds])
            .param("service_ms", vec![shape.io_latency_ms])
            .param("budget_ms", vec![(iteration_ms * 3).clamp(4_000, 600_000)])
    })
}
