//! How one item's I/O call is made: through the shared simulated device, or on the caller's own timer.

use std::sync::Arc;
use std::time::Duration;

use dependency::{Config, Dependency};
use pipelines::calls::OnceLedger;

/// Why a contestant did not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// The machine cannot run it (the OS would not make the threads); the reason is what the OS said.
    #[error("{0}")]
    Skipped(String),
    /// It broke: a thread panicked, a runtime could not start.
    #[error("{0}")]
    Broken(String),
}

/// One item's call: the same answer ([`Dependency::answer`]) whichever way it is made, so every contestant's
/// sum can be checked against the same formula.
#[derive(Debug, Clone)]
pub enum Call {
    /// Through the shared client: the simulated device ([`Dependency`]) with its own two timer threads, which a
    /// thread waits on ([`dependency::Completion::wait`]) and a task awaits.
    Shared(Arc<Dependency>),
    /// No device: the caller's own timer sleeps for the service time (`tokio::time::sleep` in a task,
    /// `std::thread::sleep` on a thread, `may::coroutine::sleep` in a coroutine), then computes the answer
    /// itself.
    OwnTimer(Duration),
    /// Conformance checks only (no timed run builds one): the inner call, except that the calls of the inputs
    /// [`FaultyCall`] names fail at once with a [`CallFailed`], without reaching the device or the timer.
    Faulty(Arc<FaultyCall>),
}

/// A call whose chosen inputs fail at once: the conformance checks' failing call.
#[derive(Debug)]
pub struct FaultyCall {
    /// How every other input is called (not itself faulty).
    pub inner: Call,
    /// The inputs whose calls fail, as ranges.
    pub fail: Vec<std::ops::Range<u64>>,
    /// Where every call made is noted, if anywhere: the caller-cancel check's witness that no input was called
    /// twice.
    pub ledger: Option<OnceLedger>,
}

/// The multiplier of [`Dependency::answer`] and its inverse modulo 2^64 (Newton's iteration from the odd
/// multiplier itself, right to 3 bits, doubling them each step): below 2^29 an answer is its input times the
/// multiplier, so the input is the answer times the inverse.
const ANSWER_MUL: u64 = 0x9E37_79B9_7F4A_7C15;
const ANSWER_INV: u64 = {
    let mut inverse = ANSWER_MUL;
    let mut step = 0;
    while step < 5 {
        inverse = inverse.wrapping_mul(2u64.wrapping_sub(ANSWER_MUL.wrapping_mul(inverse)));
        step += 1;
    }
    inverse
};

/// The input below `items` whose answer ([`Dependency::answer`]) is `answer`, if there is one (`items` at
/// most [`DeliveryLedger::MAX_ITEMS`]).
pub fn input_of(answer: u64, items: u64) -> Option<u64> {
    let input = answer.wrapping_mul(ANSWER_INV);
    (input < items && Dependency::answer(input) == answer).then_some(input)
}

/// Which inputs each delivered answer came from: the caller-cancel check's witness that every answer a run
/// delivered was delivered once, from an input that was called (conformance checks only: the meter that feeds
/// it, [`crate::job::LedgerMeter`], is never built for a timed or accounting iteration).
#[derive(Debug)]
pub struct DeliveryLedger {
    items: u64,
    delivered: OnceLedger,
}

/// What a [`DeliveryLedger`] saw, set against the [`OnceLedger`] of the same run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Deliveries {
    /// Answers delivered.
    pub answers: u64,
    /// Answers of an input whose answer had already been delivered.
    pub twice: u64,
    /// Answers that are no input's answer in `0..items`.
    pub foreign: u64,
    /// Distinct inputs whose answer was delivered although the input was never called.
    pub never_called: u64,
}

impl DeliveryLedger {
    /// The most items a ledger resolves: below 2^29 an answer is its input times an odd number.
    pub const MAX_ITEMS: u64 = 1 << 29;

    /// A ledger for the answers of inputs `0..items` (at most [`DeliveryLedger::MAX_ITEMS`]).
    pub fn new(items: u64) -> DeliveryLedger {
        assert!(items <= Self::MAX_ITEMS, "a delivery ledger resolves at most 2^29 inputs, not {items}");
        DeliveryLedger { items, delivered: OnceLedger::new(items) }
    }

