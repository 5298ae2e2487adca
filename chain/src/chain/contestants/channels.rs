//! `blocking-{crossbeam,flume,std}[-fused][-batched]`: OS threads in `std::thread::scope` joined by bounded channels of one flavor, one thread per stage or fused into two busy threads (source+map1+filter | map2+sum on the caller); in order.
//!
//! The stage threads are spawned, and running, before `go`: the source is held at the pipeline's start line
//! ([`Pipeline::start`]) so thread creation stays out of the timed window, as a long-lived pipeline's would.

use std::fmt;
use std::marker::PhantomData;
use std::thread;

use measure::meter::Meter;
use measure::summary::{ContestantInfo, Family};

use super::{channel_bound, ChainContestant, Layout, PreparedChain};
use crate::job::{catch_panics, ChainConfig, ChainError, Outcome};
use crate::ops::{Hook, Stages};
use crate::sink::{Run, Sink, SinkRun};
use pipelines::blocking::{Flavor, Pipeline};

/// A pipeline of threads over channels of flavor `F`, one item or one batch per message, staged or fused.
pub(crate) struct ChannelThreads<F> {
    layout: Layout,
    batched: bool,
    flavor: PhantomData<fn() -> F>,
}

impl<F> fmt::Debug for ChannelThreads<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChannelThreads")
            .field("layout", &self.layout)
            .field("batched", &self.batched)
            .finish_non_exhaustive()
    }
}

impl<F: Flavor> ChannelThreads<F> {
    pub(crate) fn new(layout: Layout, batched: bool) -> Self {
        ChannelThreads { layout, batched, flavor: PhantomData }
    }
}

/// A prepared run: nothing to build (stage threads are spawned by each run, before `go`), just the sizing.
struct ChannelRun<F> {
    config: ChainConfig,
    layout: Layout,
    batched: bool,
    flavor: PhantomData<fn() -> F>,
}

impl<F: Flavor> fmt::Debug for ChannelRun<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChannelRun")
            .field("flavor", &F::NAME)
            .field("config", &self.config)
            .field("layout", &self.layout)
            .field("batched", &self.batched)
            .finish()
    }
}

impl<F: Flavor> ChainContestant for ChannelThreads<F> {
    fn info(&self) -> ContestantInfo {
        let shape = match self.layout {
            Layout::Staged => format!(
                "one OS thread per stage (source, map1, filter, map2) plus the caller summing, 5 busy threads, in \
                 std::thread::scope, joined by 4 {} channels",
                F::API
            ),
            Layout::Fused => format!(
                "two busy threads: source+map1+filter on a scoped thread, map2+sum on the caller, joined by one {} \
                 channel",
                F::API
            ),
        };
        let messages = if self.batched {
            "carrying one Vec<u64> of `items_per_message` items per message, `messages_per_channel` messages per \
             channel (both in the results table; the same items as unbatched); the source allocates each Vec, maps \
             rewrite it in place, the filter `retain`s, the consumer frees it (no recycling)"
        } else {
            "of `capacity` (default 1024) messages of one item"
        };
        let name = format!(
            "blocking-{}{}{}",
            F::NAME,
            if self.layout == Layout::Fused { "-fused" } else { "" },
            if self.batched { "-batched" } else { "" }
        );
        let description = format!(
            "{shape} {messages}; threads are spawned before the clock starts, the source held until then; in order"
        );
        ContestantInfo::new(name, Family::Blocking, description)
    }

    fn bound(&self, config: &ChainConfig) -> Option<u64> {
        Some(channel_bound(config, self.layout, self.batched))
    }

    fn layout(&self) -> Option<(Layout, bool)> {
        Some((self.layout, self.batched))
    }

    fn prepare(&self, config: &ChainConfig) -> Result<Box<dyn PreparedChain>, ChainError> {
        Ok(Box::new(ChannelRun::<F> {
            config: *config,
            layout: self.layout,
            batched: self.batched,
            flavor: PhantomData,
        }))
    }
}

