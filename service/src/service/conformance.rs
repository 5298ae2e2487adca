//! The checks every contestant passes in its trial process before any run is timed, judged with the calls kit
//! ([`pipelines::calls`]) as every calls scenario judges its runs:
//!
//! - `exactly_once`: a small run answers every arrival once, with the dependency's right answer and the stages'
//!   right value (checked against the formula restated).
//! - `faults`: the dependency fails the first, the middle and the last request on purpose
//!   ([`FaultAt`]); those are replied to as failed, every other answered once.
//! - `clean_after_failures`: a clean run on the same prepared contestant after the faults.
//! - `within_bounds`: a burst far beyond the bounds: the requests inside the service never exceed the admission
//!   bound, the dependency calls in flight never exceed the dependency bound, and both bounds are reached.
//! - `sheds_when_full`: an admission bound of 4 against calls of 50 ms: exactly 4 answered, every other arrival
//!   shed at once.
//! - `cancel`: the caller cancels halfway (the rest never arrive): the service closes within
//!   [`CANCEL_WITHIN`], every arrival handed over is answered once and none after.
//! - `no_leftovers`: after every run, the process's threads come back down to what they were after the first.

use std::sync::Arc;
use std::time::Duration;

use measure::summary::Check;
use overload::book::Fate;
use overload::service_config::Pattern;
use pipelines::calls::{clean_after, guarded, late, FaultAt, Held, Leftovers, Problems, CANCEL_WITHIN};

use super::contestants::run::{run_once, RunOutput, Variation};
use super::contestants::{Contestant, Prepared};
use crate::config::ServiceConfig;
use crate::requests::Breakage;
use crate::work::Work;

/// Every check's name, in order.
pub const NAMES: [&str; 7] =
    ["exactly_once", "faults", "clean_after_failures", "within_bounds", "sheds_when_full", "cancel", "no_leftovers"];

/// The most the checks may take together before the watchdog fails them.
const WATCHDOG: Duration = Duration::from_secs(120);

/// The small run most checks make: 2,000 arrivals per second for 100 ms, evenly spaced, calls of 1 ms, a
/// deadline of a second, bounds wider than the run needs, a healthy dependency and the style's own bound.
fn small(config: &ServiceConfig) -> ServiceConfig {
    ServiceConfig {
        rate: 2_000,
        pattern: Pattern::Constant,
        dependency: Duration::from_millis(1),
        dependency_bound: 16,
        admission: 256,
        queue: 8,
        deadline: Duration::from_secs(1),
        run: Duration::from_millis(100),
        loss_pct: 0,
        aimd: false,
        ..config.clone()
    }
}

