//! One conformance kit for the scenarios whose contestants move items from a source to a consumer (the chain,
//! the hand-off): every check written once, generic over [`Contestant`], which a scenario implements with its
//! sizes ([`Sizes`]), its words ([`Words`]) and its domain (what a clean run returns, where faults fire, which
//! error is the injected one).
//!
//! Each check prepares the contestant afresh, runs it on a small job and returns a [`Check`]; none of them
//! looks at a clock except the watchdog and [`caller_cancel`] (which allows a generous [`CANCEL_WITHIN`] between
//! the cancel and the return): every check runs in a helper thread ([`run_guarded`]) and a check that has not
//! answered within [`WATCHDOG`] fails as hung (its thread is left behind) instead of blocking the process.
//!
//! Faults fire at each site's first, [`Sizes::fault_at`]-th and last element ([`fault_points`]): the first
//! before any item reached the consumer, the last while the consumer drains and the source is done, the cases
//! where hand-off code most often hangs, loses the error or reports a short sum as success. [`Broken`] wraps a
//! contestant to misbehave in one way, so that a reject test can show each check fail.

mod broken;

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::sync::Arc;
use std::time::{Duration, Instant};

use measure::gauge::Outstanding;
use measure::meter::GaugeMeter;
use measure::summary::Check;
use measure::watchdog::{run_guarded, WatchdogError};

pub use broken::{Breakage, Broken, BrokenPrepared};

use crate::cancel::{seeded_point, CallerCancel};
use crate::stream::runtime::settled_tasks;
use crate::{panic_message, LiveStages, QuietInjectedPanics};

/// How long a check may take before it counts as hung.
pub const WATCHDOG: Duration = Duration::from_secs(20);
/// How long [`faults`] may take before its checks count as hung: it runs three checks' worth of runs (every
/// fault of both kinds, then the clean run) on one prepared contestant, so it gets three checks' time.
pub const FAULTS_WATCHDOG: Duration = Duration::from_secs(60);
/// The most a cancelled run may take to return after the caller raised the cancellation.
pub const CANCEL_WITHIN: Duration = Duration::from_secs(2);
/// The range of source elements at which the caller cancels (the point is seeded by the contestant's name).
pub const CANCEL_POINTS: Range<u64> = 1_000..50_000;

/// A scenario's sizes for the checks.
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    /// Items of the checks.
    pub items: u64,
    /// Items of the early-stop and cancel runs: enough that a source that failed to stop shows it.
    pub early_stop_items: u64,
    /// Items the early-stop consumer takes before dropping its end.
    pub early_stop_take: usize,
    /// The element at which injected faults fire mid-run.
    pub fault_at: u64,
    /// The work of each checksum run (the scenario's [`Run::work`]).
    pub sum_works: &'static [u32],
    /// The work of exactly-once and clean-after-fault runs; every other run has work 0.
    pub work: u32,
}

/// How a scenario's checks and details name its parts.
#[derive(Debug, Clone, Copy)]
pub struct Words {
    /// The check of injected errors (`producer_error`, `stage_error`).
    pub error_check: &'static str,
    /// The check of injected panics (`producer_panic`, `stage_panic`).
    pub panic_check: &'static str,
    /// What the live count counts (`producer/consumer threads or tasks`, `stages`).
    pub parties: &'static str,
    /// Who counts the source's elements, and how (`the producer emitted`, `map1 saw`).
    pub counted: &'static str,
    /// What the cancel point counts (`item`, `map1's element`).
    pub point: &'static str,
    /// What a cancel that did not work failed to stop (`it`, `the source`).
    pub stopped: &'static str,
}

/// What the consumer of a checked run does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Consume {
    /// Sum the items.
    Sum,
    /// Collect every item, in arrival order.
    Collect,
    /// Take the first `k` items, then drop its end.
    Take(usize),
    /// Collect items until the caller cancels ([`Probe::Cancel`]), then drop its end.
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

/// A fault injected at element `at` of `site`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault<S> {
    /// Where (a stage, the producer).
    pub site: S,
    /// At which of its elements, counting from 0.
    pub at: u64,
    /// Error or panic.
    pub action: FaultAction,
}

