//! Conformance checks every hand-off contestant must pass before its timings mean anything, written once and
//! generic over [`HandoffContestant`], so a new contestant gets them for free.
//!
//! Each check prepares the contestant afresh, runs it on a small job and returns a
//! [`measure::summary::Check`]; none of them looks at a clock except the watchdog and `caller_cancel` (which
//! allows a generous [`CANCEL_WITHIN`] between the cancel and the return): every check runs in a helper thread
//! ([`measure::watchdog::run_guarded`]) and a check that has not answered within [`WATCHDOG`] fails as hung (its
//! thread is left behind) instead of blocking the process.
//!
//! Producer faults fire at its first, [`FAULT_AT`]-th and last item ([`FAULT_POINTS`]): the first before any
//! item reached the consumer, the last while the consumer drains, the cases where hand-off code most often
//! hangs, loses the error or reports a short sum as success.

use std::sync::Arc;
use std::time::{Duration, Instant};

use measure::gauge::Outstanding;
use measure::meter::GaugeMeter;
use measure::summary::Check;
use measure::watchdog::run_guarded;
use pipelines::cancel::{seeded_point, CallerCancel};
use pipelines::stream::runtime::settled_tasks;
use pipelines::{panic_message, LiveStages};

use crate::contestants::{HandoffContestant, PreparedHandoff};
use crate::job::{
    injected_panic_message, Behaviour, Consumer, Fault, FaultAction, HandoffConfig, HandoffError, Instruments, Job,
    Outcome, Side,
};

/// How long a check may take before it counts as hung.
pub const WATCHDOG: Duration = Duration::from_secs(20);
/// How long [`faults`] may take before its checks count as hung: it runs three checks' worth of runs (every
/// fault of both kinds, then the clean run) on one prepared contestant, so it gets three checks' time.
pub const FAULTS_WATCHDOG: Duration = Duration::from_secs(60);
/// Items of the checks: enough for many refills of every channel, and not a multiple of the default batch.
pub const ITEMS: u64 = 10_000;
/// Items the early-stop producer would emit if nothing stopped it.
pub const EARLY_STOP_ITEMS: u64 = 1_000_000;
/// Items the early-stop consumer takes before dropping its end.
pub const EARLY_STOP_TAKE: usize = 10;
/// The item at which injected producer faults fire.
pub const FAULT_AT: u64 = 1_000;

/// Every check, in order: `checksum`, `exactly_once`, `bounded_outstanding`, `early_stop`, then [`faults`]
/// (`producer_error`, `producer_panic`, `clean_after_faults` on one prepared contestant), then `caller_cancel`.
pub fn all(contestant: &Arc<dyn HandoffContestant>, config: &HandoffConfig) -> Vec<Check> {
    let mut checks = vec![
        checksum(contestant, config),
        exactly_once(contestant, config),
        bounded_outstanding(contestant, config),
        early_stop(contestant, config),
    ];
    checks.extend(faults(contestant, config));
    checks.push(caller_cancel(contestant, config));
    checks
}

/// The wrapping sum of `0..items`: what every summing consumer must return.
pub fn reference_sum(items: u64) -> u64 {
    let n = u128::from(items);
    // The exact triangle number, truncated to 64 bits, is the wrapping sum.
    (n * n.saturating_sub(1) / 2) as u64
}

/// The summing consumer returns the sum of `0..ITEMS`, counts `ITEMS` items and saw each in order.
pub fn checksum(contestant: &Arc<dyn HandoffContestant>, config: &HandoffConfig) -> Check {
    guarded("checksum", contestant, config, |bench| {
        let reference = reference_sum(ITEMS);
        let (out, _) = bench.run(ITEMS, &Behaviour::Clean, Consumer::Sum);
        match out {
            Ok(Outcome::Sum { sum, count, first_disorder }) => Check::new(
                "checksum",
                sum == reference && count == ITEMS && first_disorder.is_none(),
                format!(
                    "{ITEMS} items: sum {sum} vs reference {reference}, {count} items counted, {}",
                    first_disorder.map_or_else(|| "all in order".to_string(), |i| format!("item {i} out of order"))
                ),
            ),
            other => Check::new("checksum", false, format!("{} instead of a sum", describe(&other))),
        }
    })
}

