//! Conformance checks every chain contestant must pass before its timings mean anything, written once and
//! generic over [`ChainContestant`], so a new contestant gets them for free.
//!
//! Each check prepares the contestant afresh, runs it on a small input and returns a
//! [`measure::summary::Check`]; none of them looks at a clock except the watchdog: every check runs in a
//! helper thread ([`measure::watchdog::run_guarded`]) and a check that has not answered within [`WATCHDOG`]
//! fails as hung (its thread is left behind) instead of blocking the process.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use measure::gauge::Outstanding;
use measure::meter::GaugeMeter;
use measure::summary::Check;
use measure::watchdog::run_guarded;

use super::contestants::{ChainContestant, PreparedChain};
use super::job::{
    Behaviour, ChainConfig, ChainError, Consumer, Fault, FaultAction, Instruments, Job, Outcome, StageName,
};
use super::ops::{reference_checksum, reference_items};
use crate::stream::runtime::settled_tasks;
use crate::{panic_message, LiveStages, QuietInjectedPanics};

/// How long a check may take before it counts as hung.
pub const WATCHDOG: Duration = Duration::from_secs(20);
/// Input size of the checks.
pub const ITEMS: u64 = 20_000;
/// Input size of the early-stop check: large enough that a pipeline that failed to stop would visibly have
/// processed far more than it was asked for.
pub const EARLY_STOP_ITEMS: u64 = 200_000;
/// Items the early-stop consumer takes before dropping the pipeline.
pub const EARLY_STOP_TAKE: usize = 10;
/// The element at which injected faults fire (counted per stage).
pub const FAULT_AT: u64 = 1_000;

/// Every check, in order: `checksum`, `exactly_once`, `bounded_outstanding`, `early_stop`, `stage_error`,
/// `stage_panic`.
pub fn all(contestant: &Arc<dyn ChainContestant>, config: &ChainConfig) -> Vec<Check> {
    vec![
        checksum(contestant, config),
        exactly_once(contestant, config),
        bounded_outstanding(contestant, config),
        early_stop(contestant, config),
        stage_error(contestant, config),
        stage_panic(contestant, config),
    ]
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

/// A stage that returns an error at its [`FAULT_AT`]-th element ends the run with that error, for each stage,
/// leaving no stage alive.
pub fn stage_error(contestant: &Arc<dyn ChainContestant>, config: &ChainConfig) -> Check {
    fault_check("stage_error", FaultAction::Error, contestant, config)
}

/// A stage that panics at its [`FAULT_AT`]-th element makes the run return `ChainError::Panicked` (the panic
/// does not propagate), for each stage, leaving no stage alive. Injected panics are kept off standard error.
pub fn stage_panic(contestant: &Arc<dyn ChainContestant>, config: &ChainConfig) -> Check {
    let _quiet = QuietInjectedPanics::install();
    fault_check("stage_panic", FaultAction::Panic, contestant, config)
}

fn fault_check(
    name: &'static str,
    action: FaultAction,
    contestant: &Arc<dyn ChainContestant>,
    config: &ChainConfig,
) -> Check {
    guarded(name, contestant, config, move |bench| {
        let mut passed = true;
        let mut details = Vec::new();
        for stage in StageName::ALL {
            let fault = Fault { stage, at: FAULT_AT, action };
            let behaviour = Behaviour::Instrumented(Arc::new(Instruments::new(Some(fault))));
            let (out, _) = bench.run(0, &behaviour, Consumer::Sum);
            let live = bench.live.current();
            let tasks = bench.tasks_settle();
            let right_error = match (&out, action) {
                (Err(ChainError::Stage(e)), FaultAction::Error) => e.stage == stage && e.at == FAULT_AT,
                // Named after the thread or task that ran the stage: itself, or a fused `source+map1+filter`.
                (Err(ChainError::Panicked { stage: s, message }), FaultAction::Panic) => {
                    message.contains("injected panic") && s.split('+').any(|part| part == stage.as_str())
                }
                _ => false,
            };
            passed &= right_error && live == 0 && tasks.is_none_or(|t| t == 0);
            details.push(format!(
                "{stage}: {}{}{}",
                describe(&out),
                if live == 0 { String::new() } else { format!(", {live} stages still alive") },
                match tasks {
                    Some(t) if t > 0 => format!(", {t} runtime tasks alive"),
                    _ => String::new(),
                }
            ));
        }
        Check::new(name, passed, format!("fault at element {FAULT_AT}: {}", details.join("; ")))
    })
}

/// What a check runs against: a freshly prepared contestant, an input, and the gauge and live-stage counter
/// of its runs.
struct Bench {
    prepared: Box<dyn PreparedChain>,
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
    let contestant = Arc::clone(contestant);
    let config = *config;
    let prepared_check = move || {
        let prepared = match contestant.prepare(&config) {
            Ok(prepared) => prepared,
            Err(err) => return Check::new(name, false, format!("could not prepare: {err}")),
        };
        let input: Arc<[u64]> = (0..ITEMS).collect::<Vec<u64>>().into();
        check(Bench { prepared, input, live: Arc::new(LiveStages::new()) })
    };
    run_guarded(name, WATCHDOG, prepared_check).unwrap_or_else(|err| Check::new(name, false, err.to_string()))
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
