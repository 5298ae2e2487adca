//! Conformance checks every hand-off contestant must pass before its timings mean anything: the shared kit's
//! checks ([`pipelines::conformance`]), run with the hand-off's sizes on [`Checked`], its view of a contestant.
//! Producer faults (`producer_error`, `producer_panic`) fire at its first, 1,000th and last item; the
//! producer may run ahead of the consumer by no more than the contestant's bound (and, after a cancel, a
//! message); bare reference pairs skip what they cannot be asked (`contestants::not_applicable`).

use std::sync::Arc;

use measure::summary::Check;
use pipelines::conformance::{self as kit, CheckedJob, Sizes, Words};

use crate::handoff::contestants::{HandoffContestant, PreparedHandoff};
use crate::job::{injected_panic_message, Fault, HandoffConfig, HandoffError, Outcome, ProducerSite, Side};

/// Every check, in order: `checksum`, `exactly_once`, `bounded_outstanding`, `early_stop`, then the faults
/// (`producer_error`, `producer_panic`, `clean_after_faults` on one prepared contestant), then `caller_cancel`.
pub fn all(contestant: &Arc<dyn HandoffContestant>, config: &HandoffConfig) -> Vec<Check> {
    kit::all(&checked(contestant, config))
}

/// `contestant` under `config`, as the kit checks it.
pub fn checked(contestant: &Arc<dyn HandoffContestant>, config: &HandoffConfig) -> Checked {
    Checked { contestant: Arc::clone(contestant), config: *config }
}

/// The wrapping sum of `0..items`: what every summing consumer must return.
pub fn reference_sum(items: u64) -> u64 {
    let n = u128::from(items);
    // The exact triangle number, truncated to 64 bits, is the wrapping sum.
    (n * n.saturating_sub(1) / 2) as u64
}

/// A hand-off contestant under a config, as the conformance kit checks it: `0..items` in order, faults in the
/// producer ([`ProducerSite`]).
#[derive(Debug, Clone)]
pub struct Checked {
    contestant: Arc<dyn HandoffContestant>,
    config: HandoffConfig,
}

impl kit::Contestant for Checked {
    type Prepared = Box<PreparedHandoff>;
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

    fn name(&self) -> String {
        self.contestant.info().name
    }

    fn bound(&self) -> Option<u64> {
        self.contestant.bound(&self.config)
    }

    /// The bound (a contestant that hands nothing off generates exactly what it delivers), plus, after a cancel,
    /// the message the consumer was taking.
    fn runs_ahead(&self, cancel: bool) -> Option<u64> {
        let message = if cancel { self.contestant.items_per_message(&self.config).unwrap_or(1) as u64 } else { 0 };
        Some(self.bound().unwrap_or(0) + message)
    }

    fn not_applicable(&self, check: &str) -> Option<&'static str> {
        crate::handoff::contestants::not_applicable(self.contestant.as_ref(), check)
    }

    fn prepare(&self) -> Result<Self::Prepared, HandoffError> {
        self.contestant.prepare(&self.config)
    }

    fn run(&self, prepared: &Self::Prepared, job: &CheckedJob<'_, Self>) -> Result<Outcome, HandoffError> {
        prepared.run_metered(job, &mut || {})
    }

    fn is_injected(&self, err: &HandoffError, fault: &Fault) -> bool {
        match (err, fault.action) {
            (HandoffError::Producer(e), kit::FaultAction::Error) => e.at == fault.at,
            (HandoffError::Panicked { side: Side::Producer, message }, kit::FaultAction::Panic) => {
                *message == injected_panic_message(fault.at)
            }
            _ => false,
        }
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
