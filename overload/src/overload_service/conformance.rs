//! The service's conformance runs, in the first process after its timed runs: every arrival handled once with the right answer and injected
//! failures counted as failures (`faults`), and, with a gate, a full limit shedding at once (`sheds_when_full`).

use std::sync::Arc;
use std::time::Duration;

use measure::summary::Check;
use pipelines::calls::{FaultAt, Problems};

use super::contestants::run::run_once;
use super::contestants::{Prepared, ServiceContestant};
use crate::arrivals;
use crate::book::Fate;
use crate::limit::{Fixed, Gate};
use crate::service_config::ServiceConfig;

/// The conformance runs every contestant passes for its figures to count: every arrival handled once with the right
/// answer and injected failures counted as failures, and, with a gate, a full limit shedding at once.
pub fn conformance(contestant: ServiceContestant, prepared: &Prepared, config: &ServiceConfig) -> Vec<Check> {
    let small = ServiceConfig {
        rate: 2_000,
        healthy: Duration::from_millis(50),
        after: Duration::from_millis(50),
        deadline: Duration::from_secs(1),
        ..config.clone()
    };
    let n = arrivals::schedule(&small).len() as u64;
    // The calls kit's three places: the first arrival, the middle one and the last.
    let injected: Vec<u64> = FaultAt::ALL.iter().map(|at| at.call(n)).collect();
    // A gated contestant runs behind a gate as wide as the run, which sheds nothing: every injected failure is
    // certainly called and must come back failed. Its own limiter could shed one (arrival n / 2 comes at the
    // capacity drop, where calls pile up on a busy machine), and a shed arrival never meets its failure. What the
    // check judges is the contestant's handling (admit, call, finish), the same with any gate.
    let wide =
        contestant.limiter.map(|_| Arc::new(Gate::new(Box::new(Fixed::new(usize::try_from(n).unwrap_or(usize::MAX))))));
    let mut checks = vec![match run_once(contestant, prepared, &small, injected.clone(), wide, &mut || {}) {
        Err(e) => Check::new("faults", false, e),
        Ok(output) => {
            let entries = output.calls.book.entries();
            let failed: Vec<u64> =
                (0..n).filter(|&i| entries[i as usize].is_some_and(|e| e.fate == Fate::Failed)).collect();
            let wrong = entries.iter().flatten().filter(|e| e.fate == Fate::Wrong).count();
            let missing = entries.iter().filter(|e| e.is_none()).count();
            let twice = output.calls.book.twice();
            let runs = format!("{n} arrivals at 2,000/s with failures injected at arrivals {injected:?}");
            let problems: Problems = [
                (failed != injected).then(|| format!("arrivals {failed:?} failed")),
                (wrong > 0).then(|| format!("{wrong} wrong answers")),
                (missing > 0).then(|| format!("{missing} never handled")),
                (twice > 0).then(|| format!("{twice} handled twice")),
            ]
            .into_iter()
            .collect();
            problems.check(
                "faults",
                || runs.clone(),
                || format!("{runs}: each of them failed, every other arrival answered once"),
            )
        }
    }];
    checks.push(match contestant.limiter {
        None => Check::not_applicable("sheds_when_full", "no gate: nothing is shed"),
        Some(_) => {
            // A gate of 4 against calls of 50 ms, 200 arrivals in 20 ms: exactly 4 answered, the rest shed.
            let full = ServiceConfig {
                rate: 10_000,
                healthy: Duration::from_millis(10),
                after: Duration::from_millis(10),
                service: Duration::from_millis(50),
                jitter: Duration::ZERO,
                deadline: Duration::from_secs(1),
                ..config.clone()
            };
            let gate = Arc::new(Gate::new(Box::new(Fixed::new(4))));
            match run_once(contestant, prepared, &full, Vec::new(), Some(gate), &mut || {}) {
                Err(e) => Check::new("sheds_when_full", false, e),
                Ok(output) => {
                    let entries = output.calls.book.entries();
                    let count = |fate: Fate| entries.iter().flatten().filter(|e| e.fate == fate).count();
                    let (answered, shed) = (count(Fate::Answered), count(Fate::Shed));
                    Check::new(
                        "sheds_when_full",
                        answered == 4 && shed == entries.len() - 4,
                        format!(
                            "{} arrivals in 20 ms against a gate of 4 and calls of 50 ms: {answered} answered, {shed} \
                             shed (4 and {} expected)",
                            entries.len(),
                            entries.len().saturating_sub(4)
                        ),
                    )
                }
            }
        }
    });
    checks
}