/// Collected independently of the contestant's own order check, the items are exactly `0..ITEMS`, in order.
pub fn exactly_once(contestant: &Arc<dyn HandoffContestant>, config: &HandoffConfig) -> Check {
    guarded("exactly_once", contestant, config, |bench| {
        let (out, _) = bench.run(ITEMS, &Behaviour::Clean, Consumer::Collect);
        let got = match out {
            Ok(Outcome::Items(items)) => items,
            other => return Check::new("exactly_once", false, format!("{} instead of items", describe(&other))),
        };
        let first_difference = got.iter().enumerate().position(|(i, &x)| x != i as u64);
        let passed = got.len() as u64 == ITEMS && first_difference.is_none();
        let detail = match first_difference {
            None if passed => format!("{} items, each once, in order", got.len()),
            None => format!("{} items vs {ITEMS} expected (a prefix matches)", got.len()),
            Some(i) => format!("{} items vs {ITEMS} expected; item {i} is {}", got.len(), got[i]),
        };
        Check::new("exactly_once", passed, detail)
    })
}

/// The gauge's exact high-water mark stays within the contestant's bound and is back at zero after the run;
/// a contestant without a bound must not touch the gauge.
pub fn bounded_outstanding(contestant: &Arc<dyn HandoffContestant>, config: &HandoffConfig) -> Check {
    let bound = contestant.bound(config);
    let contestant_per_message = contestant.items_per_message(config);
    guarded("bounded_outstanding", contestant, config, move |bench| {
        let (out, gauge) = bench.run(ITEMS, &Behaviour::Clean, Consumer::Sum);
        if let Err(err) = out {
            return Check::new("bounded_outstanding", false, format!("the run failed: {err}"));
        }
        match bound {
            None if gauge.touched() => {
                Check::new("bounded_outstanding", false, "declares no hand-off (bound none) but touched the gauge")
            }
            None => Check::not_applicable("bounded_outstanding", "no hand-off, the gauge was never touched"),
            Some(bound) => {
                let high = gauge.high_water();
                let settled = gauge.current();
                Check::new(
                    "bounded_outstanding",
                    gauge.touched() && high >= 0 && high as u64 <= bound && settled == 0,
                    format!(
                        "max outstanding {high} items, bound {bound} (the channel's {} items plus what the two ends \
                         can hold); {settled} outstanding after the run (must be 0)",
                        channel_items(contestant_per_message, &bench.config)
                    ),
                )
            }
        }
    })
}

/// Items the channel itself holds: its messages times the items each carries.
fn channel_items(items_per_message: Option<usize>, config: &HandoffConfig) -> usize {
    let per_message = items_per_message.unwrap_or(1);
    config.messages(per_message) * per_message
}

/// A consumer that takes [`EARLY_STOP_TAKE`] items and drops its end gets exactly `0..EARLY_STOP_TAKE`; the
/// producer notices the disconnect and ends cleanly (the run returns `Ok`), having emitted no more than the
/// items taken plus the contestant's bound; and no producer or consumer thread or task is left.
pub fn early_stop(contestant: &Arc<dyn HandoffContestant>, config: &HandoffConfig) -> Check {
    let bound = contestant.bound(config);
    guarded("early_stop", contestant, config, move |bench| {
        let instruments = Arc::new(Instruments::new(None));
        let behaviour = Behaviour::Instrumented(Arc::clone(&instruments));
        let (out, _) = bench.run(EARLY_STOP_ITEMS, &behaviour, Consumer::Take(EARLY_STOP_TAKE));
        let live = bench.live.current();
        let tasks = bench.tasks_settle();
        let emitted = instruments.emitted();
        let got = match out {
            Ok(Outcome::Items(items)) => items,
            other => return Check::new("early_stop", false, format!("{} instead of items", describe(&other))),
        };
        let expected: Vec<u64> = (0..EARLY_STOP_TAKE as u64).collect();
        let right_items = got == expected;
        // A contestant that hands nothing off generates exactly what it delivers.
        let limit = EARLY_STOP_TAKE as u64 + bound.unwrap_or(0);
        let stopped = emitted <= limit;
        let passed = right_items && live == 0 && tasks.is_none_or(|t| t == 0) && stopped;
        Check::new(
            "early_stop",
            passed,
            format!(
                "took {} items ({}); the producer emitted {emitted} of {EARLY_STOP_ITEMS} items (at most {limit}: \
                 the items taken plus the bound) and ended cleanly; {live} producer/consumer threads or tasks alive \
                 after the run{}",
                got.len(),
                if right_items { "the expected ones" } else { "WRONG items" },
                tasks.map_or(String::new(), |t| format!(", {t} runtime tasks alive"))
            ),
        )
    })
}