/// Every check of `contestant`, prepared as `prepared`, with the request's CPU work `work` (at most 20 µs of it:
/// the checks judge the path, not the work) and `breakage` (`None` but in the tests that show each check fail).
pub fn checks(
    contestant: Contestant,
    prepared: Arc<Prepared>,
    config: &ServiceConfig,
    work: Work,
    breakage: Option<Breakage>,
) -> Vec<Check> {
    let config = small(config);
    let work = Work::new(config.work_us.min(20), work.stages, work.ns_per_round);
    guarded(&NAMES, WATCHDOG, move || {
        let run = |config: &ServiceConfig, variation: Variation| {
            run_once(contestant, &prepared, config, work, &Variation { breakage, ..variation }, &mut || {})
                .map_err(|e| e.to_string())
        };
        // The first run starts whatever the style starts lazily (`may`'s carriers); its dependency's timer
        // threads end when its output is dropped, before the baseline.
        let exactly = exactly_once(run(&config, Variation::default()));
        let baseline = Held::steady();
        let n = config.schedule().len() as u64;
        let injected: Vec<u64> = FaultAt::ALL.iter().map(|at| at.call(n)).collect();
        let faults =
            faults(run(&config, Variation { fail_inputs: injected.clone(), ..Variation::default() }), &injected);
        let clean = clean_after(
            "clean_after_failures",
            "after the faults",
            &[exactly_once(run(&config, Variation::default()))],
        );
        let burst = ServiceConfig {
            rate: 20_000,
            dependency: Duration::from_millis(20),
            dependency_bound: 8,
            admission: 64,
            run: Duration::from_millis(50),
            ..config.clone()
        };
        let bounds = within_bounds(run(&burst, Variation::default()), &burst);
        let full = ServiceConfig {
            rate: 10_000,
            dependency: Duration::from_millis(50),
            admission: 4,
            run: Duration::from_millis(20),
            ..config.clone()
        };
        let sheds = sheds_when_full(run(&full, Variation::default()));
        let half = ServiceConfig { dependency: Duration::from_millis(20), ..config.clone() };
        let cancel = cancelled(run(&half, Variation { cancel_after: Some(n / 2), ..Variation::default() }));
        let leftovers = Leftovers::settle(baseline, Duration::from_secs(1));
        let left = Problems::from_iter([leftovers.left("the checks' runs")]).check(
            "no_leftovers",
            || "threads left behind".to_string(),
            || format!("after every run, {}", leftovers.back_to()),
        );
        Ok(vec![exactly, faults, clean, bounds, sheds, cancel, left])
    })
}

/// What a run's book holds: arrivals per fate, never recorded, recorded twice.
struct Tally {
    answered: Vec<u64>,
    failed: Vec<u64>,
    shed: u64,
    wrong: u64,
    missing: u64,
    twice: u64,
    wrong_values: u64,
}

fn tally(output: &RunOutput) -> Tally {
    let entries = output.requests.book.entries();
    let with = |fate: Fate| -> Vec<u64> {
        (0..entries.len() as u64).filter(|&i| entries[i as usize].is_some_and(|e| e.fate == fate)).collect()
    };
    Tally {
        answered: with(Fate::Answered),
        failed: with(Fate::Failed),
        shed: with(Fate::Shed).len() as u64,
        wrong: with(Fate::Wrong).len() as u64,
        missing: entries.iter().filter(|e| e.is_none()).count() as u64,
        twice: output.requests.book.twice(),
        wrong_values: output.requests.wrong_values(1),
    }
}

/// The problems every run must not have: wrong answers or values, arrivals recorded twice.
fn never(t: &Tally) -> [Option<String>; 3] {
    [
        (t.wrong > 0).then(|| format!("{} wrong answers from the dependency", t.wrong)),
        (t.wrong_values > 0).then(|| format!("{} wrong values from the stages", t.wrong_values)),
        (t.twice > 0).then(|| format!("{} replies recorded twice", t.twice)),
    ]
}

fn exactly_once(run: Result<RunOutput, String>) -> Check {
    let output = match run {
        Ok(output) => output,
        Err(e) => return Check::new("exactly_once", false, e),
    };
    let t = tally(&output);
    let n = output.requests.schedule.len();
    let mut problems: Problems = never(&t).into_iter().collect();
    problems.when(t.missing > 0, || format!("{} arrivals never answered", t.missing));
    problems.when(t.answered.len() != n, || format!("{} of {n} answered", t.answered.len()));
    problems.check(
        "exactly_once",
        || format!("{n} arrivals at 2,000/s"),
        || format!("{n} arrivals at 2,000/s: every one answered once, with the right answer and the right value"),
    )
}

fn faults(run: Result<RunOutput, String>, injected: &[u64]) -> Check {
    let output = match run {
        Ok(output) => output,
        Err(e) => return Check::new("faults", false, e),
    };
    let t = tally(&output);
    let n = output.requests.schedule.len();
    let mut problems: Problems = never(&t).into_iter().collect();
    problems.when(t.failed != injected, || format!("failed {:?}, injected {injected:?}", t.failed));
    problems.when(t.missing > 0, || format!("{} arrivals never answered", t.missing));
    problems.when(t.answered.len() + injected.len() != n, || format!("{} of {n} answered", t.answered.len()));
    problems.check(
        "faults",
        || format!("{n} arrivals, the dependency failing the first, middle and last ({injected:?})"),
        || format!("{n} arrivals: the first, middle and last ({injected:?}) failed and replied to as failed, every other answered once"),
    )
}

