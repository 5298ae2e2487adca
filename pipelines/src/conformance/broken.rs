//! [`Broken`]: a real contestant made to misbehave in one way ([`Breakage`]), so that a reject test can show the
//! check written for that misbehaviour fail. Only the reject tests use it.

use measure::meter::Meter;

use super::{
    Behaviour, Bench, CheckedJob, Consume, Declaration, ErrorOf, FaultAction, Input, InputOf, Job, Outcome, Subject,
    Target,
};

/// How a broken contestant misbehaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Breakage {
    /// An injected error or panic at a site's first element comes back as the success a run of no items gives
    /// (the consumer saw its end close before any item and called that the end of the stream).
    SwallowsFirstItemError,
    /// Once a run panicked, a worker is gone: later collecting runs lose the second half of their items.
    LeavesWorkerDead,
    /// While a failure propagates, it lets in more than its bound (a slot freed twice, say).
    OverAdmitsOnFailure,
    /// The caller's cancellation is ignored: the consumer drains every item.
    IgnoresCancel,
    /// A collecting run loses its last item.
    DropsOne,
    /// A collecting run delivers its first item twice.
    Duplicates,
    /// A collecting run swaps its first two items.
    Reorders,
    /// Every run leaves one of its threads counted alive (a thread that never ends).
    LeaksThread,
}

impl Breakage {
    /// Every breakage, in declaration order.
    pub const ALL: [Breakage; 8] = [
        Breakage::SwallowsFirstItemError,
        Breakage::LeavesWorkerDead,
        Breakage::OverAdmitsOnFailure,
        Breakage::IgnoresCancel,
        Breakage::DropsOne,
        Breakage::Duplicates,
        Breakage::Reorders,
        Breakage::LeaksThread,
    ];
}

/// A real contestant that misbehaves as its [`Breakage`] says, and otherwise passes everything through.
#[derive(Debug, Clone)]
pub struct Broken<C> {
    inner: C,
    breakage: Breakage,
}

impl<C> Broken<C> {
    /// `inner`, misbehaving as `breakage` says.
    pub fn new(inner: C, breakage: Breakage) -> Self {
        Broken { inner, breakage }
    }
}

impl<C: Subject> Target for Broken<C> {
    type C = C;
    fn parts(&self) -> (&C, Option<Breakage>) {
        (&self.inner, Some(self.breakage))
    }
}

/// One run of the bench's contestant, misbehaving as `breakage` says.
pub(super) fn run<C: Subject>(
    b: &Bench<C>,
    breakage: Breakage,
    job: &CheckedJob<'_, C>,
) -> Result<Outcome, ErrorOf<C>> {
    let consumer = match (breakage, job.consumer) {
        (Breakage::IgnoresCancel, Consume::Cancellable) => Consume::Collect,
        (_, consumer) => consumer,
    };
    let job = Job { consumer, meter: job.meter.clone(), ..*job };
    let out = b.c.run(&b.prepared, &job);
    let fault = job.behaviour.fault();
    if breakage == Breakage::LeaksThread {
        std::mem::forget(job.live.enter());
    }
    let items = |mut items: Vec<u64>, change: fn(&mut Vec<u64>)| {
        change(&mut items);
        Ok(Outcome::Items(items))
    };
    match (breakage, out) {
        (Breakage::OverAdmitsOnFailure, Err(err)) => {
            job.meter.admit(b.bound.unwrap_or(0) + 1);
            job.meter.leave(b.bound.unwrap_or(0) + 1);
            Err(err)
        }
        (Breakage::SwallowsFirstItemError, Err(err))
            if fault.is_some_and(|f| f.at == 0 && C::D::is_injected(&err, &f)) =>
        {
            let (none, clean) = (InputOf::<C>::of(0), Behaviour::Clean);
            b.c.run(&b.prepared, &Job { input: &none, behaviour: &clean, meter: job.meter.clone(), ..job })
        }
        (Breakage::LeavesWorkerDead, Err(err)) => {
            b.dead_worker.set(b.dead_worker.get() || fault.is_some_and(|f| f.action == FaultAction::Panic));
            Err(err)
        }
        (Breakage::LeavesWorkerDead, Ok(Outcome::Items(got))) if b.dead_worker.get() => {
            items(got, |items| items.truncate(items.len() / 2))
        }
        (Breakage::DropsOne, Ok(Outcome::Items(got))) => {
            items(got, |items| items.truncate(items.len().saturating_sub(1)))
        }
        (Breakage::Duplicates, Ok(Outcome::Items(got))) => items(got, |items| items.extend(items.first().copied())),
        (Breakage::Reorders, Ok(Outcome::Items(got))) if got.len() > 1 => items(got, |items| items.swap(0, 1)),
        (_, out) => out,
    }
}