/// Where the producer's injected faults fire in a run of [`ITEMS`]: its first item (before any reached the
/// consumer), item [`FAULT_AT`], and its last (the consumer draining, the producer about to be done).
pub const FAULT_POINTS: [u64; 3] = [0, FAULT_AT, ITEMS - 1];

/// A producer whose item source returns an error at its first, [`FAULT_AT`]-th or last item ends the run with
/// that error (never a short sum), within the contestant's bound while the error propagates, leaving nothing
/// running.
pub fn producer_error(contestant: &Arc<dyn HandoffContestant>, config: &HandoffConfig) -> Check {
    guarded("producer_error", contestant, config, |bench| fault_runs(&bench, FaultAction::Error))
}

/// A producer that panics at its first, [`FAULT_AT`]-th or last item makes the run return
/// `HandoffError::Panicked` for the producer (the panic does not propagate, and the consumer's tidy end of
/// stream does not pass for success), leaving nothing running.
pub fn producer_panic(contestant: &Arc<dyn HandoffContestant>, config: &HandoffConfig) -> Check {
    guarded("producer_panic", contestant, config, |bench| fault_runs(&bench, FaultAction::Panic))
}

/// `producer_error`, `producer_panic`, then `clean_after_faults`, all on one prepared contestant: after every
/// fault of both kinds, a clean run on the same runtime or threads returns exactly `0..ITEMS` in order, stays
/// within the bound (back to zero after) and leaves nothing running.
pub fn faults(contestant: &Arc<dyn HandoffContestant>, config: &HandoffConfig) -> Vec<Check> {
    let bound = contestant.bound(config);
    let names = ["producer_error", "producer_panic", "clean_after_faults"];
    guarded_all(&names, contestant, config, move |bench| {
        let error = fault_runs(&bench, FaultAction::Error);
        let panic = fault_runs(&bench, FaultAction::Panic);
        let clean = clean_run(&bench, bound);
        vec![error, panic, clean]
    })
}

/// A fault at every point of [`FAULT_POINTS`], one action: each run must end with the injected fault and leave
/// nothing alive.
fn fault_runs(bench: &Bench, action: FaultAction) -> Check {
    let name = match action {
        FaultAction::Error => "producer_error",
        FaultAction::Panic => "producer_panic",
    };
    let mut failures = Vec::new();
    for at in FAULT_POINTS {
        let fault = Fault { at, action };
        let behaviour = Behaviour::Instrumented(Arc::new(Instruments::new(Some(fault))));
        let (out, gauge) = bench.run(ITEMS, &behaviour, Consumer::Sum);
        let live = bench.live.current();
        let tasks = bench.tasks_settle();
        let high = gauge.high_water();
        let within = bench.bound.is_none_or(|bound| high <= bound as i64);
        let right_error = match (&out, action) {
            (Err(HandoffError::Producer(e)), FaultAction::Error) => e.at == at,
            (Err(HandoffError::Panicked { side: Side::Producer, message }), FaultAction::Panic) => {
                *message == injected_panic_message(at)
            }
            _ => false,
        };
        if !(right_error && within && live == 0 && tasks.is_none_or(|t| t == 0)) {
            failures.push(format!(
                "at item {at}: {}; {high} outstanding at most (bound {:?}); {live} producer/consumer threads or \
                 tasks alive{}",
                describe(&out),
                bench.bound,
                tasks.map_or(String::new(), |t| format!(", {t} runtime tasks alive"))
            ));
        }
    }
    let places = format!("faults at items {FAULT_POINTS:?} of {ITEMS}");
    if failures.is_empty() {
        Check::new(
            name,
            true,
            format!("{places}: each ended the run with the injected {action:?}, nothing left running"),
        )
    } else {
        Check::new(name, false, format!("{places}: {}", failures.join("; ")))
    }
}