fn within_bounds(run: Result<RunOutput, String>, config: &ServiceConfig) -> Check {
    let output = match run {
        Ok(output) => output,
        Err(e) => return Check::new("within_bounds", false, e),
    };
    let (requests, t) = (&output.requests, tally(&output));
    let (inside, calls) = (requests.outstanding.most(), requests.calls.most());
    let (admission, bound) = (config.admission as u64, config.dependency_bound as u64);
    let mut problems: Problems = never(&t).into_iter().collect();
    problems.when(inside > admission, || format!("{inside} requests inside at once, over the bound of {admission}"));
    problems.when(calls > bound, || format!("{calls} calls in flight at once, over the bound of {bound}"));
    problems.when(inside < admission, || format!("the admission bound ({admission}) was never reached: {inside}"));
    problems.when(calls < bound, || format!("the dependency bound ({bound}) was never reached: {calls}"));
    problems.when(t.missing > 0, || format!("{} arrivals never answered or shed", t.missing));
    problems.check(
        "within_bounds",
        || format!("{} arrivals in 50 ms against calls of 20 ms", requests.schedule.len()),
        || {
            format!(
                "{} arrivals in 50 ms against calls of 20 ms: at most {inside} requests inside (bound {admission}) and \
                 {calls} calls in flight (bound {bound}), {} shed",
                requests.schedule.len(),
                t.shed
            )
        },
    )
}

fn sheds_when_full(run: Result<RunOutput, String>) -> Check {
    let output = match run {
        Ok(output) => output,
        Err(e) => return Check::new("sheds_when_full", false, e),
    };
    let t = tally(&output);
    let n = output.requests.schedule.len() as u64;
    let mut problems: Problems = never(&t).into_iter().collect();
    problems.when(t.answered.len() != 4 || t.shed != n - 4, || {
        format!("{} answered and {} shed, 4 and {} expected", t.answered.len(), t.shed, n - 4)
    });
    problems.check(
        "sheds_when_full",
        || format!("{n} arrivals in 20 ms against an admission bound of 4 and calls of 50 ms"),
        || {
            format!(
                "{n} arrivals in 20 ms against an admission bound of 4 and calls of 50 ms: 4 answered, {} shed",
                n - 4
            )
        },
    )
}

fn cancelled(run: Result<RunOutput, String>) -> Check {
    let output = match run {
        Ok(output) => output,
        Err(e) => return Check::new("cancel", false, e),
    };
    let t = tally(&output);
    let handed = output.handed;
    let entries = output.requests.book.entries();
    let after = entries.iter().skip(usize::try_from(handed).unwrap_or(usize::MAX)).filter(|e| e.is_some()).count();
    let mut problems: Problems = never(&t).into_iter().collect();
    problems.note(late(output.close_took, CANCEL_WITHIN, "the cancel"));
    problems.when(t.answered.len() as u64 != handed, || {
        format!("{} of the {handed} handed over answered", t.answered.len())
    });
    problems.when(after > 0, || format!("{after} arrivals after the cancel recorded"));
    problems.when(output.requests.outstanding.now() > 0, || "requests still outstanding".to_string());
    problems.check(
        "cancel",
        || format!("cancelled after {handed} arrivals"),
        || {
            format!(
                "cancelled after {handed} of {} arrivals: closed {:.0} ms later, every one handed over answered once, \
                 none after",
                entries.len(),
                output.close_took.as_secs_f64() * 1e3
            )
        },
    )
}
