//! What the conformance tests share: the sizings every contestant is checked under.

use handoff::HandoffConfig;

/// The default sizing; a channel of one item (the futures channel is then `channel(0)`); and batches of 16 in
/// a channel of 4 items, so batched channels hold one batch, more than their capacity.
pub(crate) fn configs() -> [HandoffConfig; 3] {
    [
        HandoffConfig::default(),
        HandoffConfig { capacity: 1, batch: 256, messages: 16 },
        HandoffConfig { capacity: 4, batch: 16, messages: 2 },
    ]
}