/// A clean collecting run on `bench`'s prepared contestant: exactly `0..ITEMS` in order, within `bound` and
/// back to zero (the gauge untouched without one), nothing left running.
fn clean_run(bench: &Bench, bound: Option<u64>) -> Check {
    let name = "clean_after_faults";
    let (out, gauge) = bench.run(ITEMS, &Behaviour::Clean, Consumer::Collect);
    let live = bench.live.current();
    let tasks = bench.tasks_settle();
    let mut problems = Vec::new();
    match &out {
        Ok(Outcome::Items(got)) => {
            if got.len() as u64 != ITEMS || got.iter().enumerate().any(|(i, &x)| x != i as u64) {
                problems.push(format!("{} items, not 0..{ITEMS} in order", got.len()));
            }
        }
        other => problems.push(format!("{} instead of items", describe(other))),
    }
    match bound {
        None if gauge.touched() => problems.push("declares no hand-off but touched the gauge".to_string()),
        None => {}
        Some(bound) => {
            let (high, settled) = (gauge.high_water(), gauge.current());
            if !(high >= 0 && high as u64 <= bound && settled == 0) {
                problems.push(format!("max outstanding {high} (bound {bound}), {settled} left after the run"));
            }
        }
    }
    if live != 0 {
        problems.push(format!("{live} producer/consumer threads or tasks alive"));
    }
    if let Some(t) = tasks.filter(|&t| t > 0) {
        problems.push(format!("{t} runtime tasks alive"));
    }
    if problems.is_empty() {
        Check::new(
            name,
            true,
            format!(
                "after {} faulted runs, a clean run on the same prepared contestant: 0..{ITEMS} each once in \
                 order{}, nothing left running",
                2 * FAULT_POINTS.len(),
                bound.map_or(String::new(), |b| format!(", within the bound {b}"))
            ),
        )
    } else {
        Check::new(name, false, format!("after the faulted runs: {}", problems.join("; ")))
    }
}

/// The most a cancelled run may take to return after the caller raised the cancellation.
pub const CANCEL_WITHIN: Duration = Duration::from_secs(2);
/// The range of items at which the caller cancels (the point is seeded by the contestant's name).
pub const CANCEL_POINTS: std::ops::Range<u64> = 1_000..50_000;

/// The caller cancels the run from another thread when the producer reaches a seeded item
/// ([`pipelines::cancel::CallerCancel`]; the consumer, the caller's end, drops its end at its next item): the
/// run returns within [`CANCEL_WITHIN`] with `0..n` (each item once, in order), the producer stopped having
/// emitted no more than those items plus a message plus the bound, and no thread or task is left. (A
/// synchronous call returns once by construction; what is checked is that it returns, promptly.)
pub fn caller_cancel(contestant: &Arc<dyn HandoffContestant>, config: &HandoffConfig) -> Check {
    let bound = contestant.bound(config);
    let per_message = contestant.items_per_message(config).unwrap_or(1) as u64;
    let point = seeded_point(&contestant.info().name, CANCEL_POINTS);
    guarded("caller_cancel", contestant, config, move |bench| {
        let cancel = Arc::new(CallerCancel::at(point));
        let instruments = Arc::new(Instruments::cancelled_by(Arc::clone(&cancel)));
        let caller = match CallerCancel::spawn_canceller(&cancel) {
            Ok(caller) => caller,
            Err(err) => return Check::new("caller_cancel", false, format!("could not start the caller: {err}")),
        };
        let behaviour = Behaviour::Instrumented(Arc::clone(&instruments));
        let (out, _) = bench.run(EARLY_STOP_ITEMS, &behaviour, Consumer::Cancellable);
        let returned = Instant::now();
        cancel.abandon();
        let raised = caller.join().unwrap_or(false);
        let live = bench.live.current();
        let tasks = bench.tasks_settle();
        let emitted = instruments.emitted();
        let mut problems = Vec::new();
        if !raised {
            problems.push(format!("the producer never reached item {point}, so the caller never cancelled"));
        }
        let latency = cancel.raised_at().map(|t| returned.saturating_duration_since(t));
        if let Some(late) = latency.filter(|&l| l > CANCEL_WITHIN) {
            problems.push(format!("returned {:.0} ms after the cancel", late.as_secs_f64() * 1e3));
        }
        let delivered = match &out {
            Ok(Outcome::Items(got)) => {
                if got.iter().enumerate().any(|(i, &x)| x != i as u64) {
                    problems.push(format!("{} items delivered, not 0..{} each once in order", got.len(), got.len()));
                }
                got.len() as u64
            }
            other => {
                problems.push(format!("{} instead of the items delivered before the cancel", describe(other)));
                0
            }
        };
        let limit = delivered + per_message + bound.unwrap_or(0);
        if emitted >= EARLY_STOP_ITEMS {
            problems.push(format!("the producer emitted all {emitted} items: the cancel did not stop it"));
        } else if emitted > limit {
            problems.push(format!(
                "the producer emitted {emitted} items after {delivered} were delivered (at most {limit}: those, a \
                 message and the bound): the cancel did not stop it"
            ));
        }
        if live != 0 {
            problems.push(format!("{live} producer/consumer threads or tasks alive"));
        }
        if let Some(t) = tasks.filter(|&t| t > 0) {
            problems.push(format!("{t} runtime tasks alive"));
        }
        if problems.is_empty() {
            Check::new(
                "caller_cancel",
                true,
                format!(
                    "cancelled by the caller at item {point} of {EARLY_STOP_ITEMS}: returned {:.1} ms later (limit \
                     {} ms) with 0..{delivered} each once in order; the producer emitted {emitted} (at most \
                     {limit}); nothing left running",
                    latency.unwrap_or_default().as_secs_f64() * 1e3,
                    CANCEL_WITHIN.as_millis(),
                ),
            )
        } else {
            Check::new("caller_cancel", false, format!("cancelled at item {point}: {}", problems.join("; ")))
        }
    })
}

