//! The items contract: what one run of an items contestant is asked to do ([`Job`]) and what it returns
//! ([`Outcome`]), the same types in timed iterations and in the conformance checks. A timed job is
//! [`Behaviour::Clean`] with [`NoMeter`], so a contestant's generic code, instantiated for it, carries no hook and
//! no meter; a checked job carries [`Instruments`] (the probe: a count at the source, at most one [`Fault`], or
//! the caller's cancel) and a gauge meter.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use measure::meter::NoMeter;

use crate::cancel::CallerCancel;
use crate::{InjectedPanic, LiveStages};

/// What the consumer of a run does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consume {
    /// Sum the items: the measured work.
    Sum,
    /// Collect every item, in arrival order.
    Collect,
    /// Take the first `k` items, then drop its end.
    Take(usize),
    /// Collect items until the caller cancels ([`Instruments::cancel`]), then drop its end.
    Cancellable,
}

/// How an injected fault shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultAction {
    /// The site returns an error.
    Error,
    /// The site panics.
    Panic,
}

/// A fault injected at element `at` (from 0, in the order `site` sees them) of `site`, acting as `action` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct Fault<S> {
    pub site: S,
    pub at: u64,
    pub action: FaultAction,
}

/// Where a fault can fire: a stage, the producer, an operation.
pub trait Site: Copy + PartialEq + fmt::Display + fmt::Debug + Send + Sync + 'static {
    /// Its name in an injected panic's payload ([`InjectedPanic::stage`]).
    fn name(self) -> &'static str;
}

impl Site for &'static str {
    fn name(self) -> &'static str {
        self
    }
}

/// What a job's source emits: the items `0..n`, in the form the scenario's contestants read them.
pub trait Input: fmt::Debug + Send + Sync + 'static {
    /// The input of `items` items.
    fn of(items: u64) -> Self;
    /// How many items it holds.
    fn items(&self) -> u64;
}

/// The count `n` of the items `0..n` (a producer that makes its items).
impl Input for u64 {
    fn of(items: u64) -> Self {
        items
    }

    fn items(&self) -> u64 {
        *self
    }
}

/// The values `0..n` themselves (a source that reads a slice; shared, so that tasks needing `'static` data can
/// hold a reference count).
impl Input for Arc<[u64]> {
    fn of(items: u64) -> Self {
        (0..items).collect::<Vec<u64>>().into()
    }

    fn items(&self) -> u64 {
        self.len() as u64
    }
}

/// A checked run's probe: counts the source's elements, holds at most one fault and the caller's cancel, which
/// it passes the source's count to.
#[derive(Debug)]
pub struct Instruments<S> {
    source: S,
    seen: AtomicU64,
    fault: Option<Fault<S>>,
    fault_seen: AtomicU64,
    cancel: Option<Arc<CallerCancel>>,
}

impl<S: Site> Instruments<S> {
    /// Count the elements of `source`, and inject `fault` if given.
    pub fn new(source: S, fault: Option<Fault<S>>) -> Self {
        Instruments { source, seen: AtomicU64::new(0), fault, fault_seen: AtomicU64::new(0), cancel: None }
    }

    /// Count the elements of `source`; the caller cancels the run with `cancel` when it reaches its point.
    pub fn cancelled_by(source: S, cancel: Arc<CallerCancel>) -> Self {
        Instruments { cancel: Some(cancel), ..Instruments::new(source, None) }
    }

    /// Elements the source has seen so far.
    pub fn seen(&self) -> u64 {
        self.seen.load(Ordering::Relaxed)
    }

    /// The injected fault, if there is one.
    pub fn fault(&self) -> Option<Fault<S>> {
        self.fault
    }

    /// The caller's cancellation, if the run has one.
    pub fn cancel(&self) -> Option<&Arc<CallerCancel>> {
        self.cancel.as_ref()
    }

    /// One element of `site`: counted (and passed to the caller's cancel) at the source; where the fault is,
    /// `Err` with the element's number for an injected error, or a panic with an [`InjectedPanic`] payload.
    #[inline]
    pub fn tick(&self, site: S) -> Result<(), u64> {
        let mut n = None;
        if site == self.source {
            let seen = self.seen.fetch_add(1, Ordering::Relaxed);
            if let Some(cancel) = &self.cancel {
                cancel.pass(seen);
            }
            n = Some(seen);
        }
        match self.fault {
            Some(f) if f.site == site => {
                let at = n.unwrap_or_else(|| self.fault_seen.fetch_add(1, Ordering::Relaxed));
                match (at == f.at, f.action) {
                    (false, _) => Ok(()),
                    (true, FaultAction::Error) => Err(at),
                    (true, FaultAction::Panic) => std::panic::panic_any(InjectedPanic { stage: site.name(), at }),
                }
            }
            _ => Ok(()),
        }
    }
}