/// What the source does besides emitting its items.
#[derive(Debug, Clone)]
pub enum Probe<S> {
    /// Nothing: the measured behaviour.
    Clean,
    /// Count the source's elements, and fail as the fault says, if there is one.
    Counted(Option<Fault<S>>),
    /// Count them; the caller cancels with this when the source reaches its point.
    Cancel(Arc<CallerCancel>),
}

/// One checked run, as the kit asks a [`Contestant`] for it.
#[derive(Debug)]
pub struct Run<'a, S> {
    /// The source emits `0..items`.
    pub items: u64,
    /// Work per item, for scenarios whose items carry some (the chain's mixing rounds).
    pub work: u32,
    /// Clean, counted, faulted or cancelled.
    pub probe: &'a Probe<S>,
    /// What the consumer does.
    pub consume: Consume,
    /// The gauge of outstanding items.
    pub meter: GaugeMeter,
    /// The live count of the run's threads and tasks.
    pub live: &'a Arc<LiveStages>,
}

/// What a checked run returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Got {
    /// A summing consumer's result.
    Sum {
        /// The wrapping sum.
        sum: u64,
        /// Items counted, if the consumer counts them.
        count: Option<u64>,
        /// The first item out of order, if the consumer checks the order.
        first_disorder: Option<u64>,
    },
    /// The items a collecting consumer received, in arrival order.
    Items(Vec<u64>),
}

/// Why a checked run failed.
#[derive(Debug, thiserror::Error)]
pub enum Failure<E: fmt::Display> {
    /// The run returned this error.
    #[error("{0}")]
    Run(E),
    /// A panic propagated out of the contestant (its message).
    #[error("the run panicked out of the contestant: {0}")]
    Propagated(String),
}

/// Why a check could not run its runs.
#[derive(Debug, thiserror::Error)]
pub enum KitError {
    /// Preparing the contestant failed (its error's message).
    #[error("could not prepare: {0}")]
    Prepare(String),
    /// The check panicked, hung or could not start.
    #[error(transparent)]
    Watchdog(#[from] WatchdogError),
}

/// A contestant as the kit checks it: a scenario's contestant under its config.
pub trait Contestant: Clone + Send + Sync + 'static {
    /// What [`Contestant::prepare`] builds (its runtime, pool or threads).
    type Prepared;
    /// Where faults can fire (a stage, the producer).
    type Site: Copy + fmt::Display + Send + Sync + 'static;
    /// Why a run or preparing failed.
    type Error: fmt::Display;
    /// The scenario's sizes.
    const SIZES: Sizes;
    /// The scenario's words.
    const WORDS: Words;
    /// Its name (seeds the cancel point).
    fn name(&self) -> String;
    /// The most items it may hold outstanding; `None` when it hands nothing off (the gauge stays untouched).
    fn bound(&self) -> Option<u64>;
    /// Whether items arrive in input order.
    fn ordered(&self) -> bool {
        true
    }
    /// The most source elements beyond those delivered once the consumer stopped (`cancel`: by the caller's
    /// cancel; else by taking its few); `None` when it is enough that the source stopped before the end.
    fn runs_ahead(&self, cancel: bool) -> Option<u64> {
        let _ = cancel;
        None
    }
    /// Why `check` does not apply to it, or `None` when it does.
    fn not_applicable(&self, check: &str) -> Option<&'static str> {
        let _ = check;
        None
    }
    /// Build what its runs need.
    fn prepare(&self) -> Result<Self::Prepared, Self::Error>;
    /// One run on `prepared`: its result and how many elements the probed source counted (0 when clean).
    fn run(&self, prepared: &Self::Prepared, run: &Run<'_, Self::Site>) -> (Result<Got, Self::Error>, u64);
    /// Tasks alive on its runtime; `None` without one.
    fn alive_tasks(&self, prepared: &Self::Prepared) -> Option<usize> {
        let _ = prepared;
        None
    }
    /// Whether `err` is what `fault` must end the run with.
    fn is_injected(&self, err: &Self::Error, fault: &Fault<Self::Site>) -> bool;
    /// Every fault site, with how many elements it sees in a run of `items`.
    fn fault_sites(&self, items: u64) -> Vec<(Self::Site, u64)>;
    /// The items a clean collecting run of `items` at `work` returns, in order.
    fn expected(&self, items: u64, work: u32) -> Vec<u64>;
}

