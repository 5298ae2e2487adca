//! Conformance checks every hand-off contestant must pass before its timings mean anything, written once and
//! generic over [`HandoffContestant`], so a new contestant gets them for free.
//!
//! Each check prepares the contestant afresh, runs it on a small job and returns a
//! [`measure::summary::Check`]; none of them looks at a clock except the watchdog: every check runs in a
//! helper thread ([`measure::watchdog::run_guarded`]) and a check that has not answered within [`WATCHDOG`]
//! fails as hung (its thread is left behind) instead of blocking the process.

use std::sync::Arc;
use std::time::Duration;

use measure::gauge::Outstanding;
use measure::meter::GaugeMeter;
use measure::summary::Check;
use measure::watchdog::run_guarded;
use pipelines::stream::runtime::settled_tasks;
use pipelines::{panic_message, LiveStages};

use crate::contestants::{HandoffContestant, PreparedHandoff};
use crate::job::{
    injected_panic_message, Behaviour, Consumer, Fault, FaultAction, HandoffConfig, HandoffError, Instruments, Job,
    Outcome, Side,
};

/// How long a check may take before it counts as hung.
pub const WATCHDOG: Duration = Duration::from_secs(20);
/// Items of the checks: enough for many refills of every channel, and not a multiple of the default batch.
pub const ITEMS: u64 = 10_000;
/// Items the early-stop producer would emit if nothing stopped it.
pub const EARLY_STOP_ITEMS: u64 = 1_000_000;
/// Items the early-stop consumer takes before dropping its end.
pub const EARLY_STOP_TAKE: usize = 10;
/// The item at which injected producer faults fire.
pub const FAULT_AT: u64 = 1_000;

/// Every check, in order: `checksum`, `exactly_once`, `bounded_outstanding`, `early_stop`, `producer_error`,
/// `producer_panic`.
pub fn all(contestant: &Arc<dyn HandoffContestant>, config: &HandoffConfig) -> Vec<Check> {
    vec![
        checksum(contestant, config),
        exactly_once(contestant, config),
        bounded_outstanding(contestant, config),
        early_stop(contestant, config),
        producer_error(contestant, config),
        producer_panic(contestant, config),
    ]
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

/// A producer whose item source returns an error at item [`FAULT_AT`] ends the run with that error (never a
/// short sum), leaving nothing running.
pub fn producer_error(contestant: &Arc<dyn HandoffContestant>, config: &HandoffConfig) -> Check {
    fault_check("producer_error", FaultAction::Error, contestant, config)
}

/// A producer that panics at item [`FAULT_AT`] makes the run return `HandoffError::Panicked` for the producer
/// (the panic does not propagate, and the consumer's tidy end of stream does not pass for success), leaving
/// nothing running.
pub fn producer_panic(contestant: &Arc<dyn HandoffContestant>, config: &HandoffConfig) -> Check {
    fault_check("producer_panic", FaultAction::Panic, contestant, config)
}

fn fault_check(
    name: &'static str,
    action: FaultAction,
    contestant: &Arc<dyn HandoffContestant>,
    config: &HandoffConfig,
) -> Check {
    guarded(name, contestant, config, move |bench| {
        let fault = Fault { at: FAULT_AT, action };
        let behaviour = Behaviour::Instrumented(Arc::new(Instruments::new(Some(fault))));
        let (out, _) = bench.run(ITEMS, &behaviour, Consumer::Sum);
        let live = bench.live.current();
        let tasks = bench.tasks_settle();
        let right_error = match (&out, action) {
            (Err(HandoffError::Producer(e)), FaultAction::Error) => e.at == FAULT_AT,
            (Err(HandoffError::Panicked { side: Side::Producer, message }), FaultAction::Panic) => {
                *message == injected_panic_message(FAULT_AT)
            }
            _ => false,
        };
        Check::new(
            name,
            right_error && live == 0 && tasks.is_none_or(|t| t == 0),
            format!(
                "fault at item {FAULT_AT} of {ITEMS}: {}; {live} producer/consumer threads or tasks alive{}",
                describe(&out),
                match tasks {
                    Some(t) => format!(", {t} runtime tasks alive"),
                    None => String::new(),
                }
            ),
        )
    })
}

/// What a check runs against: a freshly prepared contestant and the live counter of its runs.
struct Bench {
    prepared: Box<dyn PreparedHandoff>,
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
    let contestant = Arc::clone(contestant);
    let config = *config;
    let prepared_check = move || {
        let prepared = match contestant.prepare(&config) {
            Ok(prepared) => prepared,
            Err(err) => return Check::new(name, false, format!("could not prepare: {err}")),
        };
        check(Bench { prepared, config, live: Arc::new(LiveStages::new()) })
    };
    run_guarded(name, WATCHDOG, prepared_check).unwrap_or_else(|err| Check::new(name, false, err.to_string()))
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
