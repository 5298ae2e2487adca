//! The checks every memory contestant passes before it is measured: units hand back exactly their payloads, every unit
//! is waiting when `hold` returns, and a count the OS cannot hold is refused with its reason rather than attempted
//! (threads only). Then the edges, the conformance kit's ([`pipelines::conformance`]) on [`Checked`], each run
//! through [`Units::hold_checked`], the same generic code the timed runs instantiate with [`crate::work::Plain`]:
//!
//! - `unit_error`, `unit_panic`, `clean_after_faults` ([`kit::faults`]): a unit whose work returns an error, or
//!   panics, at the first, the middle and the last of [`UNITS`] makes the run return that error (never a short
//!   sum as success), every unit made once and ended; then a clean run on the same prepared contestant (its
//!   runtime, `may`'s carriers) hands every unit's number back once, has every unit waiting when `hold` returns
//!   and the exact payload total.
//! - `caller_cancel` ([`caller_cancel`]): the caller cancels from another thread when a seeded unit is being
//!   made; the run returns [`HoldError::Cancelled`] within [`kit::CANCEL_WITHIN`], no unit made after the one the
//!   cancel came at; and units all waiting, dropped without a release (the caller's other way to cancel), all end
//!   within it.
//!
//! Every run leaves no unit alive (the checked work's guards), no runtime task and no thread above the count
//! after a first small run ([`Primed`]); units report their start through one process-wide counter. So one
//! contestant's checks run alone in their process, as the lab runs each contestant in a fresh trial process and
//! the tests run each in a process of its own (`testkit::own_process!`).

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, Instant};

use measure::summary::Check;
use measure::watchdog::{guarded, guarded_check};
use pipelines::conformance::{self as kit, CheckedJob, Fault, FaultAction, Outcome, Sizes, Subject as _};
use pipelines::stream::runtime::settled_tasks;
use pipelines::{panic_message, LiveStages};

use super::contestants::{self, Contestant, HoldError, Units};
use crate::payload::expected_total;
use crate::work::{self, injected_panic_message, AliveTasks, Injected, Primed};

/// Units of the checks' runs.
pub const UNITS: u64 = 200;
/// Payload bytes of each unit in the checks.
const BYTES: usize = 48;

/// Every check, in order: `exact_payloads`, `all_waiting`, `refuses_what_the_os_cannot_hold`, then the faults
/// (`unit_error`, `unit_panic`, `clean_after_faults` on one prepared contestant), then `caller_cancel`.
pub fn all(contestant: Contestant) -> Vec<Check> {
    let mut checks = vec![
        guarded_check("exact_payloads", kit::WATCHDOG, move || exact_payloads(contestant)),
        guarded_check("all_waiting", kit::WATCHDOG, move || all_waiting(contestant)),
        refuses(contestant),
    ];
    checks.extend(kit::faults(&Checked(contestant)));
    checks.push(caller_cancel(&Checked(contestant)));
    checks
}

fn exact_payloads(contestant: Contestant) -> Result<String, String> {
    let units = contestant.prepare().map_err(|e| e.to_string())?;
    let total = units.hold(UNITS, BYTES).and_then(|held| held.release()).map_err(|e| e.to_string())?;
    let expected = expected_total(UNITS, BYTES);
    let detail = format!("{UNITS} units of {BYTES} bytes handed back {total}, expected {expected}");
    if total == expected {
        Ok(detail)
    } else {
        Err(detail)
    }
}

fn all_waiting(contestant: Contestant) -> Result<String, String> {
    let units = contestant.prepare().map_err(|e| e.to_string())?;
    let held = units.hold(UNITS, 0).map_err(|e| e.to_string())?;
    let started = contestants::started();
    let released = held.release().map_err(|e| e.to_string())?;
    let detail = format!(
        "{started} of {UNITS} units had reached their wait when `hold` returned, and all {UNITS} were released \
         (sum {released})"
    );
    if started == UNITS {
        Ok(detail)
    } else {
        Err(detail)
    }
}

fn refuses(contestant: Contestant) -> Check {
    let name = "refuses_what_the_os_cannot_hold";
    if !matches!(contestant, Contestant::Thread | Contestant::Thread64k) {
        return Check::not_applicable(name, "tasks, futures and generators use no OS thread each");
    }
    guarded_check(name, kit::WATCHDOG, move || {
        let units = contestant.prepare().map_err(|e| e.to_string())?;
        let outcome = match units.hold(50_000_000, 0) {
            Err(HoldError::Refused(reason)) => Ok(format!("50,000,000 threads refused before any started: {reason}")),
            Err(e) => Err(format!("50,000,000 threads: {e}")),
            Ok(held) => {
                let _ = held.release();
                Err("50,000,000 threads were held: the OS's limits were not checked".to_string())
            }
        };
        outcome
    })
}

/// `caller_cancel`: the kit's (see the module's doc), then [`UNITS`] units all waiting, dropped without a
/// release, must all end within [`kit::CANCEL_WITHIN`] and leave no task or thread.
pub fn caller_cancel<T: kit::Target<C = Checked>>(t: &T) -> Check {
    let check = kit::caller_cancel(t);
    let checked = *t.parts().0;
    match guarded("caller_cancel", kit::WATCHDOG, move || dropped_while_waiting(&checked)) {
        Ok(dropped) => Check::new(check.name, check.passed, format!("{}; {dropped}", check.detail)),
        Err(why) => Check::new(check.name, false, format!("{}; {why}", check.detail)),
    }
}

