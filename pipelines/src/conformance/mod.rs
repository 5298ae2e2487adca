//! The items contract and its one conformance kit, for the scenarios whose contestants move items from a source
//! to a consumer (the chain, the hand-off) or make numbered units or operations (memory, primitives). The
//! contract's types ([`Job`], [`Behaviour`], [`Instruments`], [`Fault`], [`Consume`], [`Outcome`]) are what a
//! contestant runs: a plain job ([`Behaviour::Clean`], no meter) in timed iterations ([`ItemsRoutine`] over a
//! [`Prepared`] contestant), a checked job (instruments and a gauge meter) here, with nothing in between to
//! translate. A scenario declares its [`Sizes`], its [`Words`] and its domain (what a clean run returns, where
//! faults fire, which error is the injected one) once, as its [`Declaration`]; its registry's contestants
//! implement [`Contestant`], which the kit checks as they are ([`Checked`]). Every check is written once, generic
//! over the [`Subject`] it runs on.
//! Each check prepares the contestant afresh in a helper thread ([`run_guarded`]): one that has not answered
//! within [`WATCHDOG`] fails as hung instead of blocking the process, and none looks at a clock but the watchdog
//! and [`caller_cancel`]. Faults fire at each site's first, [`FAULT_AT`]-th (or the scenario's own
//! [`Declaration::FAULT_AT`]) and last element ([`fault_points`]), where hand-off code most often hangs, loses the
//! error or reports a short sum as success. [`Broken`] makes a contestant misbehave in one way, so that a reject
//! test can show a check fail.

mod broken;
mod job;
mod program;
mod routine;

use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::sync::Arc;
use std::time::{Duration, Instant};

use measure::gauge::Outstanding;
use measure::meter::GaugeMeter;
use measure::summary::{Check, ContestantInfo};
use measure::watchdog::{run_guarded, WatchdogError};

pub use broken::{Breakage, Broken};
pub use job::{Behaviour, Consume, Fault, FaultAction, Input, Instruments, Job, Outcome, Site};
pub use program::{program_checks, standalone_program};
pub use routine::{
    batch_param, every_iteration_passed, messages_param, outstanding_chart, prepared_or_failed, Expected, ItemsRoutine,
    Prepared,
};

use crate::cancel::{seeded_point, CallerCancel};
use crate::stream::runtime::settled_tasks;
use crate::{LiveStages, QuietInjectedPanics};

/// How long a check may take before it counts as hung: 20 s in the benchmark's build, where the slowest check
/// takes well under a second; 6× that in the unoptimized build `cargo test` makes, where the chain's checksum
/// check takes 2 s on a quiet 2-core machine and took 22 s beside two spinning processes and six other tests.
pub const WATCHDOG: Duration = Duration::from_secs(if cfg!(debug_assertions) { 120 } else { 20 });
/// How long [`faults`] may take: three checks' worth of runs on one prepared contestant, so three checks' time.
pub const FAULTS_WATCHDOG: Duration = Duration::from_secs(3 * WATCHDOG.as_secs());
/// The most a cancelled run may take to return after the caller raised the cancellation: the calls kit's bound,
/// one for both contracts.
pub use crate::calls::CANCEL_WITHIN;
/// The range of source elements at which the caller cancels (the point is seeded by the contestant's name).
pub const CANCEL_POINTS: Range<u64> = 1_000..50_000;
/// Items the early-stop consumer takes before dropping its end.
pub const EARLY_STOP_TAKE: usize = 10;
/// The element at which injected faults fire mid-run.
pub const FAULT_AT: u64 = 1_000;

/// A scenario's sizes for the checks.
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    /// Items of the checks.
    pub items: u64,
    /// Items of the early-stop and cancel runs: enough that a source that failed to stop shows it.
    pub early_stop_items: u64,
    /// The work ([`Job::work`]) of each checksum run.
    pub sum_works: &'static [u32],
    /// The work of exactly-once and clean-after-fault runs; every other run has work 0.
    pub work: u32,
}

/// How a scenario's checks and their details name its parts.
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