/// Every check, in order: `checksum`, `exactly_once`, `bounded_outstanding`, `early_stop`, then [`faults`]
/// (the error and panic checks and `clean_after_faults` on one prepared contestant), then `caller_cancel`.
pub fn all<C: Contestant>(c: &C) -> Vec<Check> {
    let mut checks = vec![checksum(c), exactly_once(c), bounded_outstanding(c), early_stop(c)];
    checks.extend(faults(c));
    checks.push(caller_cancel(c));
    checks
}

/// Each summing run ([`Sizes::sum_works`]) returns the wrapping sum of the expected items exactly, counts them
/// (if it counts) and saw them in order (if it checks).
pub fn checksum<C: Contestant>(c: &C) -> Check {
    let Sizes { items, sum_works, .. } = C::SIZES;
    guarded("checksum", c, move |b| {
        let mut passed = true;
        let mut details = Vec::new();
        for &work in sum_works {
            let expected = b.c.expected(items, work);
            let reference = expected.iter().fold(0, |sum: u64, &x| sum.wrapping_add(x));
            let label = if sum_works.len() > 1 { format!("work {work}: ") } else { String::new() };
            details.push(match b.run(items, work, &Probe::Clean, Consume::Sum).out {
                Ok(Got::Sum { sum, count, first_disorder }) => {
                    passed &= sum == reference
                        && count.is_none_or(|n| n == expected.len() as u64)
                        && first_disorder.is_none();
                    let counted = count.map_or(String::new(), |n| format!(", {n} items counted"));
                    let order = first_disorder.map_or(String::new(), |i| format!(", item {i} out of order"));
                    format!("{label}sum {sum} vs reference {reference}{counted}{order}")
                }
                other => {
                    passed = false;
                    format!("{label}{} instead of a sum", describe(&other))
                }
            });
        }
        Check::new("checksum", passed, format!("{items} items; {}", details.join("; ")))
    })
}

/// Every expected item arrives exactly once (and, for ordered contestants, in input order).
pub fn exactly_once<C: Contestant>(c: &C) -> Check {
    let Sizes { items, work, .. } = C::SIZES;
    guarded("exactly_once", c, move |b| match b.run(items, work, &Probe::Clean, Consume::Collect).out {
        Ok(Got::Items(got)) => {
            let (passed, detail) = compare(&b.c.expected(items, work), &got, b.c.ordered());
            Check::new("exactly_once", passed, detail)
        }
        other => Check::new("exactly_once", false, format!("{} instead of items", describe(&other))),
    })
}

/// The gauge's exact high-water mark stays within the contestant's bound and is back at zero after the run; a
/// contestant without a bound must not touch the gauge.
pub fn bounded_outstanding<C: Contestant>(c: &C) -> Check {
    let name = "bounded_outstanding";
    guarded(name, c, move |b| {
        let ran = b.run(C::SIZES.items, 0, &Probe::Clean, Consume::Sum);
        if let Err(err) = &ran.out {
            return Check::new(name, false, format!("the run failed: {err}"));
        }
        let (touched, high, settled) = (ran.gauge.touched(), ran.gauge.high_water(), ran.gauge.current());
        match b.bound {
            None if touched => Check::new(name, false, "declares no hand-off (bound none) but touched the gauge"),
            None => Check::not_applicable(name, "no hand-off, the gauge was never touched"),
            Some(bound) => Check::new(
                name,
                touched && within(high, bound) && settled == 0,
                format!("max outstanding {high} items, bound {bound}; {settled} outstanding after the run (must be 0)"),
            ),
        }
    })
}

