//! Conformance checks every chain contestant must pass before its timings mean anything, written once and
//! generic over [`ChainContestant`], so a new contestant gets them for free.
//!
//! Each check prepares the contestant afresh, runs it on a small input and returns a
//! [`measure::summary::Check`]; none of them looks at a clock except the watchdog and `caller_cancel` (which
//! allows a generous [`CANCEL_WITHIN`] between the cancel and the return): every check runs in a helper thread
//! ([`measure::watchdog::run_guarded`]) and a check that has not answered within [`WATCHDOG`] fails as hung (its
//! thread is left behind) instead of blocking the process.
//!
//! Faults fire at each stage's first, [`FAULT_AT`]-th and last element ([`fault_points`]): the first before any
//! item reached the consumer, the last while the consumer drains and the source is done, the cases where
//! hand-off code most often hangs, loses the error or reports a short sum as success.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use measure::gauge::Outstanding;
use measure::meter::GaugeMeter;
use measure::summary::Check;
use measure::watchdog::run_guarded;

use super::contestants::{ChainContestant, PreparedChain};
use super::job::{
    Behaviour, ChainConfig, ChainError, Consumer, Fault, FaultAction, Instruments, Job, Outcome, StageName,
};
use super::ops::{reference_checksum, reference_items};
use crate::cancel::{seeded_point, CallerCancel};
use crate::stream::runtime::settled_tasks;
use crate::{panic_message, LiveStages, QuietInjectedPanics};

/// How long a check may take before it counts as hung.
pub const WATCHDOG: Duration = Duration::from_secs(20);
/// How long [`faults`] may take before its checks count as hung: it runs three checks' worth of runs (every
/// fault of both kinds, then the clean run) on one prepared contestant, so it gets three checks' time.
pub const FAULTS_WATCHDOG: Duration = Duration::from_secs(60);
/// Input size of the checks.
pub const ITEMS: u64 = 20_000;
/// Input size of the early-stop check: large enough that a pipeline that failed to stop would visibly have
/// processed far more than it was asked for.
pub const EARLY_STOP_ITEMS: u64 = 200_000;
/// Items the early-stop consumer takes before dropping the pipeline.
pub const EARLY_STOP_TAKE: usize = 10;
/// The element at which injected faults fire (counted per stage).
pub const FAULT_AT: u64 = 1_000;

