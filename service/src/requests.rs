//! What every style's request path shares in one run ([`Requests`]): the admission bound the load generator asks
//! for each arrival, the dependency call counted against its bound, and the reply, recorded once in the book.
//! Every style takes the same steps in the same order: [`Requests::admit`] on the generator's thread, the
//! stages ([`Work::stage`]), [`Requests::call`] and [`Requests::called`] around the dependency call, then
//! [`Requests::reply`]. Under AIMD (the capacity-loss phase's second policy) the door also asks overload's
//! [`Gate`] for a permit, which the reply gives back with its outcome: every style keeps its own request path.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use dependency::{CallResult, Completion, Dependency};
use overload::book::{Book, Fate};
use overload::limit::{self, Gate, LimiterKind, Outcome, Permit};

use crate::config::{duration_us, ServiceConfig};
use crate::work::Work;

/// A deliberate fault of the request path, so the conformance checks can be shown to fail; measured runs have
/// none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Breakage {
    /// Every reply is recorded twice.
    ReplyTwice,
    /// The admission bound is never enforced.
    NoAdmissionBound,
    /// A failed dependency call is replied to as answered.
    FailureAnswered,
    /// The last arrival's reply is never recorded.
    LoseLast,
}

/// A count of things in progress, its highest value, and the bound it must stay under.
#[derive(Debug)]
pub struct Gauge {
    now: AtomicU64,
    most: AtomicU64,
    bound: u64,
}

impl Gauge {
    /// An empty gauge bounded at `bound`.
    pub fn new(bound: usize) -> Gauge {
        Gauge { now: AtomicU64::new(0), most: AtomicU64::new(0), bound: bound as u64 }
    }

    /// Enter, unless the count is at its bound (or, with `unbounded`, always).
    fn try_enter(&self, unbounded: bool) -> bool {
        let entered = self
            .now
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (unbounded || n < self.bound).then_some(n + 1));
        if let Ok(before) = entered {
            self.most.fetch_max(before + 1, Ordering::AcqRel);
        }
        entered.is_ok()
    }

    /// Enter whatever the count.
    fn enter(&self) {
        let before = self.now.fetch_add(1, Ordering::AcqRel);
        self.most.fetch_max(before + 1, Ordering::AcqRel);
    }

    /// Leave.
    fn leave(&self) {
        self.now.fetch_sub(1, Ordering::AcqRel);
    }

    /// In progress now.
    pub fn now(&self) -> u64 {
        self.now.load(Ordering::Acquire)
    }

    /// The most ever in progress at once.
    pub fn most(&self) -> u64 {
        self.most.load(Ordering::Acquire)
    }

    /// The bound.
    pub fn bound(&self) -> u64 {
        self.bound
    }
}

/// What one run's request path shares.
#[derive(Debug)]
pub struct Requests {
    /// The dependency every request calls.
    pub dependency: Dependency,
    /// Every arrival's fate.
    pub book: Book,
    /// Scheduled start of every arrival, µs from the book's start.
    pub schedule: Arc<[u64]>,
    /// The CPU work of one request.
    pub work: Work,
    /// Requests admitted and not yet answered, bounded by the admission bound.
    pub outstanding: Gauge,
    /// Dependency calls in flight, bounded by the dependency bound (every style's own bound keeps it there).
    pub calls: Gauge,
    /// AIMD's admission gate, when the run's policy is AIMD; its permits, one slot per arrival.
    pub gate: Option<Arc<Gate>>,
    permits: Vec<Mutex<Option<Permit>>>,
    /// The deadline from the scheduled start, µs: a reply later than it is a drop to AIMD.
    deadline_us: u64,
    /// What each request's last stage handed on (0: nothing yet), checked after the run.
    results: Vec<AtomicU64>,
    /// A deliberate fault, for the conformance tests (`None` in every measured run).
    breakage: Option<Breakage>,
}

impl Requests {
    /// The request path of one run of `config` over `schedule`.
    pub fn new(
        dependency: Dependency,
        schedule: Arc<[u64]>,
        work: Work,
        config: &ServiceConfig,
        breakage: Option<Breakage>,
    ) -> Requests {
        let gate = config.aimd.then(|| Arc::new(Gate::new(limit::build(LimiterKind::Aimd, &config.aimd_limits()))));
        let permits = if gate.is_some() { (0..schedule.len()).map(|_| Mutex::new(None)).collect() } else { Vec::new() };
        Requests {
            dependency,
            book: Book::new(schedule.len()),
            results: (0..schedule.len()).map(|_| AtomicU64::new(0)).collect(),
            schedule,
            work,
            outstanding: Gauge::new(config.admission),
            calls: Gauge::new(config.dependency_bound),
            gate,
            permits,
            deadline_us: duration_us(config.deadline),
            breakage,
        }
    }