/// A consumer that takes [`Sizes::early_stop_take`] items and drops its end gets the first expected ones, the
/// run returns, nothing is left running, and the source stopped: within [`Contestant::runs_ahead`] of the
/// items taken, or else before the end of its input.
pub fn early_stop<C: Contestant>(c: &C) -> Check {
    let Sizes { early_stop_items: n, early_stop_take: take, .. } = C::SIZES;
    let words = C::WORDS;
    guarded("early_stop", c, move |b| {
        let ran = b.run(n, 0, &Probe::Counted(None), Consume::Take(take));
        let got = match &ran.out {
            Ok(Got::Items(items)) => items,
            other => return Check::new("early_stop", false, format!("{} instead of items", describe(other))),
        };
        let right = got.len() == take && delivered_once(&b.c.expected(n, 0), got, b.c.ordered());
        let (stopped, limit) = match b.c.runs_ahead(false).map(|ahead| take as u64 + ahead) {
            Some(limit) => (ran.emitted <= limit, format!(" (at most {limit}: the items taken plus the bound)")),
            None => (ran.emitted < n, String::new()),
        };
        Check::new(
            "early_stop",
            right && stopped && ran.leftovers(words.parties).is_empty(),
            format!(
                "took {} items ({}); {} {} of {n} items{limit}; {} {} alive after the run{}",
                got.len(),
                if right { "the expected ones" } else { "WRONG items" },
                words.counted,
                ran.emitted,
                ran.live,
                words.parties,
                ran.tasks.map_or(String::new(), |t| format!(", {t} runtime tasks alive"))
            ),
        )
    })
}

/// Where a site's injected faults fire when it sees `seen` elements: its first, its `fault_at`-th and its last.
pub fn fault_points(seen: u64, fault_at: u64) -> [u64; 3] {
    let last = seen.saturating_sub(1);
    [0, fault_at.min(last), last]
}

/// A site that fails as `action` says at its first, its [`Sizes::fault_at`]-th or its last element ends the
/// run with that fault (never a short sum passed off as success), for each site, within the contestant's bound
/// while the fault propagates, leaving nothing running. Injected panics are kept off standard error.
pub fn faulted<C: Contestant>(c: &C, action: FaultAction) -> Check {
    let _quiet = QuietInjectedPanics::install();
    guarded(check_name::<C>(action), c, move |b| fault_runs(&b, action))
}

/// The error check, the panic check, then `clean_after_faults`, all on one prepared contestant: after every
/// fault of both kinds, a clean run on the same runtime, pool or threads returns the exact items, stays within
/// the bound (back to zero after) and leaves nothing running: a pool left with a dead worker or a runtime with a
/// stuck task fails here instead of being timed.
pub fn faults<C: Contestant>(c: &C) -> Vec<Check> {
    let _quiet = QuietInjectedPanics::install();
    let names = [C::WORDS.error_check, C::WORDS.panic_check, "clean_after_faults"];
    guarded_all(&names, c, |b| {
        let error = fault_runs(&b, FaultAction::Error);
        let panic = fault_runs(&b, FaultAction::Panic);
        vec![error, panic, clean_run(&b)]
    })
}

fn check_name<C: Contestant>(action: FaultAction) -> &'static str {
    match action {
        FaultAction::Error => C::WORDS.error_check,
        FaultAction::Panic => C::WORDS.panic_check,
    }
}

/// Every site, every fault point, one action: the run must end with the injected fault and leave nothing alive.
fn fault_runs<C: Contestant>(b: &Bench<C>, action: FaultAction) -> Check {
    let Sizes { items, fault_at, .. } = C::SIZES;
    let (mut runs, mut places, mut failures) = (0, Vec::new(), Vec::new());
    for (site, seen) in b.c.fault_sites(items) {
        let points = fault_points(seen, fault_at);
        places.push(format!("{site} at {}, {}, {}", points[0], points[1], points[2]));
        for at in points {
            runs += 1;
            let fault = Fault { site, at, action };
            let ran = b.run(items, 0, &Probe::Counted(Some(fault)), Consume::Sum);
            let right = matches!(&ran.out, Err(Failure::Run(err)) if b.c.is_injected(err, &fault));
            let high = ran.gauge.high_water();
            let mut problems: Vec<String> = b
                .bound
                .filter(|&bound| !within(high, bound))
                .iter()
                .map(|bound| format!("{high} outstanding (bound {bound})"))
                .collect();
            problems.extend(ran.leftovers(C::WORDS.parties));
            if !right || !problems.is_empty() {
                failures.push(format!(
                    "{site} at {at}: {}{}",
                    describe(&ran.out),
                    problems.iter().map(|p| format!(", {p}")).collect::<String>()
                ));
            }
        }
    }
    let (name, places) = (check_name::<C>(action), places.join("; "));
    if failures.is_empty() {
        let bound = if b.bound.is_some() { "stayed within the bound while it propagated, " } else { "" };
        let detail =
            format!("{runs} runs ({places}): each ended with the injected {action:?}, {bound}and left nothing running");
        Check::new(name, true, detail)
    } else {
        let detail = format!("{} of {runs} runs ({places}) went wrong: {}", failures.len(), failures.join("; "));
        Check::new(name, false, detail)
    }
}