/// Every check, in order: `checksum`, `exactly_once`, `bounded_outstanding`, `early_stop`, then [`faults`]
/// (`stage_error`, `stage_panic`, `clean_after_faults` on one prepared contestant), then `caller_cancel`.
pub fn all(contestant: &Arc<dyn ChainContestant>, config: &ChainConfig) -> Vec<Check> {
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

/// The sum equals [`reference_checksum`] exactly, for work 0 and work 3.
pub fn checksum(contestant: &Arc<dyn ChainContestant>, config: &ChainConfig) -> Check {
    guarded("checksum", contestant, config, |bench| {
        let mut details = Vec::new();
        let mut passed = true;
        for work in [0, 3] {
            let reference = reference_checksum(&bench.input, work);
            let (out, _) = bench.run(work, &Behaviour::Clean, Consumer::Sum);
            match out {
                Ok(Outcome::Sum(sum)) => {
                    passed &= sum == reference;
                    details.push(format!("work {work}: {sum} vs reference {reference}"));
                }
                other => {
                    passed = false;
                    details.push(format!("work {work}: {} instead of a sum", describe(&other)));
                }
            }
        }
        Check::new("checksum", passed, format!("{} items; {}", ITEMS, details.join("; ")))
    })
}

/// Every expected item arrives exactly once (and, for ordered contestants, in input order).
pub fn exactly_once(contestant: &Arc<dyn ChainContestant>, config: &ChainConfig) -> Check {
    let ordered = contestant.ordered();
    guarded("exactly_once", contestant, config, move |bench| {
        let expected = reference_items(&bench.input, 3);
        let (out, _) = bench.run(3, &Behaviour::Clean, Consumer::Collect);
        let got = match out {
            Ok(Outcome::Items(items)) => items,
            other => return Check::new("exactly_once", false, format!("{} instead of items", describe(&other))),
        };
        if ordered {
            let first_difference = expected.iter().zip(&got).position(|(a, b)| a != b);
            let passed = got == expected;
            let detail = match (passed, first_difference) {
                (true, _) => format!("{} items, each once, in input order", got.len()),
                (false, Some(i)) => {
                    format!("{} items vs {} expected; first difference at {i}", got.len(), expected.len())
                }
                (false, None) => format!("{} items vs {} expected (a prefix matches)", got.len(), expected.len()),
            };
            Check::new("exactly_once", passed, detail)
        } else {
            let (missing, extra) = multiset_difference(&expected, &got);
            Check::new(
                "exactly_once",
                missing == 0 && extra == 0,
                format!(
                    "{} items vs {} expected, compared as a multiset (unordered contestant: order not checked); \
                     {missing} missing, {extra} extra",
                    got.len(),
                    expected.len()
                ),
            )
        }
    })
}

/// The gauge's high-water mark stays within the contestant's bound; contestants without a bound must not touch
/// the gauge.
pub fn bounded_outstanding(contestant: &Arc<dyn ChainContestant>, config: &ChainConfig) -> Check {
    let bound = contestant.bound(config);
    guarded("bounded_outstanding", contestant, config, move |bench| {
        let (out, gauge) = bench.run(0, &Behaviour::Clean, Consumer::Sum);
        if let Err(err) = out {
            return Check::new("bounded_outstanding", false, format!("the run failed: {err}"));
        }
        match bound {
            None if gauge.touched() => Check::new(
                "bounded_outstanding",
                false,
                "declares no hand-off queue (bound none) but touched the gauge",
            ),
            None => Check::not_applicable("bounded_outstanding", "no hand-off queue, the gauge was never touched"),
            Some(bound) => {
                let high = gauge.high_water();
                let settled = gauge.current();
                Check::new(
                    "bounded_outstanding",
                    gauge.touched() && high >= 0 && high as u64 <= bound && settled == 0,
                    format!(
                        "max outstanding {high} items, bound {bound}; {settled} outstanding after the run (must be 0)"
                    ),
                )
            }
        }
    })
}

/// A consumer that takes a few items and drops the pipeline gets those items, the run returns, every stage has
/// ended, and the source stopped long before the end of the input.
pub fn early_stop(contestant: &Arc<dyn ChainContestant>, config: &ChainConfig) -> Check {
    let ordered = contestant.ordered();
    guarded("early_stop", contestant, config, move |mut bench| {
        bench.input = (0..EARLY_STOP_ITEMS).collect::<Vec<u64>>().into();
        let instruments = Arc::new(Instruments::new(None));
        let behaviour = Behaviour::Instrumented(Arc::clone(&instruments));
        let (out, _) = bench.run(0, &behaviour, Consumer::Take(EARLY_STOP_TAKE));
        let live = bench.live.current();
        let tasks = bench.tasks_settle();
        let seen = instruments.seen(StageName::Map1);
        let got = match out {
            Ok(Outcome::Items(items)) => items,
            other => return Check::new("early_stop", false, format!("{} instead of items", describe(&other))),
        };
        let expected = reference_items(&bench.input, 0);
        let right_items = if ordered {
            got[..] == expected[..EARLY_STOP_TAKE.min(expected.len())]
        } else {
            got.len() == EARLY_STOP_TAKE && multiset_difference(&expected, &got).1 == 0
        };
        let stopped_early = seen < EARLY_STOP_ITEMS;
        let passed = right_items && live == 0 && tasks.is_none_or(|t| t == 0) && stopped_early;
        Check::new(
            "early_stop",
            passed,
            format!(
                "took {} items ({}); {live} stage threads/tasks alive after run{}; map1 saw {seen} of {} items",
                got.len(),
                if right_items { "the expected ones" } else { "WRONG items" },
                tasks.map_or(String::new(), |t| format!(", {t} runtime tasks alive")),
                EARLY_STOP_ITEMS
            ),
        )
    })
}

/// Where a stage's injected faults fire, for a run over `input`: its first element, its [`FAULT_AT`]-th, and its
/// last (`map1` and the filter see every input element; `map2` only those the filter keeps).
pub fn fault_points(stage: StageName, input: &[u64]) -> [u64; 3] {
    let seen = match stage {
        StageName::Map1 | StageName::Filter => input.len(),
        StageName::Map2 => reference_items(input, 0).len(),
    } as u64;
    [0, FAULT_AT.min(seen.saturating_sub(1)), seen.saturating_sub(1)]
}

/// A stage that returns an error at its first, its [`FAULT_AT`]-th or its last element ([`fault_points`]) ends
/// the run with that error (never a short sum passed off as success), for each stage, within the contestant's
/// bound while the error propagates, leaving no stage alive.
pub fn stage_error(contestant: &Arc<dyn ChainContestant>, config: &ChainConfig) -> Check {
    guarded("stage_error", contestant, config, |bench| fault_runs(&bench, FaultAction::Error))
}

/// A stage that panics at its first, its [`FAULT_AT`]-th or its last element makes the run return
/// `ChainError::Panicked` (the panic does not propagate), for each stage, leaving no stage alive. Injected
/// panics are kept off standard error.
pub fn stage_panic(contestant: &Arc<dyn ChainContestant>, config: &ChainConfig) -> Check {
    let _quiet = QuietInjectedPanics::install();
    guarded("stage_panic", contestant, config, |bench| fault_runs(&bench, FaultAction::Panic))
}

/// `stage_error`, `stage_panic`, then `clean_after_faults`, all on one prepared contestant: after every fault
/// of both kinds, a clean run on the same runtime, pool or threads returns the exact items, stays within the
/// bound (back to zero after) and leaves nothing running: a pool left with a dead worker or a runtime with a
/// stuck task fails here instead of being timed.
pub fn faults(contestant: &Arc<dyn ChainContestant>, config: &ChainConfig) -> Vec<Check> {
    let _quiet = QuietInjectedPanics::install();
    let (bound, ordered) = (contestant.bound(config), contestant.ordered());
    let names = ["stage_error", "stage_panic", "clean_after_faults"];
    guarded_all(&names, contestant, config, move |bench| {
        let error = fault_runs(&bench, FaultAction::Error);
        let panic = fault_runs(&bench, FaultAction::Panic);
        let clean = clean_run(&bench, "clean_after_faults", bound, ordered);
        vec![error, panic, clean]
    })
}

/// Every stage, every fault point, one action: the run must end with the injected fault and leave nothing alive.
fn fault_runs(bench: &Bench, action: FaultAction) -> Check {
    let name = match action {
        FaultAction::Error => "stage_error",
        FaultAction::Panic => "stage_panic",
    };
    let mut failures = Vec::new();
    let mut runs = 0;
    for stage in StageName::ALL {
        for at in fault_points(stage, &bench.input) {
            runs += 1;
            let fault = Fault { stage, at, action };
            let behaviour = Behaviour::Instrumented(Arc::new(Instruments::new(Some(fault))));
            let (out, gauge) = bench.run(0, &behaviour, Consumer::Sum);
            let live = bench.live.current();
            let tasks = bench.tasks_settle();
            let high = gauge.high_water();
            let within = bench.bound.is_none_or(|bound| high <= bound as i64);
            let right_error = match (&out, action) {
                (Err(ChainError::Stage(e)), FaultAction::Error) => e.stage == stage && e.at == at,
                // Named after the thread or task that ran the stage: itself, or a fused `source+map1+filter`.
                (Err(ChainError::Panicked { stage: s, message }), FaultAction::Panic) => {
                    message.contains("injected panic") && s.split('+').any(|part| part == stage.as_str())
                }
                _ => false,
            };
            if !(right_error && within && live == 0 && tasks.is_none_or(|t| t == 0)) {
                failures.push(format!(
                    "{stage} at {at}: {}{}{}{}",
                    describe(&out),
                    if within { String::new() } else { format!(", {high} outstanding (bound {:?})", bench.bound) },
                    if live == 0 { String::new() } else { format!(", {live} stages still alive") },
                    match tasks {
                        Some(t) if t > 0 => format!(", {t} runtime tasks alive"),
                        _ => String::new(),
                    }
                ));
            }
        }
    }
    let points = |stage| {
        let [first, middle, last] = fault_points(stage, &bench.input);
        format!("{stage} at {first}, {middle}, {last}")
    };
    let places = StageName::ALL.map(points).join("; ");
    if failures.is_empty() {
        Check::new(
            name,
            true,
            format!(
                "{runs} runs ({places}): each ended with the injected {action:?}, {}and left nothing running",
                if bench.bound.is_some() { "stayed within the bound while it propagated, " } else { "" }
            ),
        )
    } else {
        Check::new(
            name,
            false,
            format!("{} of {runs} runs ({places}) went wrong: {}", failures.len(), failures.join("; ")),
        )
    }
}

/// A clean collecting run on `bench`'s prepared contestant: the exact items (in order if `ordered`), within
/// `bound` and back to zero (or the gauge untouched without one), nothing left running.
fn clean_run(bench: &Bench, name: &'static str, bound: Option<u64>, ordered: bool) -> Check {
    let expected = reference_items(&bench.input, 3);
    let (out, gauge) = bench.run(3, &Behaviour::Clean, Consumer::Collect);
    let live = bench.live.current();
    let tasks = bench.tasks_settle();
    let mut problems = Vec::new();
    match &out {
        Ok(Outcome::Items(got)) => {
            let right = if ordered { *got == expected } else { multiset_difference(&expected, got) == (0, 0) };
            if !right {
                problems.push(format!("{} items instead of the {} expected ones", got.len(), expected.len()));
            }
        }
        other => problems.push(format!("{} instead of items", describe(other))),
    }
    match bound {
        None if gauge.touched() => problems.push("declares no bound but touched the gauge".to_string()),
        None => {}
        Some(bound) => {
            let (high, settled) = (gauge.high_water(), gauge.current());
            if !(high >= 0 && high as u64 <= bound && settled == 0) {
                problems.push(format!("max outstanding {high} (bound {bound}), {settled} left after the run"));
            }
        }
    }
    if live != 0 {
        problems.push(format!("{live} stages still alive"));
    }
    if let Some(t) = tasks.filter(|&t| t > 0) {
        problems.push(format!("{t} runtime tasks alive"));
    }
    if problems.is_empty() {
        Check::new(
            name,
            true,
            format!(
                "after {} faulted runs, a clean run on the same prepared contestant: {} items, exact{}{}, nothing \
                 left running",
                6 * StageName::ALL.len(),
                expected.len(),
                if ordered { " and in order" } else { " (as a multiset)" },
                bound.map_or(String::new(), |b| format!(", within the bound {b}"))
            ),
        )
    } else {
        Check::new(name, false, format!("after the faulted runs: {}", problems.join("; ")))
    }
}

/// The most a cancelled run may take to return after the caller raised the cancellation.
pub const CANCEL_WITHIN: Duration = Duration::from_secs(2);
/// The range of `map1` elements at which the caller cancels (the point is seeded by the contestant's name).
pub const CANCEL_POINTS: std::ops::Range<u64> = 1_000..50_000;

/// The caller cancels the run from another thread when `map1` reaches a seeded element
/// ([`crate::cancel::CallerCancel`]; the consumer, the caller's end, drops the pipeline at its next item): the
/// run returns its items within [`CANCEL_WITHIN`], each delivered once (a prefix of the expected items for
/// ordered contestants, no duplicate or stranger otherwise), the source stopped before the end of the
/// [`EARLY_STOP_ITEMS`] input, and no stage, thread or task is left. (A synchronous call returns once by
/// construction; what is checked is that it returns, promptly.)
pub fn caller_cancel(contestant: &Arc<dyn ChainContestant>, config: &ChainConfig) -> Check {
    let ordered = contestant.ordered();
    let point = seeded_point(&contestant.info().name, CANCEL_POINTS);
    guarded("caller_cancel", contestant, config, move |mut bench| {
        bench.input = (0..EARLY_STOP_ITEMS).collect::<Vec<u64>>().into();
        let cancel = Arc::new(CallerCancel::at(point));
        let instruments = Arc::new(Instruments::cancelled_by(Arc::clone(&cancel)));
        let caller = match CallerCancel::spawn_canceller(&cancel) {
            Ok(caller) => caller,
            Err(err) => return Check::new("caller_cancel", false, format!("could not start the caller: {err}")),
        };
        let (out, _) = bench.run(0, &Behaviour::Instrumented(Arc::clone(&instruments)), Consumer::Cancellable);
        let returned = Instant::now();
        cancel.abandon();
        let raised = caller.join().unwrap_or(false);
        let live = bench.live.current();
        let tasks = bench.tasks_settle();
        let seen = instruments.seen(StageName::Map1);
        let expected = reference_items(&bench.input, 0);
        let mut problems = Vec::new();
        if !raised {
            problems.push(format!("the run never reached map1's element {point}, so the caller never cancelled"));
        }
        let latency = cancel.raised_at().map(|t| returned.saturating_duration_since(t));
        if latency.is_some_and(|l| l > CANCEL_WITHIN) {
            problems
                .push(format!("returned {:.0} ms after the cancel", latency.unwrap_or_default().as_secs_f64() * 1e3));
        }
        let delivered = match &out {
            Ok(Outcome::Items(got)) => {
                let once = if ordered {
                    got.len() <= expected.len() && got[..] == expected[..got.len()]
                } else {
                    multiset_difference(&expected, got).1 == 0
                };
                if !once {
                    problems.push(format!("{} items delivered, not each expected one once", got.len()));
                }
                got.len()
            }
            other => {
                problems.push(format!("{} instead of the items delivered before the cancel", describe(other)));
                0
            }
        };
        if seen >= EARLY_STOP_ITEMS {
            problems.push(format!("map1 saw all {seen} items: the cancel did not stop the source"));
        }
        if live != 0 {
            problems.push(format!("{live} stages still alive"));
        }
        if let Some(t) = tasks.filter(|&t| t > 0) {
            problems.push(format!("{t} runtime tasks alive"));
        }
        if problems.is_empty() {
            Check::new(
                "caller_cancel",
                true,
                format!(
                    "cancelled by the caller at map1's element {point} of {EARLY_STOP_ITEMS}: returned {:.1} ms \
                     later (limit {} ms) with {delivered} items, each once{}; map1 saw {seen}; nothing left running",
                    latency.unwrap_or_default().as_secs_f64() * 1e3,
                    CANCEL_WITHIN.as_millis(),
                    if ordered { ", in order" } else { "" },
                ),
            )
        } else {
            Check::new("caller_cancel", false, format!("cancelled at map1's element {point}: {}", problems.join("; ")))
        }
    })
}

/// What a check runs against: a freshly prepared contestant, an input, and the gauge and live-stage counter
/// of its runs.
struct Bench {
    prepared: Box<dyn PreparedChain>,
    /// The contestant's outstanding-work bound, held in every run, faulted or not.
    bound: Option<u64>,
    input: Arc<[u64]>,
    live: Arc<LiveStages>,
}

impl Bench {
    fn run(
        &self,
        work: u32,
        behaviour: &Behaviour,
        consumer: Consumer,
    ) -> (Result<Outcome, ChainError>, Arc<Outstanding>) {
        let gauge = Arc::new(Outstanding::new());
        let meter = GaugeMeter::new(Arc::clone(&gauge));
        let job = Job { input: &self.input, work, behaviour, consumer, meter, live: &self.live };
        let run = || self.prepared.run_metered(&job, &mut || {});
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).unwrap_or_else(|payload| {
            Err(ChainError::Panicked {
                stage: "run (propagated out of the contestant!)".to_string(),
                message: panic_message(&*payload),
            })
        });
        (out, gauge)
    }

    /// Tasks alive on the contestant's runtime once they had up to [`crate::stream::runtime::TASK_RELEASE`] to be
    /// released.
    fn tasks_settle(&self) -> Option<usize> {
        settled_tasks(|| self.prepared.alive_tasks())
    }
}