/// What a check runs against: a freshly prepared contestant and the live counter of its runs.
struct Bench {
    prepared: Box<dyn PreparedHandoff>,
    /// The contestant's outstanding-work bound, held in every run, faulted or not.
    bound: Option<u64>,
    config: HandoffConfig,
    live: Arc<LiveStages>,
}

impl Bench {
    fn run(
        &self,
        items: u64,
        behaviour: &Behaviour,
        consumer: Consumer,
    ) -> (Result<Outcome, HandoffError>, Arc<Outstanding>) {
        let gauge = Arc::new(Outstanding::new());
        let meter = GaugeMeter::new(Arc::clone(&gauge));
        let job = Job { items, behaviour, consumer, meter, live: &self.live };
        let run = || self.prepared.run_metered(&job, &mut || {});
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).unwrap_or_else(|payload| {
            Err(HandoffError::Panicked {
                side: Side::Consumer,
                message: format!("propagated out of the contestant: {}", panic_message(&*payload)),
            })
        });
        (out, gauge)
    }

    /// Tasks alive on the contestant's runtime once they had up to [`pipelines::stream::runtime::TASK_RELEASE`]
    /// to be released.
    fn tasks_settle(&self) -> Option<usize> {
        settled_tasks(|| self.prepared.alive_tasks())
    }
}

/// Prepare `contestant` and run `check` in a helper thread under the watchdog ([`run_guarded`]); a check that
/// panics, hangs or cannot start fails with the watchdog's reason as its detail.
fn guarded(
    name: &'static str,
    contestant: &Arc<dyn HandoffContestant>,
    config: &HandoffConfig,
    check: impl FnOnce(Bench) -> Check + Send + 'static,
) -> Check {
    if let Some(why) = crate::contestants::not_applicable(contestant.as_ref(), name) {
        return Check::not_applicable(name, why);
    }
    let mut checks = guarded_all(&[name], contestant, config, move |bench| vec![check(bench)]);
    checks.pop().unwrap_or_else(|| Check::new(name, false, "the check returned nothing"))
}

/// [`guarded`] for checks that share one prepared contestant and report several results, named `names` (under
/// [`FAULTS_WATCHDOG`]): if preparing fails or the watchdog fires, every one of them fails with the reason.
fn guarded_all(
    names: &[&'static str],
    contestant: &Arc<dyn HandoffContestant>,
    config: &HandoffConfig,
    check: impl FnOnce(Bench) -> Vec<Check> + Send + 'static,
) -> Vec<Check> {
    let not_applicable: Vec<Option<&str>> =
        names.iter().map(|name| crate::contestants::not_applicable(contestant.as_ref(), name)).collect();
    if not_applicable.iter().all(Option::is_some) {
        return names
            .iter()
            .zip(not_applicable)
            .map(|(name, why)| Check::not_applicable(*name, why.unwrap_or_default()))
            .collect();
    }
    let contestant = Arc::clone(contestant);
    let config = *config;
    let prepared_check = move || {
        let prepared = contestant.prepare(&config).map_err(|err| format!("could not prepare: {err}"))?;
        let bound = contestant.bound(&config);
        Ok(check(Bench { prepared, bound, config, live: Arc::new(LiveStages::new()) }))
    };
    let watchdog = if names.len() > 1 { FAULTS_WATCHDOG } else { WATCHDOG };
    run_guarded(names[0], watchdog, prepared_check)
        .map_err(|err| err.to_string())
        .and_then(|checks| checks)
        .unwrap_or_else(|reason: String| names.iter().map(|name| Check::new(*name, false, reason.clone())).collect())
}

fn describe(out: &Result<Outcome, HandoffError>) -> String {
    match out {
        Ok(Outcome::Sum { sum, count, .. }) => format!("Ok(sum {sum} of {count} items)"),
        Ok(Outcome::Items(items)) => format!("Ok({} items)", items.len()),
        Err(err) => format!("Err({err})"),
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
