//! Conformance checks every hand-off contestant must pass before its timings mean anything: the shared kit's
//! checks ([`pipelines::conformance`]) on each registered contestant as it is, under the hand-off's [`Handoff`]
//! declaration. Producer faults (`producer_error`, `producer_panic`) fire at its first, 1,000th and last item;
//! the producer may run ahead of the consumer by no more than the contestant's bound (and, after a cancel, a
//! message); bare reference pairs skip what they cannot be asked (their `not_applicable`).

use std::sync::Arc;

use measure::summary::Check;
use pipelines::conformance::{self as kit, Sizes, Words};

use crate::job::{injected_panic_message, Fault, HandoffConfig, HandoffError, ProducerSite, Side};

/// Every check of `contestant` under `config`, in order: `checksum`, `exactly_once`, `bounded_outstanding`,
/// `early_stop`, then the faults (`producer_error`, `producer_panic`, `clean_after_faults` on one prepared
/// contestant), then `caller_cancel`.
pub fn all<C: ?Sized + kit::Contestant<Handoff> + 'static>(contestant: &Arc<C>, config: &HandoffConfig) -> Vec<Check> {
    kit::all(&kit::Checked::<Handoff, C>::new(contestant, config))
}

/// The wrapping sum of `0..items`: what every summing consumer must return.
pub fn reference_sum(items: u64) -> u64 {
    let n = u128::from(items);
    // The exact triangle number, truncated to 64 bits, is the wrapping sum.
    (n * n.saturating_sub(1) / 2) as u64
}

/// The hand-off as the conformance kit checks it: `0..items` in order, faults in the producer ([`ProducerSite`]).
#[derive(Debug, Clone, Copy)]
pub struct Handoff;

impl kit::Declaration for Handoff {
    type Config = HandoffConfig;
    type Input = u64;
    type Site = ProducerSite;
    type Error = HandoffError;
    const SOURCE: ProducerSite = ProducerSite;
    // Enough items for many refills of every channel, and not a multiple of the default batch.
    const SIZES: Sizes = Sizes { items: 10_000, early_stop_items: 1_000_000, sum_works: &[0], work: 0 };
    const WORDS: Words = Words {
        error_check: "producer_error",
        panic_check: "producer_panic",
        parties: "producer/consumer threads or tasks",
        counted: "the producer emitted",
        point: "item",
        stopped: "it",
    };

    fn is_injected(err: &HandoffError, fault: &Fault) -> bool {
        match (err, fault.action) {
            (HandoffError::Producer(e), kit::FaultAction::Error) => e.at == fault.at,
            (HandoffError::Panicked { side: Side::Producer, message }, kit::FaultAction::Panic) => {
                *message == injected_panic_message(fault.at)
            }
            _ => false,
        }
    }

    /// The bound (a contestant that hands nothing off generates exactly what it delivers), plus, after a cancel,
    /// the message the consumer was taking.
    fn runs_ahead(bound: Option<u64>, items_per_message: Option<usize>, cancel: bool) -> Option<u64> {
        let message = if cancel { items_per_message.unwrap_or(1) as u64 } else { 0 };
        Some(bound.unwrap_or(0) + message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_sum_is_the_triangle_number() {
        assert_eq!(reference_sum(0), 0);
        assert_eq!(reference_sum(20_000), 20_000 * 19_999 / 2);
    }
}
