//! The baselines: a plain `for` loop and a std `Iterator` chain, both on the calling thread, in input order.

use measure::meter::Meter;
use measure::summary::{ContestantInfo, Family, Role};

use super::{Chain, ChainContestant, Contestant, PreparedChain};
use crate::job::{on_caller, ChainConfig, ChainError, Outcome};
use crate::ops::{Hook, Stages};
use crate::sink::{drain_iter, Dispatched, Run, Sink, SinkRun};

/// `baseline-loop`: the physical floor.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BaselineLoop;

/// `baseline-iterator`: what idiomatic sequential Rust costs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BaselineIterator;

impl Contestant<Chain> for BaselineLoop {
    fn info(&self) -> ContestantInfo {
        ContestantInfo::new(
            "baseline-loop",
            Family::Baseline,
            "plain `for` loop over the input slice applying map1, the even filter and map2 inline and \
                          summing with wrapping_add; calling thread, no hand-off, in order",
        )
        .with_role(Role::Floor)
    }

    fn prepare(&self, _config: &ChainConfig) -> Result<Box<PreparedChain>, ChainError> {
        Ok(Box::new(Dispatched(*self)))
    }
}

impl ChainContestant for BaselineLoop {}

impl SinkRun for BaselineLoop {
    fn run_with<M: Meter, H: Hook, S: Sink>(&self, run: Run<'_, '_, M, H, S>) -> Result<Outcome, ChainError> {
        let Run { job, go, stages: Stages { map1, filter, map2 }, mut sink } = run;
        let input: &[u64] = job.input;
        on_caller(go, move || -> Result<Outcome, H::Error> {
            for &x in input {
                let y = map1.apply(x)?;
                if !filter.test(y)? {
                    continue;
                }
                if sink.push(map2.apply(y)?).is_break() {
                    break;
                }
            }
            Ok(sink.finish())
        })
    }
}

impl Contestant<Chain> for BaselineIterator {
    fn info(&self) -> ContestantInfo {
        ContestantInfo::new(
            "baseline-iterator",
            Family::Baseline,
            "std Iterator chain over the input slice: `map` / `filter_map` / `map` consumed by \
                          `try_for_each` summing with wrapping_add (stages yield `Result<u64, Infallible>` when \
                          measured); calling thread, in order",
        )
        .with_role(Role::Floor)
    }

    fn prepare(&self, _config: &ChainConfig) -> Result<Box<PreparedChain>, ChainError> {
        Ok(Box::new(Dispatched(*self)))
    }
}

impl ChainContestant for BaselineIterator {}

impl SinkRun for BaselineIterator {
    fn run_with<M: Meter, H: Hook, S: Sink>(&self, run: Run<'_, '_, M, H, S>) -> Result<Outcome, ChainError> {
        let Run { job, go, stages: Stages { map1, filter, map2 }, sink } = run;
        let input: &[u64] = job.input;
        on_caller(go, move || {
            let items = input.iter().map(|&x| map1.apply(x)).filter_map(|r| filter.on(r)).map(|r| map2.on(r));
            drain_iter(items, sink)
        })
    }
}