/// A clean collecting run on the bench's prepared contestant: the exact items (in order if it is ordered),
/// within the bound and back to zero (the gauge untouched without one), nothing left running.
fn clean_run<C: Contestant>(b: &Bench<C>) -> Check {
    let Sizes { items, work, fault_at, .. } = C::SIZES;
    let expected = b.c.expected(items, work);
    let ran = b.run(items, work, &Probe::Clean, Consume::Collect);
    let mut problems = Vec::new();
    match &ran.out {
        Ok(Got::Items(got)) => {
            problems.extend(Some(compare(&expected, got, b.c.ordered())).filter(|c| !c.0).map(|c| c.1))
        }
        other => problems.push(format!("{} instead of items", describe(other))),
    }
    let (high, settled) = (ran.gauge.high_water(), ran.gauge.current());
    match b.bound {
        None if ran.gauge.touched() => problems.push("declares no bound but touched the gauge".to_string()),
        None => {}
        Some(bound) if !(within(high, bound) && settled == 0) => {
            problems.push(format!("max outstanding {high} (bound {bound}), {settled} left after the run"));
        }
        Some(_) => {}
    }
    problems.extend(ran.leftovers(C::WORDS.parties));
    if problems.is_empty() {
        let faulted: usize = b.c.fault_sites(items).len() * 2 * fault_points(items, fault_at).len();
        Check::new(
            "clean_after_faults",
            true,
            format!(
                "after {faulted} faulted runs, a clean run on the same prepared contestant: {} items, exact{}{}, \
                 nothing left running",
                expected.len(),
                if b.c.ordered() { " and in order" } else { " (as a multiset)" },
                b.bound.map_or(String::new(), |bound| format!(", within the bound {bound}"))
            ),
        )
    } else {
        Check::new("clean_after_faults", false, format!("after the faulted runs: {}", problems.join("; ")))
    }
}

