//! What one run of a hand-off contestant is asked to do ([`Job`]), what it returns ([`Outcome`],
//! [`HandoffError`]), and the test-only producer behaviour (counting, failing or panicking at an item).

use std::convert::Infallible;
use std::fmt;

use measure::meter::NoMeter;
use pipelines::conformance as kit;
use pipelines::InjectedPanic;

/// What the consumer does with the items (`Sum` is the measured work; the others serve the conformance checks),
/// what an injected producer fault does, and what a run returns (the sum with the items counted and the first out
/// of order, or the items): the items contract's own.
pub use pipelines::conformance::{Consume as Consumer, FaultAction, Outcome};

/// Parties that can hold a message outside the channel: the producer (the message it is blocked sending) and
/// the consumer (the message it has just taken and not yet accounted for).
pub const HOLDERS: usize = 2;

/// How a contestant packs items into messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Packing {
    /// One item per message.
    PerItem,
    /// `capacity / messages` items per message (at least 1, at most `batch`): the channel holds `messages`
    /// messages, room for the producer to run ahead.
    Batched,
    /// The whole capacity in one message, so the channel holds one message and producer and consumer take turns:
    /// the pathology of a batch as large as the channel, kept as its own labelled row.
    OneMessage,
}

impl Packing {
    /// The suffix of a contestant's name: none, `-batched` or `-one-message`.
    pub fn suffix(self) -> &'static str {
        match self {
            Packing::PerItem => "",
            Packing::Batched => "-batched",
            Packing::OneMessage => "-one-message",
        }
    }
}

/// Channel sizing shared by every contestant of one trial.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandoffConfig {
    /// Items the channel holds (at least 1), whatever the packing.
    pub capacity: usize,
    /// Most items per message for the batched contestants (at least 1).
    pub batch: usize,
    /// Messages a batched channel holds (at least 1): its batch is `capacity / messages` items, at most `batch`.
    pub messages: usize,
}

impl Default for HandoffConfig {
    fn default() -> Self {
        HandoffConfig { capacity: 256, batch: 256, messages: 16 }
    }
}

impl HandoffConfig {
    /// Items each message carries under `packing`.
    pub fn items_per_message(&self, packing: Packing) -> usize {
        match packing {
            Packing::PerItem => 1,
            Packing::Batched => (self.capacity / self.messages.max(1)).clamp(1, self.batch.max(1)),
            Packing::OneMessage => self.capacity.max(1),
        }
    }

    /// Messages the channel holds when each carries `items_per_message` items: `capacity / items_per_message`,
    /// at least 1.
    pub fn messages(&self, items_per_message: usize) -> usize {
        (self.capacity / items_per_message.max(1)).max(1)
    }

    /// The most items a producer→channel→consumer pair can hold at once: the channel's messages plus one message
    /// in the producer's hand (admitted, blocked in `send`) and one in the consumer's (taken, not yet counted
    /// out), each of `items_per_message` items: `(messages + 2) × items_per_message`.
    pub fn bound(&self, packing: Packing) -> u64 {
        let per_message = self.items_per_message(packing);
        ((self.messages(per_message) + HOLDERS) * per_message) as u64
    }
}

/// Where a producer fault fires: the producer, the only site of the hand-off (`the producer` in the checks'
/// details, `producer` in an injected panic).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProducerSite;

impl fmt::Display for ProducerSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the producer")
    }
}

impl kit::Site for ProducerSite {
    fn name(self) -> &'static str {
        "producer"
    }
}

/// A fault injected into the producer at item `at` (counting from 0).
pub type Fault = kit::Fault<ProducerSite>;

/// The error an injected [`FaultAction::Error`] returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("injected producer error at item {at}")]
pub struct ProducerError {
    /// The item the producer failed at.
    pub at: u64,
}

/// The panic message of an injected [`FaultAction::Panic`] at item `at`.
pub fn injected_panic_message(at: u64) -> String {
    InjectedPanic { stage: kit::Site::name(ProducerSite), at }.to_string()
}

/// Counts the items the producer generated, holds at most one fault and the caller's cancel: the test-only
/// producer behaviour.
pub type Instruments = kit::Instruments<ProducerSite>;