fn dropped_while_waiting(checked: &Checked) -> Result<String, String> {
    let primed = checked.prepare().map_err(|e| format!("could not prepare: {e}"))?;
    let live = Arc::new(LiveStages::new());
    let work = work::Checked::new("unit", UNITS, &live, None);
    let held = primed.inner.hold_checked(UNITS, BYTES, &work).map_err(|e| format!("units to drop: {e}"))?;
    let dropped = Instant::now();
    drop(held);
    while live.current() > 0 && dropped.elapsed() <= kit::CANCEL_WITHIN {
        std::thread::sleep(Duration::from_millis(1));
    }
    let ended_after = dropped.elapsed().as_secs_f64() * 1e3;
    let mut problems = Vec::new();
    if live.current() > 0 {
        let limit = kit::CANCEL_WITHIN.as_millis();
        problems.push(format!("{} of {UNITS} still alive after {limit} ms", live.current()));
    }
    if let Some(t) = settled_tasks(|| primed.inner.alive_tasks()).filter(|&t| t > 0) {
        problems.push(format!("{t} runtime tasks alive"));
    }
    problems.extend(primed.leftovers());
    if problems.is_empty() {
        Ok(format!("{UNITS} waiting units dropped without a release all ended {ended_after:.1} ms later"))
    } else {
        Err(format!("units dropped while waiting: {}", problems.join("; ")))
    }
}

impl AliveTasks for Box<dyn Units> {
    fn alive_tasks(&self) -> Option<usize> {
        Units::alive_tasks(&**self)
    }
}

/// Memory as the conformance kit checks it: runs of [`UNITS`] units of 48 bytes, whose items are the numbers of
/// the units that handed back their payload (and, when cancelled, of those made); faults in the units' work (the
/// site `unit`).
#[derive(Debug, Clone, Copy)]
pub struct Memory;

impl kit::Declaration for Memory {
    type Config = ();
    type Input = u64;
    type Site = &'static str;
    type Error = HoldError;
    const SOURCE: &'static str = "unit";
    const SIZES: Sizes = Sizes { items: UNITS, early_stop_items: UNITS, sum_works: &[0], work: 0 };
    const WORDS: kit::Words = kit::Words {
        error_check: "unit_error",
        panic_check: "unit_panic",
        parties: "units",
        counted: "the creator made",
        point: "unit",
        stopped: "the creator",
    };
    const FAULT_AT: u64 = UNITS / 2;
    const CANCEL_POINTS: std::ops::Range<u64> = 1..UNITS - 1;

    fn is_injected(err: &HoldError, fault: &Fault<&'static str>) -> bool {
        match (err, fault.action) {
            (HoldError::Failed(m), FaultAction::Error) => *m == Injected { what: "unit", at: fault.at },
            (HoldError::Panicked(m), FaultAction::Panic) => *m == injected_panic_message("unit", fault.at),
            _ => false,
        }
    }
}

/// A memory contestant as the conformance kit checks it: each run through [`Units::hold_checked`].
#[derive(Debug, Clone, Copy)]
pub struct Checked(pub Contestant);

impl kit::Subject for Checked {
    type D = Memory;
    type Prepared = Primed<Box<dyn Units>>;

    fn name(&self) -> String {
        self.0.info().name
    }

    /// The contestant after one unit held and released.
    fn prepare(&self) -> Result<Self::Prepared, HoldError> {
        let units = self.0.prepare()?;
        let first = work::Checked::new("unit", 1, &Arc::new(LiveStages::new()), None);
        units.hold_checked(1, BYTES, &first).and_then(|held| held.release())?;
        Ok(Primed::new(units))
    }

    fn run(&self, primed: &Self::Prepared, job: &CheckedJob<'_, Self>) -> Result<Outcome, HoldError> {
        let (work, items) = (work::Checked::for_job("unit", job), job.items());
        let mut waiting = None;
        let out = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let held = primed.inner.hold_checked(items, BYTES, &work)?;
            waiting = Some(contestants::started());
            held.release()
        }))
        .unwrap_or_else(|payload| {
            Err(HoldError::Broken(format!("a panic propagated out of the contestant: {}", panic_message(&*payload))))
        });
        let (ledger, mut problems) = (work.ledger(), work.problems());
        match (job.behaviour.fault(), &out) {
            (Some(_), _) if ledger.created != items => {
                problems.push(format!("{} of {items} units made", ledger.created))
            }
            (None, Ok(total)) if work::Checked::is_clean(job) => {
                let expected = expected_total(items, BYTES);
                problems.extend((*total != expected).then(|| format!("handed back {total}, expected {expected}")));
                let waiting = waiting.unwrap_or(0);
                problems.extend(
                    (waiting != items).then(|| format!("{waiting} of {items} units waiting when `hold` returned")),
                );
            }
            _ => {}
        }
        primed.note(ledger.created, problems);
        let made = |e: &HoldError| if let HoldError::Cancelled(made) = e { Some(*made) } else { None };
        work.got(out, job.consumer, made)
    }
}