impl<F: Flavor> SinkRun for ChannelRun<F> {
    fn run_with<M: Meter, H: Hook, S: Sink>(&self, run: Run<'_, '_, M, H, S>) -> Result<Outcome, ChainError> {
        match (self.layout, self.batched) {
            (Layout::Staged, false) => self.items(run),
            (Layout::Staged, true) => self.batches(run),
            (Layout::Fused, false) => self.fused_items(run),
            (Layout::Fused, true) => self.fused_batches(run),
        }
    }
}

impl<F: Flavor> ChannelRun<F> {
    fn items<M: Meter, H: Hook, S: Sink>(&self, run: Run<'_, '_, M, H, S>) -> Result<Outcome, ChainError> {
        let Run { job, go, stages: Stages { map1, filter, map2 }, mut sink } = run;
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
            .stage(cap, "filter", move |y| filter.stage(y, meter))?
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

    fn batches<M: Meter, H: Hook, S: Sink>(&self, run: Run<'_, '_, M, H, S>) -> Result<Outcome, ChainError> {
        let Run { job, go, stages: Stages { map1, filter, map2 }, mut sink } = run;
        let input: &[u64] = job.input;
        let meter = &job.meter;
        let (batch, cap) = (self.config.items_per_message(true), self.config.messages_per_channel(true));
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
            .stage(cap, "map1", move |b| map1.stage_batch(b))?
            .stage(cap, "filter", move |b| filter.stage_batch(b, meter))?
            .stage(cap, "map2", move |b| map2.stage_batch(b))?
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

    fn fused_items<M: Meter, H: Hook, S: Sink>(&self, run: Run<'_, '_, M, H, S>) -> Result<Outcome, ChainError> {
        let Run { job, go, stages: Stages { map1, filter, map2 }, mut sink } = run;
        let input: &[u64] = job.input;
        let meter = &job.meter;
        let cap = self.config.capacity;
        thread::scope(|scope| {
            Pipeline::<F, u64, H::Error>::source(scope, Some(job.live.clone()), cap, "source+map1+filter", |out| {
                for &x in input {
                    let y = map1.apply(x)?;
                    if !filter.test(y)? {
                        continue;
                    }
                    meter.admit(1);
                    if out.send(y).is_err() {
                        break;
                    }
                }
                Ok(())
            })?
            .start(go, |items| {
                catch_panics(|| {
                    for y in items {
                        meter.leave(1);
                        if sink.push(map2.apply(y)?).is_break() {
                            break;
                        }
                    }
                    Ok::<Outcome, H::Error>(sink.finish())
                })
            })
        })
        .map_err(ChainError::from_pipeline)?
        .and_then(|consumed| consumed.map_err(Into::into))
    }

    fn fused_batches<M: Meter, H: Hook, S: Sink>(&self, run: Run<'_, '_, M, H, S>) -> Result<Outcome, ChainError> {
        let Run { job, go, stages: Stages { map1, filter, map2 }, mut sink } = run;
        let input: &[u64] = job.input;
        let meter = &job.meter;
        let (batch, cap) = (self.config.items_per_message(true), self.config.messages_per_channel(true));
        thread::scope(|scope| {
            Pipeline::<F, Vec<u64>, H::Error>::source(
                scope,
                Some(job.live.clone()),
                cap,
                "source+map1+filter",
                |out| {
                    for chunk in input.chunks(batch) {
                        let mut b = chunk.to_vec();
                        map1.apply_batch(&mut b)?;
                        filter.retain(&mut b)?;
                        if b.is_empty() {
                            continue;
                        }
                        meter.admit(b.len() as u64);
                        if out.send(b).is_err() {
                            break;
                        }
                    }
                    Ok(())
                },
            )?
            .start(go, |batches| {
                catch_panics(|| {
                    for mut b in batches {
                        meter.leave(b.len() as u64);
                        map2.apply_batch(&mut b)?;
                        if sink.push_batch(b).is_break() {
                            break;
                        }
                    }
                    Ok::<Outcome, H::Error>(sink.finish())
                })
            })
        })
        .map_err(ChainError::from_pipeline)?
        .and_then(|consumed| consumed.map_err(Into::into))
    }
}