    /// Admit arrival `index` if the service holds fewer requests than its admission bound (and, under AIMD, the
    /// gate has a permit for it); else record it shed.
    pub fn admit(&self, index: u64) -> bool {
        let permit = match &self.gate {
            Some(gate) => match gate.try_acquire() {
                Some(permit) => Some(permit),
                None => {
                    self.book.record(index, Fate::Shed, Instant::now());
                    return false;
                }
            },
            None => None,
        };
        let admitted = self.outstanding.try_enter(self.breakage == Some(Breakage::NoAdmissionBound));
        if !admitted {
            self.book.record(index, Fate::Shed, Instant::now());
        } else if let Some(slot) = self.permit_slot(index) {
            *slot.lock().unwrap_or_else(PoisonError::into_inner) = permit;
        }
        admitted
    }

    /// The permit slot of arrival `index` (none without a gate).
    fn permit_slot(&self, index: u64) -> Option<&Mutex<Option<Permit>>> {
        usize::try_from(index).ok().and_then(|i| self.permits.get(i))
    }

    /// An admitted request the service could not take: it leaves the count of those outstanding unanswered.
    pub fn abandon(&self, index: u64) {
        if let Some(permit) = self.permit_slot(index).and_then(|slot| slot.lock().ok()?.take()) {
            permit.release(std::time::Duration::ZERO, Outcome::Ignore);
        }
        self.outstanding.leave();
    }

    /// Call the dependency for request `index`, counted in flight until [`Requests::called`].
    pub fn call(&self, index: u64) -> Completion {
        self.calls.enter();
        self.dependency.call(index)
    }

    /// A call of [`Requests::call`] has returned.
    pub fn called(&self) {
        self.calls.leave();
    }

    /// Reply to request `index`: its last stage handed on `value` and its dependency call gave `result`.
    pub fn reply(&self, index: u64, value: u64, result: CallResult) {
        if let Some(slot) = usize::try_from(index).ok().and_then(|i| self.results.get(i)) {
            slot.store(value, Ordering::Release);
        }
        let fate = match &result {
            Ok(reply) if reply.value == Dependency::answer(index) => Fate::Answered,
            Ok(_) => Fate::Wrong,
            Err(_) if self.breakage == Some(Breakage::FailureAnswered) => Fate::Answered,
            Err(_) => Fate::Failed,
        };
        let lost = self.breakage == Some(Breakage::LoseLast) && index + 1 == self.schedule.len() as u64;
        let seen = Instant::now();
        if let Some(permit) = self.permit_slot(index).and_then(|slot| slot.lock().ok()?.take()) {
            permit.finish(seen, self.outcome(index, &result, seen));
        }
        if !lost {
            self.book.record(index, fate, seen);
            if self.breakage == Some(Breakage::ReplyTwice) {
                self.book.record(index, fate, seen);
            }
        }
        self.outstanding.leave();
    }

    /// What AIMD learns from request `index`'s reply seen at `seen`: a right answer within the deadline from its
    /// scheduled start is a success, a late one a drop; a failed call is not measured (the dependency fails
    /// only on purpose here).
    fn outcome(&self, index: u64, result: &CallResult, seen: Instant) -> Outcome {
        let scheduled = usize::try_from(index).ok().and_then(|i| self.schedule.get(i)).copied().unwrap_or(0);
        let since_start = duration_us(seen.saturating_duration_since(self.book.start()));
        match result {
            Ok(_) if since_start.saturating_sub(scheduled) > self.deadline_us => Outcome::Dropped,
            Ok(_) => Outcome::Success,
            Err(_) => Outcome::Ignore,
        }
    }

    /// The answered requests among every `stride`-th whose last stage handed on a value other than the
    /// restated formula's (the whole run with `stride` 1).
    pub fn wrong_values(&self, stride: usize) -> u64 {
        let entries = self.book.entries();
        let answered = |i: usize| entries.get(i).copied().flatten().is_some_and(|e| e.fate == Fate::Answered);
        (0..self.results.len())
            .step_by(stride.max(1))
            .filter(|&i| answered(i) && self.results[i].load(Ordering::Acquire) != self.work.expected(i as u64))
            .count() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gauge_admits_up_to_its_bound_and_remembers_its_most() {
        let gauge = Gauge::new(2);
        assert!(gauge.try_enter(false) && gauge.try_enter(false));
        assert!(!gauge.try_enter(false), "at the bound");
        assert!(gauge.try_enter(true), "unbounded on purpose");
        gauge.leave();
        gauge.leave();
        assert_eq!((gauge.now(), gauge.most(), gauge.bound()), (1, 3, 2));
        gauge.enter();
        assert_eq!(gauge.now(), 2);
    }
}
