//! [`Broken`]: a real contestant made to misbehave in one way ([`Breakage`]), so that a reject test can show the
//! check written for that misbehaviour fail. Only the reject tests use it.

use measure::meter::Meter;

use super::{Bench, Consume, Contestant, FaultAction, Got, Probe, Run, Target};

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

impl<C: Contestant> Target for Broken<C> {
    type C = C;
    fn parts(&self) -> (&C, Option<Breakage>) {
        (&self.inner, Some(self.breakage))
    }
}

/// One run of the bench's contestant, misbehaving as `breakage` says.
pub(super) fn run<C: Contestant>(
    b: &Bench<C>,
    breakage: Breakage,
    run: &Run<'_, C::Site>,
) -> (Result<Got, C::Error>, u64) {
    let consume = match (breakage, run.consume) {
        (Breakage::IgnoresCancel, Consume::Cancellable) => Consume::Collect,
        (_, consume) => consume,
    };
    let run = Run { consume, meter: run.meter.clone(), ..*run };
    let (out, emitted) = b.c.run(&b.prepared, &run);
    let fault = match run.probe {
        Probe::Counted(Some(fault)) => Some(*fault),
        _ => None,
    };
    if breakage == Breakage::LeaksThread {
        std::mem::forget(run.live.enter());
    }
    let items = |mut items: Vec<u64>, change: fn(&mut Vec<u64>)| {
        (
            Ok(Got::Items({
                change(&mut items);
                items
            })),
            emitted,
        )
    };
    match (breakage, out) {
        (Breakage::OverAdmitsOnFailure, Err(err)) => {
            run.meter.admit(b.bound.unwrap_or(0) + 1);
            run.meter.leave(b.bound.unwrap_or(0) + 1);
            (Err(err), emitted)
        }
        (Breakage::SwallowsFirstItemError, Err(err))
            if fault.is_some_and(|f| f.at == 0 && b.c.is_injected(&err, &f)) =>
        {
            b.c.run(&b.prepared, &Run { items: 0, probe: &Probe::Clean, meter: run.meter.clone(), ..run })
        }
        (Breakage::LeavesWorkerDead, Err(err)) => {
            b.dead_worker.set(b.dead_worker.get() || fault.is_some_and(|f| f.action == FaultAction::Panic));
            (Err(err), emitted)
        }
        (Breakage::LeavesWorkerDead, Ok(Got::Items(got))) if b.dead_worker.get() => {
            items(got, |items| items.truncate(items.len() / 2))
        }
        (Breakage::DropsOne, Ok(Got::Items(got))) => items(got, |items| items.truncate(items.len().saturating_sub(1))),
        (Breakage::Duplicates, Ok(Got::Items(got))) => items(got, |items| items.extend(items.first().copied())),
        (Breakage::Reorders, Ok(Got::Items(got))) if got.len() > 1 => items(got, |items| items.swap(0, 1)),
        (_, out) => (out, emitted),
    }
}