/// What an items scenario declares for its checks: its sizes and words, and its domain (what a clean run
/// returns, where faults fire, which error is the injected one, how far its source may run ahead).
pub trait Declaration: Sized + Send + Sync + 'static {
    /// Its sizing, which its contestants are prepared under (`()` for a scenario without one).
    type Config: Copy + fmt::Debug + Send + Sync + 'static;
    /// What its source emits ([`Job::input`]).
    type Input: Input;
    /// Where faults can fire (a stage, the producer).
    type Site: Site;
    /// Why a run or preparing failed.
    type Error: fmt::Display;
    /// The site whose elements the checks count and the caller's cancel hears: the source.
    const SOURCE: Self::Site;
    /// The scenario's sizes.
    const SIZES: Sizes;
    /// The scenario's words.
    const WORDS: Words;
    /// The element at which its middle fault fires ([`fault_points`]).
    const FAULT_AT: u64 = FAULT_AT;
    /// The range of source elements at which the caller cancels.
    const CANCEL_POINTS: Range<u64> = CANCEL_POINTS;
    /// Whether `err` is what `fault` must end the run with.
    fn is_injected(err: &Self::Error, fault: &Fault<Self::Site>) -> bool;
    /// Every fault site, with how many elements it sees in a run of `items`: by default the source alone, seeing
    /// every item.
    fn fault_sites(items: u64) -> Vec<(Self::Site, u64)> {
        vec![(Self::SOURCE, items)]
    }
    /// The items a clean collecting run of `items` at `work` returns, in order: by default `0..items`.
    fn expected(items: u64, _work: u32) -> Vec<u64> {
        (0..items).collect()
    }
    /// The most source elements beyond those delivered once the consumer stopped (by the caller's `cancel`, or
    /// by taking its few), for a contestant of `bound` whose messages carry `items_per_message`; `None` (the
    /// default) when it is enough that the source stopped before the end.
    fn runs_ahead(_bound: Option<u64>, _items_per_message: Option<usize>, _cancel: bool) -> Option<u64> {
        None
    }
}

/// A contestant of an items scenario `D`'s registry, as the scenario runs it and the kit checks it: it prepares
/// under the scenario's config into a [`Prepared`] contestant, which runs the timed jobs and the checked ones.
pub trait Contestant<D: Declaration>: Send + Sync + fmt::Debug {
    /// Its name, family and one-line description.
    fn info(&self) -> ContestantInfo;
    /// Whether the consumer receives items in input order.
    fn ordered(&self) -> bool {
        true
    }
    /// The most items it can hold outstanding under `config`; `None` (the default) when it hands nothing off
    /// (the gauge stays untouched).
    fn bound(&self, _config: &D::Config) -> Option<u64> {
        None
    }
    /// Items each message carries under `config`; `None` (the default) when it hands nothing off in messages.
    fn items_per_message(&self, _config: &D::Config) -> Option<usize> {
        None
    }
    /// Why conformance check `check` cannot be asked of it, or `None` (the default) when it applies.
    fn not_applicable(&self, _check: &str) -> Option<&'static str> {
        None
    }
    /// Build what a run needs and a long-lived application would build once: runtimes, thread pools.
    #[allow(clippy::type_complexity)]
    fn prepare(&self, config: &D::Config) -> Result<Box<dyn Prepared<D::Input, D::Site, D::Error>>, D::Error>;
}

/// A registered contestant `C` of scenario `D` under a config, as the kit checks it: each checked run is its
/// prepared contestant's metered run, the same generic code as a timed run.
pub struct Checked<D: Declaration, C: ?Sized> {
    contestant: Arc<C>,
    config: D::Config,
}

impl<D: Declaration, C: ?Sized + Contestant<D>> Checked<D, C> {
    /// `contestant` under `config`.
    pub fn new(contestant: &Arc<C>, config: &D::Config) -> Self {
        Checked { contestant: Arc::clone(contestant), config: *config }
    }
}

impl<D: Declaration, C: ?Sized> Clone for Checked<D, C> {
    fn clone(&self) -> Self {
        Checked { contestant: Arc::clone(&self.contestant), config: self.config }
    }
}