/// How the producer behaves besides emitting `0..items`: `Clean` (the measured configuration: the producer's
/// error type is then `Infallible`, so a message `Result<u64, Infallible>` has the layout of a `u64` and the
/// error path is not in the measured code) or instrumented for a conformance check.
pub type Behaviour = kit::Behaviour<ProducerSite>;

/// One run of a hand-off contestant, metering outstanding items with `M` ([`NoMeter`] when timed): the producer
/// emits `0..input` ([`kit::Job::items`]); the meter counts items handed to the channel and not yet taken by the
/// consumer (every contestant that hands items between threads or tasks uses it; the loop baseline does not);
/// `live` counts the producer and consumer threads and tasks the contestant spawned.
pub type Job<'a, M = NoMeter> = kit::Job<'a, u64, ProducerSite, M>;

/// Which end of the hand-off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The thread or task that emits items.
    Producer,
    /// The thread or task that receives them.
    Consumer,
}

impl Side {
    /// `producer` or `consumer`.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Producer => "producer",
            Side::Consumer => "consumer",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a run, or preparing a contestant, failed.
#[derive(Debug, thiserror::Error)]
pub enum HandoffError {
    /// The producer failed; its error reached the consumer through the channel.
    #[error(transparent)]
    Producer(#[from] ProducerError),
    /// The producer or consumer panicked; the panic was caught where its thread or task was joined.
    #[error("the {side} panicked: {message}")]
    Panicked {
        /// Which end.
        side: Side,
        /// The panic message.
        message: String,
    },
    /// The OS refused to start a thread.
    #[error("could not spawn the {side} thread: {source}")]
    Spawn {
        /// Which end.
        side: Side,
        /// What the OS said.
        source: std::io::Error,
    },
    /// A task was cancelled before it finished (its runtime shut down).
    #[error("the {side} task was cancelled")]
    Cancelled {
        /// Which end.
        side: Side,
    },
    /// The runtime could not be built.
    #[error("could not prepare `{contestant}`: {message}")]
    Prepare {
        /// The contestant.
        contestant: String,
        /// What the library said.
        message: String,
    },
}

impl From<Infallible> for HandoffError {
    fn from(never: Infallible) -> Self {
        match never {}
    }
}

impl HandoffError {
    /// A caught panic of `side`.
    pub fn from_panic(side: Side, payload: &(dyn std::any::Any + Send)) -> Self {
        HandoffError::Panicked { side, message: pipelines::panic_message(payload) }
    }

    /// A tokio task of `side` that did not finish: panicked or cancelled.
    pub fn from_join(side: Side, err: tokio::task::JoinError) -> Self {
        if err.is_panic() {
            HandoffError::from_panic(side, &*err.into_panic())
        } else {
            HandoffError::Cancelled { side }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_channel_holds_the_same_items_whatever_the_packing() {
        let config = HandoffConfig { capacity: 4096, batch: 256, messages: 16 };
        assert_eq!(config.messages(1), 4096);
        assert_eq!(config.items_per_message(Packing::Batched), 256);
        assert_eq!(config.messages(256), 16);
        assert_eq!(config.bound(Packing::PerItem), 4096 + 2);
        assert_eq!(config.bound(Packing::Batched), (16 + 2) * 256);
        assert_eq!(config.bound(Packing::OneMessage), 3 * 4096);
        let small = HandoffConfig { capacity: 256, batch: 256, messages: 16 };
        assert_eq!((small.items_per_message(Packing::Batched), small.messages(16)), (16, 16));
    }

    #[test]
    fn a_channel_of_one_item_holds_one_message_of_one_item() {
        let config = HandoffConfig { capacity: 1, batch: 256, messages: 16 };
        assert_eq!(config.items_per_message(Packing::Batched), 1);
        assert_eq!(config.items_per_message(Packing::OneMessage), 1);
        assert_eq!(config.bound(Packing::PerItem), 3);
        assert_eq!(config.bound(Packing::Batched), 3);
    }

    #[test]
    fn an_injected_panic_names_the_producer() {
        let instruments =
            Instruments::new(ProducerSite, Some(Fault { site: ProducerSite, at: 0, action: FaultAction::Panic }));
        let caught = std::panic::catch_unwind(|| instruments.tick(ProducerSite));
        let message = caught.err().map(|p| pipelines::panic_message(&*p));
        assert_eq!(message, Some(injected_panic_message(0)));
    }
}