    /// Note one delivered answer.
    pub fn note(&self, answer: u64) {
        match input_of(answer, self.items) {
            Some(input) => self.delivered.note(input),
            None => self.delivered.note_outside(),
        }
    }

    /// What it saw so far, with the inputs `calls` never saw called.
    pub fn against(&self, calls: &OnceLedger) -> Deliveries {
        let noted = self.delivered.counts();
        Deliveries {
            answers: noted.notes,
            twice: noted.twice,
            foreign: noted.outside,
            never_called: self.delivered.seen_not_in(calls),
        }
    }
}

impl FaultyCall {
    /// Whether the call of `input` fails.
    pub fn fails(&self, input: u64) -> bool {
        self.fail.iter().any(|range| range.contains(&input))
    }

    /// How `input` is called: the inner call, or the failure.
    fn route(&self, input: u64) -> Result<Direct<'_>, CallFailed> {
        if let Some(ledger) = &self.ledger {
            ledger.note(input);
        }
        match &self.inner {
            _ if self.fails(input) => Err(CallFailed { input, reason: "injected failure".to_string() }),
            Call::Faulty(_) => Err(CallFailed { input, reason: "a faulty call around a faulty call".to_string() }),
            inner => inner.direct(input),
        }
    }
}

/// How a call is made once a faulty call has let its input through: on the device, or on the caller's timer.
enum Direct<'a> {
    /// Through the shared device.
    Device(&'a Dependency),
    /// The caller's own timer, for the service time.
    Own(Duration),
}

/// A device call's answer, or the failure naming `input`.
fn answered(input: u64, reply: dependency::CallResult) -> Result<u64, CallFailed> {
    reply.map(|reply| reply.value).map_err(|e| CallFailed { input, reason: e.to_string() })
}

/// Whose timer a call waits on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timer {
    /// The shared simulated device ([`Call::Shared`]).
    Device,
    /// The contestant's own timer ([`Call::OwnTimer`]): `tokio::time::sleep` or `std::thread::sleep`.
    Own,
}

/// A call the device refused or lost: it was shut down, or overloaded (which an unlimited device never is).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("call {input} failed: {reason}")]
pub struct CallFailed {
    /// The item whose call failed.
    pub input: u64,
    /// What the device said.
    pub reason: String,
}

impl Call {
    /// The call of a run on `timer` with `service` time per call: a fresh device of unlimited capacity (its
    /// two timer threads started), or the caller's own timer.
    pub fn start(timer: Timer, service: Duration) -> Result<Call, RunError> {
        match timer {
            Timer::Own => Ok(Call::OwnTimer(service)),
            Timer::Device => Dependency::start(Config { capacity: usize::MAX, service, ..Config::default() })
                .map(|device| Call::Shared(Arc::new(device)))
                .map_err(|e| RunError::Broken(format!("cannot start the device: {e}"))),
        }
    }