impl<D: Declaration, C: ?Sized + fmt::Debug> fmt::Debug for Checked<D, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Checked").field("contestant", &self.contestant).field("config", &self.config).finish()
    }
}

impl<D: Declaration, C: ?Sized + Contestant<D> + 'static> Subject for Checked<D, C> {
    type D = D;
    type Prepared = Box<dyn Prepared<D::Input, D::Site, D::Error>>;

    fn name(&self) -> String {
        self.contestant.info().name
    }

    fn bound(&self) -> Option<u64> {
        self.contestant.bound(&self.config)
    }

    fn ordered(&self) -> bool {
        self.contestant.ordered()
    }

    fn runs_ahead(&self, cancel: bool) -> Option<u64> {
        D::runs_ahead(self.bound(), self.contestant.items_per_message(&self.config), cancel)
    }

    fn not_applicable(&self, check: &str) -> Option<&'static str> {
        self.contestant.not_applicable(check)
    }

    fn prepare(&self) -> Result<Self::Prepared, D::Error> {
        self.contestant.prepare(&self.config)
    }

    fn run(&self, prepared: &Self::Prepared, job: &CheckedJob<'_, Self>) -> Result<Outcome, D::Error> {
        prepared.run_metered(job, &mut || {})
    }
}

/// What the checks run on: a scenario's contestant ready to prepare, its runs' checked jobs those of its
/// [`Declaration`]. A registered [`Contestant`] is one as [`Checked`]; memory and primitives implement it with
/// their own checked runs.
pub trait Subject: Clone + Send + Sync + 'static {
    /// The scenario's declaration.
    type D: Declaration;
    /// What [`Subject::prepare`] builds (its runtime, pool or threads), which the kit inspects after each run.
    type Prepared: Inspect;
    /// Its name (seeds the cancel point).
    fn name(&self) -> String;
    /// The most items it may hold outstanding; `None` (the default) when it hands nothing off.
    fn bound(&self) -> Option<u64> {
        None
    }
    /// Whether items arrive in input order.
    fn ordered(&self) -> bool {
        true
    }
    /// The most source elements beyond those delivered once the consumer stopped ([`Declaration::runs_ahead`]).
    fn runs_ahead(&self, _cancel: bool) -> Option<u64> {
        None
    }
    /// Why `check` does not apply to it, or `None` when it does.
    fn not_applicable(&self, _check: &str) -> Option<&'static str> {
        None
    }
    /// Build what its runs need.
    fn prepare(&self) -> Result<Self::Prepared, ErrorOf<Self>>;
    /// One checked run of `job` on `prepared`: the same generic code as a timed run, with the job's behaviour
    /// and a gauge meter.
    fn run(&self, prepared: &Self::Prepared, job: &CheckedJob<'_, Self>) -> Result<Outcome, ErrorOf<Self>>;
}

/// The error of subject `S`'s runs.
pub type ErrorOf<S> = <<S as Subject>::D as Declaration>::Error;
/// What the source of subject `S`'s runs emits.
pub type InputOf<S> = <<S as Subject>::D as Declaration>::Input;
/// Where faults of subject `S`'s runs fire.
pub type SiteOf<S> = <<S as Subject>::D as Declaration>::Site;

/// What the kit reads from a prepared contestant right after each checked run.
pub trait Inspect {
    /// Tasks alive on its runtime; `None` without one.
    fn alive_tasks(&self) -> Option<usize>;
    /// How many elements the source of the run that just returned counted, when the prepared contestant counts
    /// them itself; `None` (the default): what the run's instruments saw (0 when clean).
    fn counted(&self) -> Option<u64> {
        None
    }
    /// What the last run left behind or did wrong that the kit does not count (threads above a baseline, items
    /// made or finished twice), one phrase each.
    fn leftovers(&self) -> Vec<String> {
        Vec::new()
    }
}

/// A prepared items contestant's runtime tasks; it counts nothing and leaves nothing the kit does not see.
impl<In, S, E> Inspect for Box<dyn Prepared<In, S, E>> {
    fn alive_tasks(&self) -> Option<usize> {
        Prepared::alive_tasks(&**self)
    }
}