/// Prepare `contestant` and run `check` in a helper thread under the watchdog ([`run_guarded`]); a check that
/// panics, hangs or cannot start fails with the watchdog's reason as its detail.
fn guarded(
    name: &'static str,
    contestant: &Arc<dyn ChainContestant>,
    config: &ChainConfig,
    check: impl FnOnce(Bench) -> Check + Send + 'static,
) -> Check {
    let mut checks = guarded_all(&[name], contestant, config, move |bench| vec![check(bench)]);
    checks.pop().unwrap_or_else(|| Check::new(name, false, "the check returned nothing"))
}

/// [`guarded`] for checks that share one prepared contestant and report several results, named `names` (under
/// [`FAULTS_WATCHDOG`]): if preparing fails or the watchdog fires, every one of them fails with the reason.
fn guarded_all(
    names: &[&'static str],
    contestant: &Arc<dyn ChainContestant>,
    config: &ChainConfig,
    check: impl FnOnce(Bench) -> Vec<Check> + Send + 'static,
) -> Vec<Check> {
    let contestant = Arc::clone(contestant);
    let config = *config;
    let prepared_check = move || {
        let prepared = contestant.prepare(&config).map_err(|err| format!("could not prepare: {err}"))?;
        let input: Arc<[u64]> = (0..ITEMS).collect::<Vec<u64>>().into();
        let bound = contestant.bound(&config);
        Ok(check(Bench { prepared, bound, input, live: Arc::new(LiveStages::new()) }))
    };
    let watchdog = if names.len() > 1 { FAULTS_WATCHDOG } else { WATCHDOG };
    run_guarded(names[0], watchdog, prepared_check)
        .map_err(|err| err.to_string())
        .and_then(|checks| checks)
        .unwrap_or_else(|reason: String| names.iter().map(|name| Check::new(*name, false, reason.clone())).collect())
}

fn describe(out: &Result<Outcome, ChainError>) -> String {
    match out {
        Ok(Outcome::Sum(sum)) => format!("Ok(sum {sum})"),
        Ok(Outcome::Items(items)) => format!("Ok({} items)", items.len()),
        Err(err) => format!("Err({err})"),
    }
}

/// `(missing, extra)`: how many of `expected` are not in `got`, and how many of `got` are not in `expected`,
/// counting multiplicity.
fn multiset_difference(expected: &[u64], got: &[u64]) -> (usize, usize) {
    let mut counts: BTreeMap<u64, i64> = BTreeMap::new();
    for &x in expected {
        *counts.entry(x).or_default() += 1;
    }
    for &x in got {
        *counts.entry(x).or_default() -= 1;
    }
    let missing = counts.values().filter(|&&c| c > 0).map(|&c| c as usize).sum();
    let extra = counts.values().filter(|&&c| c < 0).map(|&c| (-c) as usize).sum();
    (missing, extra)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multiset_difference_counts_multiplicity() {
        assert_eq!(multiset_difference(&[1, 2, 2, 3], &[3, 2, 1, 2]), (0, 0));
        assert_eq!(multiset_difference(&[1, 2, 2], &[2, 4]), (2, 1));
    }
}