/// The caller cancels the run from another thread when the source reaches a point seeded by the contestant's
/// name ([`CallerCancel`]; the consumer, the caller's end, drops its end at its next item): the run returns
/// within [`CANCEL_WITHIN`] with each item it delivered once (a prefix of the expected items if ordered), the
/// source stopped (within [`Contestant::runs_ahead`] of the items delivered, or else before the end of its
/// input), and nothing is left running. (A synchronous call returns once by construction; what is checked is
/// that it returns, promptly.)
pub fn caller_cancel<C: Contestant>(c: &C) -> Check {
    let name = "caller_cancel";
    let point = seeded_point(&c.name(), CANCEL_POINTS);
    let (n, words) = (C::SIZES.early_stop_items, C::WORDS);
    guarded(name, c, move |b| {
        let cancel = Arc::new(CallerCancel::at(point));
        let caller = match CallerCancel::spawn_canceller(&cancel) {
            Ok(caller) => caller,
            Err(err) => return Check::new(name, false, format!("could not start the caller: {err}")),
        };
        let ran = b.run(n, 0, &Probe::Cancel(Arc::clone(&cancel)), Consume::Cancellable);
        cancel.abandon();
        let mut problems = Vec::new();
        if !caller.join().unwrap_or(false) {
            problems.push(format!("the run never reached {} {point}, so the caller never cancelled", words.point));
        }
        let latency = cancel.raised_at().map(|t| ran.returned.saturating_duration_since(t)).unwrap_or_default();
        if latency > CANCEL_WITHIN {
            problems.push(format!("returned {:.0} ms after the cancel", latency.as_secs_f64() * 1e3));
        }
        let delivered = match &ran.out {
            Ok(Got::Items(got)) => {
                if !delivered_once(&b.c.expected(n, 0), got, b.c.ordered()) {
                    problems.push(format!("{} items delivered, not each expected one once", got.len()));
                }
                got.len() as u64
            }
            other => {
                problems.push(format!("{} instead of the items delivered before the cancel", describe(other)));
                0
            }
        };
        let limit = b.c.runs_ahead(true).map(|ahead| delivered + ahead);
        if ran.emitted >= n {
            problems.push(format!(
                "{} all {} items: the cancel did not stop {}",
                words.counted, ran.emitted, words.stopped
            ));
        } else if let Some(limit) = limit.filter(|&limit| ran.emitted > limit) {
            problems.push(format!(
                "{} {} items after {delivered} were delivered (at most {limit}: those, a message and the bound): \
                 the cancel did not stop {}",
                words.counted, ran.emitted, words.stopped
            ));
        }
        problems.extend(ran.leftovers(words.parties));
        if !problems.is_empty() {
            let detail = format!("cancelled at {} {point}: {}", words.point, problems.join("; "));
            return Check::new(name, false, detail);
        }
        Check::new(
            name,
            true,
            format!(
                "cancelled by the caller at {} {point} of {n}: returned {:.1} ms later (limit {} ms) with \
                 {delivered} items, each once{}; {} {}{}; nothing left running",
                words.point,
                latency.as_secs_f64() * 1e3,
                CANCEL_WITHIN.as_millis(),
                if b.c.ordered() { ", in order" } else { "" },
                words.counted,
                ran.emitted,
                limit.map_or(String::new(), |limit| format!(" (at most {limit})")),
            ),
        )
    })
}

/// What a check runs against: a freshly prepared contestant, its bound, and the live count of its runs.
struct Bench<C: Contestant> {
    c: C,
    prepared: C::Prepared,
    bound: Option<u64>,
    live: Arc<LiveStages>,
}

/// What one checked run returned and left behind.
struct Ran<E: fmt::Display> {
    out: Result<Got, Failure<E>>,
    /// Elements the probed source counted.
    emitted: u64,
    gauge: Arc<Outstanding>,
    /// When the run returned.
    returned: Instant,
    /// Threads and tasks of the run alive right after it returned.
    live: usize,
    /// Tasks alive on the runtime once they had time to be released.
    tasks: Option<usize>,
}

impl<C: Contestant> Bench<C> {
    fn run(&self, items: u64, work: u32, probe: &Probe<C::Site>, consume: Consume) -> Ran<C::Error> {
        let gauge = Arc::new(Outstanding::new());
        let run = Run { items, work, probe, consume, meter: GaugeMeter::new(Arc::clone(&gauge)), live: &self.live };
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.c.run(&self.prepared, &run)));
        let returned = Instant::now();
        let (out, emitted) = match caught {
            Ok((out, emitted)) => (out.map_err(Failure::Run), emitted),
            Err(payload) => (Err(Failure::Propagated(panic_message(&*payload))), 0),
        };
        let live = self.live.current();
        let tasks = settled_tasks(|| self.c.alive_tasks(&self.prepared));
        Ran { out, emitted, gauge, returned, live, tasks }
    }
}

impl<E: fmt::Display> Ran<E> {
    /// What the run left running, one phrase each; empty when nothing.
    fn leftovers(&self, parties: &str) -> Vec<String> {
        let mut left = Vec::new();
        if self.live != 0 {
            left.push(format!("{} {parties} still alive", self.live));
        }
        left.extend(self.tasks.filter(|&t| t > 0).map(|t| format!("{t} runtime tasks alive")));
        left
    }
}