/// A checked job of subject `C`: its scenario's input and sites, metered by the check's gauge.
pub type CheckedJob<'a, C> = Job<'a, InputOf<C>, SiteOf<C>, GaugeMeter>;

/// What the checks take: a [`Subject`] as it is, or one [`Broken`] to misbehave.
pub trait Target: Clone + Send + Sync + 'static {
    /// The subject checked.
    type C: Subject;
    /// The contestant, and how it misbehaves, if it does.
    fn parts(&self) -> (&Self::C, Option<Breakage>);
}

impl<C: Subject> Target for C {
    type C = C;
    fn parts(&self) -> (&C, Option<Breakage>) {
        (self, None)
    }
}

/// Every check, in order: `checksum`, `exactly_once`, `bounded_outstanding`, `early_stop`, then [`faults`]
/// (the error and panic checks and `clean_after_faults` on one prepared contestant), then `caller_cancel`.
pub fn all<T: Target>(t: &T) -> Vec<Check> {
    let mut checks = vec![checksum(t), exactly_once(t), bounded_outstanding(t), early_stop(t)];
    checks.extend(faults(t));
    checks.push(caller_cancel(t));
    checks
}

/// One `#[test]` per check of [`all`], each calling `$run` (a test helper of the scenario that runs the check it
/// is given on every contestant and fails listing every failure) with that check: the same six tests, with the
/// same names, for every items scenario.
///
/// ```ignore
/// pipelines::one_test_per_check!(every_contestant_passes);
/// ```
#[macro_export]
macro_rules! one_test_per_check {
    ($run:path) => {
        $crate::one_test_per_check!(@tests $run;
            every_contestant_sums_like_the_reference: |c| vec![$crate::conformance::checksum(c)];
            every_contestant_delivers_each_item_exactly_once: |c| vec![$crate::conformance::exactly_once(c)];
            outstanding_work_stays_within_each_bound: |c| vec![$crate::conformance::bounded_outstanding(c)];
            every_contestant_stops_early_and_leaves_nothing_running: |c| vec![$crate::conformance::early_stop(c)];
            a_fault_at_the_first_middle_or_last_element_ends_the_run_with_it_and_a_clean_run_follows:
                $crate::conformance::faults;
            every_contestant_stops_promptly_when_the_caller_cancels: |c| vec![$crate::conformance::caller_cancel(c)];
        );
    };
    (@tests $run:path; $($test:ident: $check:expr;)*) => {
        $(
            #[test]
            fn $test() {
                $run($check);
            }
        )*
    };
}

/// Each summing run ([`Sizes::sum_works`]) returns the wrapping sum of the expected items, counts them (if it
/// counts) and saw them in order (if it checks).
pub fn checksum<T: Target>(t: &T) -> Check {
    guarded("checksum", t, checksum_on)
}

fn checksum_on<C: Subject>(b: Bench<C>) -> Check {
    let Sizes { items, sum_works, .. } = C::D::SIZES;
    let mut passed = true;
    let mut details = Vec::new();
    for &work in sum_works {
        let expected = C::D::expected(items, work);
        let reference = expected.iter().fold(0, |sum: u64, &x| sum.wrapping_add(x));
        let label = if sum_works.len() > 1 { format!("work {work}: ") } else { String::new() };
        let (ok, detail) = match b.run(items, work, None, Consume::Sum).out {
            Ok(Outcome::Sum { sum, count, first_disorder }) => (
                sum == reference && count.is_none_or(|n| n == expected.len() as u64) && first_disorder.is_none(),
                format!(
                    "sum {sum} vs reference {reference}{}{}",
                    count.map_or(String::new(), |n| format!(", {n} items counted")),
                    first_disorder.map_or(String::new(), |i| format!(", item {i} out of order"))
                ),
            ),
            other => (false, format!("{} instead of a sum", describe(&other))),
        };
        passed &= ok;
        details.push(format!("{label}{detail}"));
    }
    Check::new("checksum", passed, format!("{items} items; {}", details.join("; ")))
}