    /// How `input` is called: directly, or through a faulty call's routing.
    #[inline]
    fn direct(&self, input: u64) -> Result<Direct<'_>, CallFailed> {
        match self {
            Call::Shared(device) => Ok(Direct::Device(device)),
            Call::OwnTimer(service) => Ok(Direct::Own(*service)),
            Call::Faulty(faulty) => faulty.route(input),
        }
    }

    /// Awaits the call from a tokio task.
    ///
    /// Through the shared client, the completion is wrapped in [`tokio::task::coop::cooperative`], so it
    /// spends the task's cooperative budget the way a client built on tokio's own sockets and timers does
    /// (without it, the simulated client would be the one I/O future in the tokio world that never yields, and
    /// the budget trap this scenario exposes could not show up). `tokio::time::sleep` spends budget by itself.
    pub async fn call_async(&self, input: u64) -> Result<u64, CallFailed> {
        match self.direct(input)? {
            Direct::Device(device) => answered(input, tokio::task::coop::cooperative(device.call(input)).await),
            Direct::Own(service) => {
                tokio::time::sleep(service).await;
                Ok(Dependency::answer(input))
            }
        }
    }

    /// Makes the call on this thread, blocking it until the answer arrives.
    pub fn call_blocking(&self, input: u64) -> Result<u64, CallFailed> {
        self.call_waiting(input, std::thread::sleep)
    }

    /// Makes the call from a `may` coroutine, parking the coroutine (never its carrier thread) until the answer
    /// arrives: the device's completion is coroutine-aware ([`dependency::Completion::wait`]); on its own timer
    /// the coroutine sleeps with `may::coroutine::sleep` (on `may`'s timer). Outside a coroutine it behaves as
    /// [`Call::call_blocking`].
    pub fn call_coroutine(&self, input: u64) -> Result<u64, CallFailed> {
        self.call_waiting(input, may::coroutine::sleep)
    }

    /// Makes the call waiting on the device's completion, or on the caller's own timer with `sleep`.
    #[inline]
    fn call_waiting(&self, input: u64, sleep: impl FnOnce(Duration)) -> Result<u64, CallFailed> {
        match self.direct(input)? {
            Direct::Device(device) => answered(input, device.call(input).wait()),
            Direct::Own(service) => {
                sleep(service);
                Ok(Dependency::answer(input))
            }
        }
    }

    /// Stop the device's timer threads, if the call goes through the device.
    pub fn shut_down(&self) {
        if let Some(device) = self.device() {
            device.shutdown();
        }
    }

    /// The device behind the call, if it is shared.
    pub fn device(&self) -> Option<&Dependency> {
        match self {
            Call::Shared(device) => Some(device),
            Call::OwnTimer(_) => None,
            Call::Faulty(faulty) => faulty.inner.device(),
        }
    }
}

/// The sum every contestant must produce over items `0..items`: the answers of every call, wrapping.
pub fn expected_sum(items: u64) -> u64 {
    (0..items).fold(0u64, |sum, i| sum.wrapping_add(Dependency::answer(i)))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn both_ways_of_calling_give_the_device_answer() {
        let device = Arc::new(
            Dependency::start(Config {
                capacity: usize::MAX,
                service: Duration::from_micros(200),
                ..Config::default()
            })
            .unwrap(),
        );
        let calls = [Call::Shared(device), Call::OwnTimer(Duration::from_micros(200))];
        let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        for call in &calls {
            assert_eq!(call.call_blocking(5), Ok(Dependency::answer(5)));
            assert_eq!(rt.block_on(call.call_async(6)), Ok(Dependency::answer(6)));
        }
        assert_eq!(calls[0].device().map(|d| d.stats().completed), Some(2));
        assert!(calls[1].device().is_none());
    }

    #[test]
    fn a_shut_down_device_fails_the_call_naming_the_item() {
        let device = Arc::new(Dependency::start(Config { capacity: usize::MAX, ..Config::default() }).unwrap());
        device.shutdown();
        let err = Call::Shared(device).call_blocking(9).unwrap_err();
        assert_eq!(err.input, 9);
    }

    #[test]
    fn every_answer_below_the_ledger_limit_names_its_input() {
        for input in [0, 1, 2, 63, 64, 999_999, DeliveryLedger::MAX_ITEMS - 1] {
            assert_eq!(input_of(Dependency::answer(input), DeliveryLedger::MAX_ITEMS), Some(input));
        }
        assert_eq!(input_of(Dependency::answer(10), 10), None, "an input outside the run");
        assert_eq!(input_of(12_345, 1_000_000), None, "no input's answer");
    }

    #[test]
    fn the_delivery_ledger_counts_repeats_strangers_and_inputs_never_called() {
        let (calls, deliveries) = (OnceLedger::new(200), DeliveryLedger::new(200));
        for input in [3, 70, 71] {
            calls.note(input);
        }
        for input in [3, 70, 70, 150] {
            deliveries.note(Dependency::answer(input));
        }
        deliveries.note(Dependency::answer(5_000));
        deliveries.note(7);
        assert!(calls.seen(70) && !calls.seen(150));
        assert_eq!(deliveries.against(&calls), Deliveries { answers: 6, twice: 1, foreign: 2, never_called: 1 });
    }

    #[test]
    fn the_expected_sum_adds_every_answer() {
        assert_eq!(
            expected_sum(3),
            Dependency::answer(0).wrapping_add(Dependency::answer(1)).wrapping_add(Dependency::answer(2))
        );
        assert_eq!(expected_sum(0), 0);
    }
}
