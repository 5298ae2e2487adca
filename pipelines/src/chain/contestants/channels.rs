//! `blocking-{crossbeam,flume,std}[-batched]`: one OS thread per stage in `std::thread::scope`, joined by bounded channels of one flavor; in order.
//!
//! The stage threads are spawned, and running, before `go`: the source is held at the pipeline's start line
//! ([`Pipeline::start`]) so thread creation stays out of the timed window, as a long-lived pipeline's would.

use std::fmt;
use std::marker::PhantomData;
use std::thread;

use measure::meter::{GaugeMeter, Meter};
use measure::summary::{ContestantInfo, Family};

use super::{channel_bound, ChainContestant, PreparedChain};
use crate::blocking::{Flavor, Pipeline};
use crate::chain::job::{ChainConfig, ChainError, Job, Outcome};
use crate::chain::ops::{Hook, Stages};
use crate::chain::sink::{dispatch, Sink, SinkRun};

/// A thread-per-stage pipeline over channels of flavor `F`, one item or one batch per message.
pub(crate) struct ChannelThreads<F> {
    batched: bool,
    flavor: PhantomData<fn() -> F>,
}

impl<F> fmt::Debug for ChannelThreads<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChannelThreads").field("batched", &self.batched).finish_non_exhaustive()
    }
}

impl<F: Flavor> ChannelThreads<F> {
    pub(crate) fn new(batched: bool) -> Self {
        ChannelThreads { batched, flavor: PhantomData }
    }
}

/// A prepared run: nothing to build (stage threads are spawned inside each run), just the sizing.
struct ChannelRun<F> {
    config: ChainConfig,
    batched: bool,
    flavor: PhantomData<fn() -> F>,
}

impl<F: Flavor> fmt::Debug for ChannelRun<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChannelRun")
            .field("flavor", &F::NAME)
            .field("config", &self.config)
            .field("batched", &self.batched)
            .finish()
    }
}

impl<F: Flavor> ChainContestant for ChannelThreads<F> {
    fn info(&self) -> ContestantInfo {
        let (name, description) = if self.batched {
            (
                format!("blocking-{}-batched", F::NAME),
                format!(
                    "one OS thread per stage (source, map1, filter, map2; sum on the caller) in std::thread::scope, \
                     joined by {} channels carrying one Vec<u64> of `batch` (default 256) items per message, \
                     `capacity / batch` messages per channel (same items as unbatched); the source allocates each \
                     Vec, maps rewrite it in place, the filter `retain`s, the consumer frees it (no recycling); \
                     in order",
                    F::API
                ),
            )
        } else {
            (
                format!("blocking-{}", F::NAME),
                format!(
                    "one OS thread per stage (source, map1, filter, map2; sum on the caller) in std::thread::scope, \
                     joined by {} channels of `capacity` (default 1024) messages, one item per message; in order",
                    F::API
                ),
            )
        };
        ContestantInfo { name, family: Family::Blocking, description }
    }

    fn bound(&self, config: &ChainConfig) -> Option<u64> {
        Some(channel_bound(config, if self.batched { config.batch } else { 1 }))
    }

    fn prepare(&self, config: &ChainConfig) -> Result<Box<dyn PreparedChain>, ChainError> {
        Ok(Box::new(ChannelRun::<F> { config: *config, batched: self.batched, flavor: PhantomData }))
    }
}

impl<F: Flavor> PreparedChain for ChannelRun<F> {
    fn run(&self, job: &Job<'_>, go: &mut dyn FnMut()) -> Result<Outcome, ChainError> {
        dispatch(self, job, go)
    }

    fn run_metered(&self, job: &Job<'_, GaugeMeter>, go: &mut dyn FnMut()) -> Result<Outcome, ChainError> {
        dispatch(self, job, go)
    }
}

impl<F: Flavor> SinkRun for ChannelRun<F> {
    fn run_with<M: Meter, H: Hook, S: Sink>(
        &self,
        job: &Job<'_, M>,
        go: &mut dyn FnMut(),
        stages: Stages<H>,
        sink: S,
    ) -> Result<Outcome, ChainError> {
        if self.batched {
            self.batches(job, go, stages, sink)
        } else {
            self.items(job, go, stages, sink)
        }
    }
}

impl<F: Flavor> ChannelRun<F> {
    fn items<M: Meter, H: Hook, S: Sink>(
        &self,
        job: &Job<'_, M>,
        go: &mut dyn FnMut(),
        stages: Stages<H>,
        mut sink: S,
    ) -> Result<Outcome, ChainError> {
        let Stages { map1, filter, map2 } = stages;
        let input: &[u64] = job.input;
        let meter = &job.meter;
        let cap = self.config.capacity;
        thread::scope(|scope| {
            Pipeline::<F, u64, H::Error>::source(scope, Some(job.live.clone()), cap, "source", |out| {
                for &x in input {
                    meter.admit(1);
                    if out.send(x).is_err() {
                        break;
                    }
                }
                Ok(())
            })?
            .stage(cap, "map1", move |x| map1.apply(x).map(Some))?
            .stage(cap, "filter", move |y| {
                if filter.test(y)? {
                    Ok(Some(y))
                } else {
                    meter.leave(1);
                    Ok(None)
                }
            })?
            .stage(cap, "map2", move |y| map2.apply(y).map(Some))?
            .start(go, |items| {
                for z in items {
                    meter.leave(1);
                    if sink.push(z).is_break() {
                        break;
                    }
                }
                sink.finish()
            })
        })
        .map_err(ChainError::from_pipeline)
    }

    fn batches<M: Meter, H: Hook, S: Sink>(
        &self,
        job: &Job<'_, M>,
        go: &mut dyn FnMut(),
        stages: Stages<H>,
        mut sink: S,
    ) -> Result<Outcome, ChainError> {
        let Stages { map1, filter, map2 } = stages;
        let input: &[u64] = job.input;
        let meter = &job.meter;
        let (batch, cap) = (self.config.batch.max(1), self.config.messages_per_channel(self.config.batch));
        thread::scope(|scope| {
            Pipeline::<F, Vec<u64>, H::Error>::source(scope, Some(job.live.clone()), cap, "source", |out| {
                for chunk in input.chunks(batch) {
                    meter.admit(chunk.len() as u64);
                    if out.send(chunk.to_vec()).is_err() {
                        break;
                    }
                }
                Ok(())
            })?
            .stage(cap, "map1", move |mut b: Vec<u64>| {
                map1.apply_batch(&mut b)?;
                Ok(Some(b))
            })?
            .stage(cap, "filter", move |mut b: Vec<u64>| {
                let before = b.len();
                filter.retain(&mut b)?;
                meter.leave((before - b.len()) as u64);
                Ok((!b.is_empty()).then_some(b))
            })?
            .stage(cap, "map2", move |mut b: Vec<u64>| {
                map2.apply_batch(&mut b)?;
                Ok(Some(b))
            })?
            .start(go, |batches| {
                for b in batches {
                    meter.leave(b.len() as u64);
                    if sink.push_batch(b).is_break() {
                        break;
                    }
                }
                sink.finish()
            })
        })
        .map_err(ChainError::from_pipeline)
    }
}