/// Every expected item arrives exactly once (and, for ordered contestants, in input order).
pub fn exactly_once<T: Target>(t: &T) -> Check {
    guarded("exactly_once", t, |b| {
        let Sizes { items, work, .. } = b.sizes();
        match b.run(items, work, None, Consume::Collect).out {
            Ok(Outcome::Items(got)) => {
                let (passed, detail) = compare(&b.expected(items, work), &got, b.c.ordered());
                Check::new("exactly_once", passed, detail)
            }
            other => Check::new("exactly_once", false, format!("{} instead of items", describe(&other))),
        }
    })
}

/// The gauge's exact high-water mark stays within the contestant's bound and is back at zero after the run; a
/// contestant without a bound must not touch the gauge.
pub fn bounded_outstanding<T: Target>(t: &T) -> Check {
    let name = "bounded_outstanding";
    guarded(name, t, move |b| {
        let ran = b.run(b.sizes().items, 0, None, Consume::Sum);
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

/// A consumer that takes [`EARLY_STOP_TAKE`] items and drops its end gets the first expected ones, the
/// run returns, nothing is left running, and the source stopped: within [`Contestant::runs_ahead`] of the
/// items taken, or else before the end of its input.
pub fn early_stop<T: Target>(t: &T) -> Check {
    guarded("early_stop", t, early_stop_on)
}

fn early_stop_on<C: Subject>(b: Bench<C>) -> Check {
    let (n, take) = (C::D::SIZES.early_stop_items, EARLY_STOP_TAKE);
    let ran = b.run(n, 0, Some(Instruments::new(C::D::SOURCE, None)), Consume::Take(take));
    let mut problems = Vec::new();
    let (got, limit) = b.stopped(&ran, n, false, &mut problems);
    if got != take as u64 {
        problems.push(format!("took {got} items instead of {take}"));
    }
    let counted = format!("{} {} of {n} items{}", C::D::WORDS.counted, ran.emitted, at_most(limit));
    verdict(
        "early_stop",
        &problems,
        || format!("took {take} items, the expected ones; {counted}; nothing left running"),
        "",
    )
}

/// Where a site's injected faults fire when it sees `seen` elements: its first, its `fault_at`-th and its last.
pub fn fault_points(seen: u64, fault_at: u64) -> [u64; 3] {
    let last = seen.saturating_sub(1);
    [0, fault_at.min(last), last]
}

/// On one prepared contestant, injected panics kept quiet: the error check, then the panic check (a fault at
/// each site's first, [`FAULT_AT`]-th or last element ends the run with it, within the bound, nothing left
/// running), then `clean_after_faults` (a clean run on the same runtime, pool or threads is exact and bounded).
pub fn faults<T: Target>(t: &T) -> Vec<Check> {
    let _quiet = QuietInjectedPanics::install();
    let words = <<T::C as Subject>::D as Declaration>::WORDS;
    guarded_all(&[words.error_check, words.panic_check, "clean_after_faults"], t, |b| {
        let error = fault_runs(&b, FaultAction::Error);
        let panic = fault_runs(&b, FaultAction::Panic);
        vec![error, panic, clean_run(&b)]
    })
}

/// Every site, every fault point, one action: the run must end with the injected fault and leave nothing alive.
fn fault_runs<C: Subject>(b: &Bench<C>, action: FaultAction) -> Check {
    let items = C::D::SIZES.items;
    let (mut runs, mut places, mut failures) = (0, Vec::new(), Vec::new());
    for (site, seen) in C::D::fault_sites(items) {
        let points = fault_points(seen, C::D::FAULT_AT);
        places.push(format!("{site} at {}, {}, {}", points[0], points[1], points[2]));
        for at in points {
            runs += 1;
            let fault = Fault { site, at, action };
            let ran = b.run(items, 0, Some(Instruments::new(C::D::SOURCE, Some(fault))), Consume::Sum);
            let right = matches!(&ran.out, Err(err) if C::D::is_injected(err, &fault));
            let problems: Vec<String> = ran.bound_problem(b.bound, false).into_iter().chain(ran.leftovers()).collect();
            if !right || !problems.is_empty() {
                let problems: String = problems.iter().map(|p| format!(", {p}")).collect();
                failures.push(format!("{site} at {at}: {}{problems}", describe(&ran.out)));
            }
        }
    }
    let name = if action == FaultAction::Error { C::D::WORDS.error_check } else { C::D::WORDS.panic_check };
    let places = places.join("; ");
    let bound = if b.bound.is_some() { "stayed within the bound while it propagated, " } else { "" };
    let pass =
        || format!("{runs} runs ({places}): each ended with the injected {action:?}, {bound}and left nothing running");
    verdict(name, &failures, pass, &format!("{} of {runs} runs ({places}) went wrong: ", failures.len()))
}

/// A clean collecting run on the bench's prepared contestant: the exact items (in order if it is ordered),
/// within the bound and back to zero (the gauge untouched without one), nothing left running.
fn clean_run<C: Subject>(b: &Bench<C>) -> Check {
    let Sizes { items, work, .. } = C::D::SIZES;
    let expected = C::D::expected(items, work);
    let ran = b.run(items, work, None, Consume::Collect);
    let mut problems = Vec::new();
    match &ran.out {
        Ok(Outcome::Items(got)) => {
            problems.extend(Some(compare(&expected, got, b.c.ordered())).filter(|c| !c.0).map(|c| c.1))
        }
        other => problems.push(format!("{} instead of items", describe(other))),
    }
    problems.extend(ran.bound_problem(b.bound, true).into_iter().chain(ran.leftovers()));
    let faulted = C::D::fault_sites(items).len() * 2 * fault_points(items, C::D::FAULT_AT).len();
    let pass = || {
        format!(
            "after {faulted} faulted runs, a clean run on the same prepared contestant: {} items, exact{}{}, nothing \
             left running",
            expected.len(),
            if b.c.ordered() { " and in order" } else { " (as a multiset)" },
            b.bound.map_or(String::new(), |bound| format!(", within the bound {bound}"))
        )
    };
    verdict("clean_after_faults", &problems, pass, "after the faulted runs: ")
}

/// The caller cancels from another thread at a source element seeded by the contestant's name ([`CallerCancel`]):
/// the run returns within [`CANCEL_WITHIN`] with each item it delivered once (a prefix of the expected ones if
/// ordered), the source stopped as in [`early_stop`], and nothing is left running.
pub fn caller_cancel<T: Target>(t: &T) -> Check {
    guarded("caller_cancel", t, caller_cancel_on)
}

fn caller_cancel_on<C: Subject>(b: Bench<C>) -> Check {
    let (name, n, point_words) = ("caller_cancel", C::D::SIZES.early_stop_items, C::D::WORDS.point);
    let point = seeded_point(&b.c.name(), C::D::CANCEL_POINTS);
    let cancel = Arc::new(CallerCancel::at(point));
    let caller = match CallerCancel::spawn_canceller(&cancel) {
        Ok(caller) => caller,
        Err(err) => return Check::new(name, false, format!("could not start the caller: {err}")),
    };
    let ran = b.run(n, 0, Some(Instruments::cancelled_by(C::D::SOURCE, Arc::clone(&cancel))), Consume::Cancellable);
    cancel.abandon();
    let mut problems = Vec::new();
    if !caller.join().unwrap_or(false) {
        problems.push(format!("the run never reached {point_words} {point}, so the caller never cancelled"));
    }
    let latency = cancel.raised_at().map(|t| ran.returned.saturating_duration_since(t)).unwrap_or_default();
    if latency > CANCEL_WITHIN {
        problems.push(format!("returned {:.0} ms after the cancel", latency.as_secs_f64() * 1e3));
    }
    let (got, limit) = b.stopped(&ran, n, true, &mut problems);
    let pass = || {
        format!(
            "cancelled by the caller at {point_words} {point} of {n}: returned {:.1} ms later (limit {} ms) with {got} \
             items, each once{}; {} {}{}; nothing left running",
            latency.as_secs_f64() * 1e3,
            CANCEL_WITHIN.as_millis(),
            if b.c.ordered() { ", in order" } else { "" },
            C::D::WORDS.counted,
            ran.emitted,
            at_most(limit)
        )
    };
    verdict(name, &problems, pass, &format!("cancelled at {point_words} {point}: "))
}

fn at_most(limit: Option<u64>) -> String {
    limit.map_or(String::new(), |limit| format!(" (at most {limit})"))
}

/// A check named `name`: passed with the `pass` detail when there are no `problems`, else failed with them
/// after `fail`.
fn verdict(name: &str, problems: &[String], pass: impl FnOnce() -> String, fail: &str) -> Check {
    match problems {
        [] => Check::new(name, true, pass()),
        _ => Check::new(name, false, format!("{fail}{}", problems.join("; "))),
    }
}

/// What a check runs against: a freshly prepared contestant, how it misbehaves (if it does), its bound, and the
/// live count of its runs.
struct Bench<C: Subject> {
    c: C,
    prepared: C::Prepared,
    breakage: Option<Breakage>,
    dead_worker: Cell<bool>,
    bound: Option<u64>,
    live: Arc<LiveStages>,
}

/// What one checked run returned and left behind: how many elements the probed source counted, the gauge, when
/// it returned, its threads and tasks alive right after, the runtime's tasks once they had time to go, and what
/// else the contestant says it left ([`Inspect::leftovers`]).
struct Ran<E: fmt::Display> {
    out: Result<Outcome, E>,
    emitted: u64,
    gauge: Arc<Outstanding>,
    returned: Instant,
    live: usize,
    tasks: Option<usize>,
    parties: &'static str,
    more: Vec<String>,
}

impl<C: Subject> Bench<C> {
    fn sizes(&self) -> Sizes {
        C::D::SIZES
    }

    /// The items a clean collecting run of `items` at `work` returns ([`Declaration::expected`]).
    fn expected(&self, items: u64, work: u32) -> Vec<u64> {
        C::D::expected(items, work)
    }

    /// One checked run of `items` at `work`, probed by `instruments` (clean without), its consumer as `consume`
    /// says.
    fn run(
        &self,
        items: u64,
        work: u32,
        instruments: Option<Instruments<SiteOf<C>>>,
        consume: Consume,
    ) -> Ran<ErrorOf<C>> {
        let gauge = Arc::new(Outstanding::new());
        let behaviour = instruments.map_or(Behaviour::Clean, |i| Behaviour::Instrumented(Arc::new(i)));
        let input = InputOf::<C>::of(items);
        let meter = GaugeMeter::new(Arc::clone(&gauge));
        let job = Job { input: &input, work, behaviour: &behaviour, consumer: consume, meter, live: &self.live };
        let out = match self.breakage {
            None => self.c.run(&self.prepared, &job),
            Some(breakage) => broken::run(self, breakage, &job),
        };
        let emitted = self.prepared.counted().unwrap_or_else(|| behaviour.seen());
        let returned = Instant::now();
        let (live, tasks) = (self.live.current(), settled_tasks(|| self.prepared.alive_tasks()));
        let more = self.prepared.leftovers();
        Ran { out, emitted, gauge, returned, live, tasks, parties: C::D::WORDS.parties, more }
    }

    /// Of a run of `n` elements that the consumer stopped (by the caller's `cancel`, or by taking a few): the
    /// items delivered, and the most the source may have emitted (`None`: fewer than all `n`). Items other than
    /// the first expected ones each once, a source beyond its limit and anything left running go in `problems`.
    fn stopped(&self, ran: &Ran<ErrorOf<C>>, n: u64, cancel: bool, problems: &mut Vec<String>) -> (u64, Option<u64>) {
        let got = match &ran.out {
            Ok(Outcome::Items(got)) if delivered_once(&self.expected(n, 0), got, self.c.ordered()) => got.len() as u64,
            Ok(Outcome::Items(got)) => {
                problems.push(format!("{} items delivered, not each expected one once", got.len()));
                got.len() as u64
            }
            other => {
                problems.push(format!("{} instead of the items delivered", describe(other)));
                0
            }
        };
        let (counted, emitted, source) = (C::D::WORDS.counted, ran.emitted, C::D::WORDS.stopped);
        let how = if cancel { "the cancel" } else { "dropping its end" };
        let limit = self.c.runs_ahead(cancel).map(|ahead| got + ahead);
        if emitted >= n {
            problems.push(format!("{counted} all {emitted} items: {how} did not stop {source}"));
        } else if let Some(limit) = limit.filter(|&limit| emitted > limit) {
            problems.push(format!(
                "{counted} {emitted} items after {got} were delivered (at most {limit}: those plus what it may \
                 hold): {how} did not stop {source}"
            ));
        }
        problems.extend(ran.leftovers());
        (got, limit)
    }
}

impl<E: fmt::Display> Ran<E> {
    /// What the gauge says against `bound`: touched without one, above it, or (when `settle`) not back to zero.
    fn bound_problem(&self, bound: Option<u64>, settle: bool) -> Option<String> {
        let (high, settled) = (self.gauge.high_water(), self.gauge.current());
        match bound {
            None => (settle && self.gauge.touched()).then(|| "declares no bound but touched the gauge".to_string()),
            Some(bound) => (!within(high, bound) || (settle && settled != 0))
                .then(|| format!("max outstanding {high} (bound {bound}), {settled} left after the run")),
        }
    }

    /// What the run left running, one phrase each; empty when nothing.
    fn leftovers(&self) -> Vec<String> {
        let live = (self.live != 0).then(|| format!("{} {} still alive", self.live, self.parties));
        let tasks = self.tasks.filter(|&t| t > 0).map(|t| format!("{t} runtime tasks alive"));
        live.into_iter().chain(tasks).chain(self.more.iter().cloned()).collect()
    }
}

/// Prepare the contestant and run `check` under the watchdog ([`run_guarded`]); a check that panics, hangs or
/// cannot start fails with the watchdog's reason as its detail.
fn guarded<T: Target>(name: &'static str, t: &T, check: impl FnOnce(Bench<T::C>) -> Check + Send + 'static) -> Check {
    let mut checks = guarded_all(&[name], t, move |b| vec![check(b)]);
    checks.pop().unwrap_or_else(|| Check::new(name, false, "the check returned nothing"))
}

/// [`guarded`] for checks that share one prepared contestant and report several results, named `names` (under
/// [`FAULTS_WATCHDOG`]): if preparing fails or the watchdog fires, every one of them fails with the reason.
fn guarded_all<T: Target>(
    names: &[&'static str],
    t: &T,
    check: impl FnOnce(Bench<T::C>) -> Vec<Check> + Send + 'static,
) -> Vec<Check> {
    let why: Vec<Option<&str>> = names.iter().map(|name| t.parts().0.not_applicable(name)).collect();
    if why.iter().all(Option::is_some) {
        return names
            .iter()
            .zip(why)
            .map(|(name, why)| Check::not_applicable(*name, why.unwrap_or_default()))
            .collect();
    }
    let t = t.clone();
    let prepared_check = move || {
        let (c, breakage) = t.parts();
        let prepared = c.prepare().map_err(|err| KitError::Prepare(err.to_string()))?;
        let (c, bound, live) = (c.clone(), c.bound(), Arc::new(LiveStages::new()));
        Ok(check(Bench { c, prepared, breakage, dead_worker: Cell::new(false), bound, live }))
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

fn describe<E: fmt::Display>(out: &Result<Outcome, E>) -> String {
    match out {
        Ok(Outcome::Sum { sum, count: Some(count), .. }) => format!("Ok(sum {sum} of {count} items)"),
        Ok(Outcome::Sum { sum, count: None, .. }) => format!("Ok(sum {sum})"),
        Ok(Outcome::Items(items)) => format!("Ok({} items)", items.len()),
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
    expected.iter().for_each(|&x| *counts.entry(x).or_default() += 1);
    got.iter().for_each(|&x| *counts.entry(x).or_default() -= 1);
    counts.values().fold((0, 0), |(missing, extra), &c| (missing + c.max(0) as usize, extra + (-c).max(0) as usize))
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