/// How the source and stages behave besides their work.
#[derive(Debug, Default)]
pub enum Behaviour<S> {
    /// Nothing else: the measured configuration. Contestants instantiate their generic code with hooks whose
    /// error type is `Infallible` for it, so the error path does not exist in the measured machine code.
    #[default]
    Clean,
    /// Count the source's elements and maybe inject a fault or hear the caller's cancel (conformance only).
    Instrumented(Arc<Instruments<S>>),
}

impl<S> Clone for Behaviour<S> {
    fn clone(&self) -> Self {
        match self {
            Behaviour::Clean => Behaviour::Clean,
            Behaviour::Instrumented(instruments) => Behaviour::Instrumented(Arc::clone(instruments)),
        }
    }
}

impl<S: Site> Behaviour<S> {
    /// The caller's cancellation of an instrumented run, if it has one.
    pub fn cancel(&self) -> Option<&Arc<CallerCancel>> {
        match self {
            Behaviour::Clean => None,
            Behaviour::Instrumented(instruments) => instruments.cancel(),
        }
    }

    /// The injected fault of an instrumented run, if it has one.
    pub fn fault(&self) -> Option<Fault<S>> {
        match self {
            Behaviour::Clean => None,
            Behaviour::Instrumented(instruments) => instruments.fault(),
        }
    }

    /// Elements the source of an instrumented run has seen (0 when clean).
    pub fn seen(&self) -> u64 {
        match self {
            Behaviour::Clean => 0,
            Behaviour::Instrumented(instruments) => instruments.seen(),
        }
    }
}

/// One run of an items contestant: the source emits `input` with `work` per item (for scenarios whose items
/// carry some), the source and stages behave as `behaviour` says, the consumer as `consumer` says; `meter`
/// counts outstanding items ([`NoMeter`] when timed, where its calls compile away), `live` the run's threads and
/// tasks.
#[derive(Debug)]
pub struct Job<'a, In, S, M = NoMeter> {
    /// The items `0..n`, as the scenario's contestants read them.
    pub input: &'a In,
    /// The work per item.
    pub work: u32,
    /// Clean, or instrumented for a conformance check.
    pub behaviour: &'a Behaviour<S>,
    /// What the consumer does.
    pub consumer: Consume,
    /// Counts items handed between threads or tasks and not yet consumed; only contestants that hand items off
    /// use it.
    pub meter: M,
    /// Live threads and tasks the contestant spawned.
    pub live: &'a Arc<LiveStages>,
}

impl<In: Input, S, M> Job<'_, In, S, M> {
    /// How many items the source emits.
    pub fn items(&self) -> u64 {
        self.input.items()
    }
}

/// What a run returned: a sum (with the items counted and the first out of order, where the consumer checks
/// them), or the items received in arrival order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// What a summing consumer saw ([`Consume::Sum`]).
    Sum {
        /// The wrapping sum of every item.
        sum: u64,
        /// Items received, where the consumer counts them.
        count: Option<u64>,
        /// The index of the first item that was not equal to its index, where the consumer checks order.
        first_disorder: Option<u64>,
    },
    /// The items received, in arrival order ([`Consume::Collect`], [`Consume::Take`], [`Consume::Cancellable`]).
    Items(Vec<u64>),
}

impl Outcome {
    /// The sum of a consumer that neither counts nor checks order.
    pub fn sum(sum: u64) -> Outcome {
        Outcome::Sum { sum, count: None, first_disorder: None }
    }
}

impl From<Vec<u64>> for Outcome {
    /// The items a collecting consumer received, in arrival order.
    fn from(items: Vec<u64>) -> Outcome {
        Outcome::Items(items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instruments_count_the_source_and_fail_where_told() {
        let fault = Fault { site: "b", at: 1, action: FaultAction::Error };
        let instruments = Instruments::new("a", Some(fault));
        assert_eq!((instruments.tick("a"), instruments.tick("b"), instruments.tick("a")), (Ok(()), Ok(()), Ok(())));
        assert_eq!(instruments.tick("b"), Err(1));
        assert_eq!((instruments.seen(), instruments.tick("b")), (2, Ok(())));
    }

    #[test]
    fn an_injected_panic_names_its_site() {
        let instruments = Instruments::new("a", Some(Fault { site: "a", at: 0, action: FaultAction::Panic }));
        let caught = std::panic::catch_unwind(|| instruments.tick("a"));
        let message = caught.err().map(|p| crate::panic_message(&*p));
        assert_eq!(message.as_deref(), Some("injected panic in stage `a` at its element 0"));
    }
}
