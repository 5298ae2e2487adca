//! How the overload scenario answers a user's shape in `lab advise`: a dependency that loses capacity, from the
//! user's in-flight bound to its capacity after the loss, with the unbounded stream as the mistake row.

use measure::advice::{Advice, Mistake, Shape, Side};

/// Overload answers a shape whose dependency loses capacity: at the user's latency, slots before and after the
/// drop, with every limit at most the bound.
pub fn advise(shape: &Shape, _rounds: u64) -> Option<Advice> {
    if !shape.loses_capacity || shape.io_calls_per_item == 0 {
        return None;
    }
    let why = format!(
        "the dependency can lose capacity: {} slots drop to {} mid-run, {} ms per call",
        shape.in_flight, shape.capacity_after, shape.io_latency_ms
    );
    let why = if shape.ordered {
        format!(
            "{why} (its contestants answer as calls complete, out of item order: this answer is for unordered results)"
        )
    } else {
        why
    };
    // The scenario drops the capacity only once every limit has settled (at least 300 ms healthy): fewer calls
    // than its own default run out before that, and its `settled_before_drop` check fails. So it runs at least its
    // default number of calls, and says so.
    let calls = shape.calls().max(super::DEFAULT_CALLS);
    let why = if calls > shape.calls() {
        format!("{why}; run with {calls} calls, overload's default, so that every limit settles before the drop")
    } else {
        why
    };
    let floor = shape.capacity_after.min(20);
    let half = calls as f64 / 2.0;
    let waits = half / shape.in_flight as f64 + half / shape.capacity_after.max(1) as f64;
    let mut advice = Advice::new(Side::LostCapacity, why);
    for (key, value) in [
        ("calls", calls),
        ("capacity", shape.in_flight),
        ("capacity_after", shape.capacity_after),
        ("service_ms", shape.io_latency_ms),
        ("fixed_limit", shape.in_flight),
        ("max_limit", shape.in_flight),
        ("initial_limit", floor),
        ("min_limit", floor),
    ] {
        advice = advice.param(key, vec![value]);
    }
    Some(Advice {
        mistake: Some(Mistake::new("stream-unbounded", "no admission control: every call issued at once")),
        // The adaptive limiters take about twice the fixed bound's time (they climb from their floor); an
        // accounting iteration is shorter, counted in full here.
        iteration_s: 2.0 * waits * shape.io_latency_ms as f64 / 1e3,
        ..advice
    })
}