/// Prepare the contestant and run `check` under the watchdog ([`run_guarded`]); a check that panics, hangs or
/// cannot start fails with the watchdog's reason as its detail.
fn guarded<C: Contestant>(name: &'static str, c: &C, check: impl FnOnce(Bench<C>) -> Check + Send + 'static) -> Check {
    let mut checks = guarded_all(&[name], c, move |b| vec![check(b)]);
    checks.pop().unwrap_or_else(|| Check::new(name, false, "the check returned nothing"))
}

/// [`guarded`] for checks that share one prepared contestant and report several results, named `names` (under
/// [`FAULTS_WATCHDOG`]): if preparing fails or the watchdog fires, every one of them fails with the reason.
fn guarded_all<C: Contestant>(
    names: &[&'static str],
    c: &C,
    check: impl FnOnce(Bench<C>) -> Vec<Check> + Send + 'static,
) -> Vec<Check> {
    let why: Vec<Option<&str>> = names.iter().map(|name| c.not_applicable(name)).collect();
    if why.iter().all(Option::is_some) {
        return names
            .iter()
            .zip(why)
            .map(|(name, why)| Check::not_applicable(*name, why.unwrap_or_default()))
            .collect();
    }
    let c = c.clone();
    let prepared_check = move || {
        let prepared = c.prepare().map_err(|err| KitError::Prepare(err.to_string()))?;
        let bound = c.bound();
        Ok(check(Bench { c, prepared, bound, live: Arc::new(LiveStages::new()) }))
    };
    let watchdog = if names.len() > 1 { FAULTS_WATCHDOG } else { WATCHDOG };
    run_guarded(names.first().copied().unwrap_or("check"), watchdog, prepared_check)
        .map_err(KitError::from)
        .and_then(|checks| checks)
        .unwrap_or_else(|err| names.iter().map(|name| Check::new(*name, false, err.to_string())).collect())
}

fn within(high: i64, bound: u64) -> bool {
    high >= 0 && high as u64 <= bound
}

fn describe<E: fmt::Display>(out: &Result<Got, Failure<E>>) -> String {
    match out {
        Ok(Got::Sum { sum, count: Some(count), .. }) => format!("Ok(sum {sum} of {count} items)"),
        Ok(Got::Sum { sum, count: None, .. }) => format!("Ok(sum {sum})"),
        Ok(Got::Items(items)) => format!("Ok({} items)", items.len()),
        Err(err) => format!("Err({err})"),
    }
}

/// Whether `got` is exactly `expected` (in order if `ordered`, else as a multiset), and a detail saying so.
fn compare(expected: &[u64], got: &[u64], ordered: bool) -> (bool, String) {
    let (n, m) = (got.len(), expected.len());
    if !ordered {
        let (missing, extra) = multiset_difference(expected, got);
        let detail = format!(
            "{n} items vs {m} expected, compared as a multiset (unordered contestant: order not checked); {missing} \
             missing, {extra} extra"
        );
        return (missing == 0 && extra == 0, detail);
    }
    match expected.iter().zip(got).position(|(a, b)| a != b) {
        _ if got == expected => (true, format!("{n} items, each once, in order")),
        Some(i) => (false, format!("{n} items vs {m} expected; first difference at {i}")),
        None => (false, format!("{n} items vs {m} expected (a prefix matches)")),
    }
}

/// Whether each of `got` is one of `expected`, once: a prefix of it if `ordered`, no duplicate or stranger if not.
fn delivered_once(expected: &[u64], got: &[u64], ordered: bool) -> bool {
    if ordered {
        expected.get(..got.len()) == Some(got)
    } else {
        multiset_difference(expected, got).1 == 0
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

    #[test]
    fn faults_fire_at_the_first_middle_and_last_element() {
        assert_eq!(fault_points(10_000, 1_000), [0, 1_000, 9_999]);
        assert_eq!(fault_points(500, 1_000), [0, 499, 499]);
        assert!(delivered_once(&[1, 2, 3], &[1, 2], true) && !delivered_once(&[1, 2, 3], &[2], true));
        assert!(compare(&[1, 2], &[2, 1], false).0 && !compare(&[1, 2], &[2, 1], true).0);
    }
}
