//! `blocking-rayon`: rayon `par_iter` map/filter/map/`reduce(wrapping_add)` on a dedicated pool; unordered.

use ::rayon::prelude::*;
use ::rayon::{ThreadPool, ThreadPoolBuilder};
use measure::meter::{GaugeMeter, Meter};
use measure::summary::{ContestantInfo, Family};

use std::sync::Arc;

use super::{Chain, ChainContestant, Contestant, PreparedChain};
use crate::job::{catch_panics, Behaviour, ChainConfig, ChainError, Consumer, Job, Outcome, StageName};
use crate::ops::{self, Stages, Tripwire};
use pipelines::cancel::CallerCancel;
use pipelines::conformance::Prepared;

/// Data parallelism: rayon splits the slice adaptively across its pool and reduces the partial sums.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BlockingRayon;

/// A rayon pool with the default thread count, built once per trial.
#[derive(Debug)]
struct RayonChain {
    pool: ThreadPool,
}

impl Contestant<Chain> for BlockingRayon {
    fn info(&self) -> ContestantInfo {
        ContestantInfo::new(
            "blocking-rayon",
            Family::Blocking,
            "rayon `par_iter` map / filter / map / `reduce(wrapping_add)` run with `install` on a \
                          dedicated rayon ThreadPool (default thread count) built once per trial; the slice is \
                          split into adaptive chunks across the pool's threads, so items are unordered",
        )
    }

    fn ordered(&self) -> bool {
        false
    }

    fn prepare(&self, _config: &ChainConfig) -> Result<Box<PreparedChain>, ChainError> {
        let pool = ThreadPoolBuilder::new()
            .thread_name(|i| format!("rayon-{i}"))
            .build()
            .map_err(|e| ChainError::Prepare { contestant: "blocking-rayon".into(), message: e.to_string() })?;
        Ok(Box::new(RayonChain { pool }))
    }
}

impl ChainContestant for BlockingRayon {}

impl Prepared<Arc<[u64]>, StageName, ChainError> for RayonChain {
    fn run(&self, job: &Job<'_>, go: &mut dyn FnMut()) -> Result<Outcome, ChainError> {
        self.run_any(job, go)
    }

    fn run_metered(&self, job: &Job<'_, GaugeMeter>, go: &mut dyn FnMut()) -> Result<Outcome, ChainError> {
        self.run_any(job, go)
    }
}

impl RayonChain {
    /// Hands nothing off through a queue: the meter is never used.
    fn run_any<M: Meter>(&self, job: &Job<'_, M>, go: &mut dyn FnMut()) -> Result<Outcome, ChainError> {
        go();
        let input: &[u64] = job.input;
        let (work, consumer) = (job.work, job.consumer);
        catch_panics(|| {
            self.pool.install(|| match job.behaviour {
                Behaviour::Clean => Ok(clean(input, work, consumer)),
                Behaviour::Instrumented(instruments) => {
                    let cancel = instruments.cancel().map(|c| &**c);
                    instrumented(input, Stages::instrumented(work, instruments), consumer, cancel)
                        .map_err(ChainError::from)
                }
            })
        })?
    }
}

/// The measured path: infallible stages and a plain `reduce`. (rayon's short-circuiting `try_reduce` checks a
/// shared flag per item, a cost a pipeline that cannot fail would not pay.)
fn clean(input: &[u64], work: u32, consumer: Consumer) -> Outcome {
    let items = input.par_iter().map(|&x| ops::map1(x, work)).filter(|&y| ops::keep(y)).map(ops::map2);
    match consumer {
        Consumer::Sum => Outcome::sum(items.reduce(|| 0, u64::wrapping_add)),
        Consumer::Collect => Outcome::Items(items.collect()),
        Consumer::Take(k) => Outcome::Items(items.take_any(k).collect()),
        // A clean run has no caller cancellation: collect everything.
        Consumer::Cancellable => Outcome::Items(items.collect()),
    }
}

/// The same chain with fallible stages (conformance checks): errors short-circuit through `try_reduce` and
/// `collect::<Result<_, _>>`.
fn instrumented(
    input: &[u64],
    stages: Stages<Tripwire>,
    consumer: Consumer,
    cancel: Option<&CallerCancel>,
) -> Result<Outcome, crate::job::StageError> {
    let Stages { map1, filter, map2 } = stages;
    let items = input.par_iter().map(|&x| map1.apply(x)).filter_map(|r| filter.on(r)).map(|r| map2.on(r));
    match consumer {
        Consumer::Sum => items.try_reduce(|| 0, |a, b| Ok(a.wrapping_add(b))).map(Outcome::sum),
        Consumer::Collect => items.collect::<Result<Vec<u64>, _>>().map(Outcome::Items),
        Consumer::Take(k) => items.take_any(k).collect::<Result<Vec<u64>, _>>().map(Outcome::Items),
        // Every worker stops taking items at the first one it meets after the caller's cancellation.
        Consumer::Cancellable => match cancel {
            Some(cancel) => {
                items.take_any_while(|_| !cancel.is_raised()).collect::<Result<Vec<u64>, _>>().map(Outcome::Items)
            }
            None => items.collect::<Result<Vec<u64>, _>>().map(Outcome::Items),
        },
    }
}
