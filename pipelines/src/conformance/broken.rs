//! [`Broken`]: a real contestant wrapped to misbehave in one way ([`Breakage`]), so that a reject test can show
//! the check written for that misbehaviour fail. Only the reject tests use it.

use std::sync::atomic::{AtomicBool, Ordering};

use measure::meter::Meter;

use super::{Consume, Contestant, Fault, FaultAction, Got, Probe, Run, Sizes, Words};

/// How a broken contestant misbehaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Breakage {
    /// An injected error at a site's first element comes back as the success a run of no items gives (the
    /// consumer saw its end close before any item and called that the end of the stream).
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

/// A real contestant wrapped to misbehave as its [`Breakage`] says, and otherwise pass everything through.
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

/// A broken contestant, prepared: the real one's preparation and whether a worker died.
#[derive(Debug)]
pub struct BrokenPrepared<P> {
    inner: P,
    dead_worker: AtomicBool,
}

impl<C: Contestant> Contestant for Broken<C> {
    type Prepared = BrokenPrepared<C::Prepared>;
    type Site = C::Site;
    type Error = C::Error;
    const SIZES: Sizes = C::SIZES;
    const WORDS: Words = C::WORDS;

    fn name(&self) -> String {
        self.inner.name()
    }

    fn bound(&self) -> Option<u64> {
        self.inner.bound()
    }

    fn ordered(&self) -> bool {
        self.inner.ordered()
    }

    fn runs_ahead(&self, cancel: bool) -> Option<u64> {
        self.inner.runs_ahead(cancel)
    }

    fn not_applicable(&self, check: &str) -> Option<&'static str> {
        self.inner.not_applicable(check)
    }

    fn prepare(&self) -> Result<Self::Prepared, C::Error> {
        Ok(BrokenPrepared { inner: self.inner.prepare()?, dead_worker: AtomicBool::new(false) })
    }

    fn run(&self, prepared: &Self::Prepared, run: &Run<'_, C::Site>) -> (Result<Got, C::Error>, u64) {
        let consume = match (self.breakage, run.consume) {
            (Breakage::IgnoresCancel, Consume::Cancellable) => Consume::Collect,
            (_, consume) => consume,
        };
        let run = Run { consume, meter: run.meter.clone(), ..*run };
        let (out, emitted) = self.inner.run(&prepared.inner, &run);
        let fault = match run.probe {
            Probe::Counted(Some(fault)) => Some(*fault),
            _ => None,
        };
        if self.breakage == Breakage::LeaksThread {
            std::mem::forget(run.live.enter());
        }
        let out = match (self.breakage, out) {
            (Breakage::OverAdmitsOnFailure, Err(err)) => {
                let over = self.inner.bound().unwrap_or(0) + 1;
                run.meter.admit(over);
                run.meter.leave(over);
                Err(err)
            }
            (Breakage::SwallowsFirstItemError, Err(err))
                if fault.is_some_and(|f| {
                    f.at == 0 && f.action == FaultAction::Error && self.inner.is_injected(&err, &f)
                }) =>
            {
                let nothing = Run { items: 0, probe: &Probe::Clean, meter: run.meter.clone(), ..run };
                return self.inner.run(&prepared.inner, &nothing);
            }
            (Breakage::LeavesWorkerDead, Err(err)) => {
                if fault.is_some_and(|f| f.action == FaultAction::Panic) {
                    prepared.dead_worker.store(true, Ordering::Relaxed);
                }
                Err(err)
            }
            (Breakage::LeavesWorkerDead, Ok(Got::Items(mut items))) if prepared.dead_worker.load(Ordering::Relaxed) => {
                items.truncate(items.len() / 2);
                Ok(Got::Items(items))
            }
            (Breakage::DropsOne, Ok(Got::Items(mut items))) => {
                items.pop();
                Ok(Got::Items(items))
            }
            (Breakage::Duplicates, Ok(Got::Items(mut items))) => {
                items.extend(items.first().copied());
                Ok(Got::Items(items))
            }
            (Breakage::Reorders, Ok(Got::Items(mut items))) if items.len() > 1 => {
                items.swap(0, 1);
                Ok(Got::Items(items))
            }
            (_, out) => out,
        };
        (out, emitted)
    }

    fn alive_tasks(&self, prepared: &Self::Prepared) -> Option<usize> {
        self.inner.alive_tasks(&prepared.inner)
    }

    fn is_injected(&self, err: &C::Error, fault: &Fault<C::Site>) -> bool {
        self.inner.is_injected(err, fault)
    }

    fn fault_sites(&self, items: u64) -> Vec<(C::Site, u64)> {
        self.inner.fault_sites(items)
    }

    fn expected(&self, items: u64, work: u32) -> Vec<u64> {
        self.inner.expected(items, work)
    }
}
