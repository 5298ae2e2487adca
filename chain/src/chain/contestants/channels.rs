//! `blocking-{crossbeam,flume,std}[-fused][-batched]`: OS threads in `std::thread::scope` joined by bounded channels of one flavor, one thread per stage or fused into two busy threads (source+map1+filter | map2+sum on the caller); in order.
//!
//! The stage threads are spawned, and running, before `go`: the source is held at the pipeline's start line
//! ([`Pipeline::start`]) so thread creation stays out of the timed window, as a long-lived pipeline's would.

use std::fmt;
use std::marker::PhantomData;
use std::thread;

use measure::meter::Meter;
use measure::summary::{ContestantInfo, Family};

use super::{channel_bound, message_words, piped_name, Chain, ChainContestant, Contestant, Layout, PreparedChain};
use crate::job::{catch_panics, ChainConfig, ChainError, Outcome};
use crate::ops::{Hook, Message, Stages};
use crate::sink::{Dispatched, Run, Sink, SinkRun};
use pipelines::blocking::{Flavor, Pipeline};

/// A pipeline of threads over channels of flavor `F`, one item or one batch per message, staged or fused.
#[derive(Debug)]
pub(crate) struct ChannelThreads<F> {
    layout: Layout,
    batched: bool,
    flavor: PhantomData<fn() -> F>,
}

impl<F: Flavor + fmt::Debug> ChannelThreads<F> {
    pub(crate) fn new(layout: Layout, batched: bool) -> Self {
        ChannelThreads { layout, batched, flavor: PhantomData }
    }
}

/// A prepared run: nothing to build (stage threads are spawned by each run, before `go`), just the sizing.
#[derive(Debug)]
struct ChannelRun<F> {
    config: ChainConfig,
    layout: Layout,
    batched: bool,
    flavor: PhantomData<fn() -> F>,
}

impl<F: Flavor + fmt::Debug> Contestant<Chain> for ChannelThreads<F> {
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
        let recycling = if self.batched { " (no recycling)" } else { "" };
        let description = format!(
            "{shape} {}{recycling}; threads are spawned before the clock starts, the source held until then; in order",
            message_words(self.batched)
        );
        let name = piped_name(&format!("blocking-{}", F::NAME), self.layout, self.batched);
        ContestantInfo::new(name, Family::Blocking, description)
    }

    fn bound(&self, config: &ChainConfig) -> Option<u64> {
        self.layout().map(|(layout, batched)| channel_bound(config, layout, batched))
    }

    fn prepare(&self, config: &ChainConfig) -> Result<Box<PreparedChain>, ChainError> {
        Ok(Box::new(Dispatched(ChannelRun::<F> {
            config: *config,
            layout: self.layout,
            batched: self.batched,
            flavor: PhantomData,
        })))
    }
}

impl<F: Flavor + fmt::Debug> ChainContestant for ChannelThreads<F> {
    fn layout(&self) -> Option<(Layout, bool)> {
        Some((self.layout, self.batched))
    }
}

impl<F: Flavor + fmt::Debug> SinkRun for ChannelRun<F> {
    fn run_with<M: Meter, H: Hook, S: Sink>(&self, run: Run<'_, '_, M, H, S>) -> Result<Outcome, ChainError> {
        match (self.layout, self.batched) {
            (Layout::Staged, false) => self.staged::<u64, M, H, S>(run),
            (Layout::Staged, true) => self.staged::<Vec<u64>, M, H, S>(run),
            (Layout::Fused, false) => self.fused::<u64, M, H, S>(run),
            (Layout::Fused, true) => self.fused::<Vec<u64>, M, H, S>(run),
        }
    }
}

impl<F: Flavor + fmt::Debug> ChannelRun<F> {
    /// A thread per stage, `P` per message.
    fn staged<P: Message, M: Meter, H: Hook, S: Sink>(&self, run: Run<'_, '_, M, H, S>) -> Result<Outcome, ChainError> {
        let Run { job, go, stages: Stages { map1, filter, map2 }, mut sink } = run;
        let input: &[u64] = job.input;
        let meter = &job.meter;
        let (batch, cap) = self.config.message_sizes(P::BATCHED);
        thread::scope(|scope| {
            Pipeline::<F, P, H::Error>::source(scope, Some(job.live.clone()), cap, "source", |out| {
                for m in P::split(input, batch) {
                    meter.admit(m.items());
                    if out.send(m).is_err() {
                        break;
                    }
                }
                Ok(())
            })?
            .stage(cap, "map1", move |m: P| m.map1(&map1).map(Some))?
            .stage(cap, "filter", move |m: P| m.filter(&filter, meter))?
            .stage(cap, "map2", move |m: P| m.map2(&map2).map(Some))?
            .start(go, |messages| {
                for m in messages {
                    meter.leave(m.items());
                    if m.deliver(&mut sink).is_break() {
                        break;
                    }
                }
                sink.finish()
            })
        })
        .map_err(ChainError::from_pipeline)
    }

    /// Source+map1+filter on a thread, map2+sum on the caller, `P` per message.
    fn fused<P: Message, M: Meter, H: Hook, S: Sink>(&self, run: Run<'_, '_, M, H, S>) -> Result<Outcome, ChainError> {
        let Run { job, go, stages: Stages { map1, filter, map2 }, mut sink } = run;
        let input: &[u64] = job.input;
        let meter = &job.meter;
        let (batch, cap) = self.config.message_sizes(P::BATCHED);
        thread::scope(|scope| {
            Pipeline::<F, P, H::Error>::source(scope, Some(job.live.clone()), cap, "source+map1+filter", |out| {
                for m in P::split(input, batch) {
                    let Some(m) = m.map1(&map1)?.keep(&filter)? else {
                        continue;
                    };
                    meter.admit(m.items());
                    if out.send(m).is_err() {
                        break;
                    }
                }
                Ok(())
            })?
            .start(go, |messages| {
                catch_panics(|| {
                    for m in messages {
                        meter.leave(m.items());
                        if m.map2(&map2)?.deliver(&mut sink).is_break() {
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
