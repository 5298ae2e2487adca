//! How the handoff scenario answers a user's shape in `lab advise`: items that may be grouped, handed off one item
//! or one batch per message, through a channel of 1,024 items and one of 16.

use measure::advice::{Advice, Mistake, Shape, Side, Sweep};

/// Nanoseconds per item of a hand-off (a loose upper figure for estimates).
const NS_PER_ITEM: f64 = 200.0;

/// Handoff answers a batchable shape: at the user's items (at most 25,000 small ones), at both capacities.
pub fn advise(shape: &Shape, _rounds: u64) -> Option<Advice> {
    if !shape.batchable {
        return None;
    }
    let why = "items may be grouped: the hand-off between stages, one item or one batch per message".to_string();
    Some(Advice {
        mistake: Some(Mistake::new(
            "blocking-crossbeam-one-message",
            "one batch as large as the channel: producer and consumer take turns",
        )),
        sweep: Some(Sweep::new("capacity", "the channel's capacity", 1024, 16, "a channel of 16 items".to_string())),
        cpu_metric: Some(super::CPU_PER_ITEM),
        iteration_s: shape.items as f64 * NS_PER_ITEM / 1e9 * 2.0,
        target: shape.per_million_target(),
        ..Advice::new(Side::Batching, why)
            .param("items", vec![shape.items])
            .param("small_items", vec![shape.items.min(25_000)])
            .param("capacity", vec![1024, 16])
    })
}
