//! Blocking pipelines: one OS thread per stage inside a [`std::thread::scope`], joined by bounded channels of a
//! chosen [`Flavor`], the consumer running on the calling thread.
//!
//! A stage is a closure from one message to at most one message (`Ok(Some(out))` forwards, `Ok(None)` drops,
//! `Err(e)` ends the pipeline with `e`). A message may be one item or a `Vec` of items: batching is a choice
//! of message type, not of builder. Termination follows the channels: when a stage's upstream is gone it
//! drains and ends; when its downstream is gone (the consumer stopped early or a later stage failed) its
//! next send fails and it ends quietly. [`Pipeline::finish`] joins every stage and reports the first stage,
//! in pipeline order, that returned an error or panicked.
//!
//! **Start line.** Every stage thread is spawned as the pipeline is built, and the source is held at a start line
//! until the consumer starts: [`Pipeline::start`] waits until every stage thread is running, calls the caller's
//! `go` (so a caller can start its clock with the threads already spawned, as a long-lived application's would
//! be), then releases the source. The other stages need no holding: with nothing sent yet they block on their
//! empty channels. A pipeline dropped before it starts releases its source, so nothing waits forever.
//!
//! [`parked_pool`] is the other way to use threads here: a pool started and parked before the clock starts, then
//! released at once, each thread running the same work.
//!
//! ```
//! use pipelines::blocking::{crossbeam::Crossbeam, Pipeline};
//!
//! let input: Vec<u64> = (0..1000).collect();
//! let sum = std::thread::scope(|scope| {
//!     Pipeline::<Crossbeam, u64, std::convert::Infallible>::source(scope, None, 64, "source", |out| {
//!         for &x in &input {
//!             if out.send(x).is_err() {
//!                 break;
//!             }
//!         }
//!         Ok(())
//!     })?
//!     .stage(64, "double", |x| Ok(Some(x * 2)))?
//!     .finish(|items| items.sum::<u64>())
//! });
//! assert_eq!(sum.ok(), Some(999_000));
//! ```

/// The unit struct `$flavor` (documented by `$doc`) and its [`Flavor`] over a channel module `$(::$module)+` whose
/// bounded channel (made by `$bounded`) has halves `$sender` and `$receiver` with blocking `send` and `recv`;
/// `|$error| $value` takes the value back out of a failed send's error. The impl is what one would write by hand:
/// no call in between.
macro_rules! flavor {
    (
        $(#[$doc:meta])*
        pub struct $flavor:ident, name: $name:literal, api: $api:literal,
        $(::$module:ident)+ { $bounded:ident, $sender:ident, $receiver:ident }, |$error:ident| $value:expr
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, Default)]
        pub struct $flavor;

        impl $crate::blocking::Flavor for $flavor {
            const NAME: &'static str = $name;
            const API: &'static str = $api;
            type Sender<T: Send> = $(::$module)+::$sender<T>;
            type Receiver<T: Send> = $(::$module)+::$receiver<T>;

            fn bounded<T: Send>(capacity: usize) -> (Self::Sender<T>, Self::Receiver<T>) {
                $(::$module)+::$bounded(capacity)
            }

            #[inline]
            fn send<T: Send>(tx: &Self::Sender<T>, value: T) -> Result<(), T> {
                tx.send(value).map_err(|$error| $value)
            }

            #[inline]
            fn recv<T: Send>(rx: &Self::Receiver<T>) -> Option<T> {
                rx.recv().ok()
            }
        }
    };
}

pub mod crossbeam;
pub mod flume;
pub mod parked_pool;
#[path = "std.rs"]
pub mod std_sync;

use ::std::fmt;
use ::std::sync::Arc;
use ::std::thread::{self, Scope, ScopedJoinHandle};

use crate::panic::panic_message;
use crate::start_line::{Opener, StartLine};
use crate::{LiveStages, PipelineError};

/// A bounded channel implementation: how to make one, send into it and receive from it, blocking.
pub trait Flavor: 'static {
    /// Short name used in contestant names, such as `crossbeam`.
    const NAME: &'static str;
    /// The exact API, for descriptions, such as `crossbeam_channel::bounded`.
    const API: &'static str;
    /// The sending half.
    type Sender<T: Send>: Send;
    /// The receiving half.
    type Receiver<T: Send>: Send;
    /// A channel holding at most `capacity` messages (`capacity >= 1`).
    fn bounded<T: Send>(capacity: usize) -> (Self::Sender<T>, Self::Receiver<T>);
    /// Send, blocking while the channel is full; gives the value back if the receiver is gone.
    fn send<T: Send>(tx: &Self::Sender<T>, value: T) -> Result<(), T>;
    /// Receive, blocking while the channel is empty; `None` once it is empty and every sender is gone.
    fn recv<T: Send>(rx: &Self::Receiver<T>) -> Option<T>;
}

/// The downstream end handed to a source: send messages into the pipeline.
pub struct Outlet<F: Flavor, T: Send> {
    tx: F::Sender<T>,
}

/// The pipeline's receiving end, handed to the consumer: an iterator over what the last stage sends. Dropping it
/// before the end stops the pipeline (upstream sends start failing).
pub struct Inlet<F: Flavor, T: Send> {
    rx: F::Receiver<T>,
}

/// The downstream is gone: the consumer stopped or a later stage ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Closed;

impl<F: Flavor, T: Send> Outlet<F, T> {
    /// Send one message, blocking while the channel is full; `Err(Closed)` if the downstream is gone.
    #[inline]
    pub fn send(&self, value: T) -> Result<(), Closed> {
        F::send(&self.tx, value).map_err(|_| Closed)
    }
}

impl<F: Flavor, T: Send> Iterator for Inlet<F, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        F::recv(&self.rx)
    }
}

impl<F: Flavor, T: Send> fmt::Debug for Outlet<F, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Outlet").field("flavor", &F::NAME).finish_non_exhaustive()
    }
}

impl<F: Flavor, T: Send> fmt::Debug for Inlet<F, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Inlet").field("flavor", &F::NAME).finish_non_exhaustive()
    }
}

struct StageThread<'scope, E> {
    name: &'static str,
    handle: ScopedJoinHandle<'scope, Result<(), E>>,
}

/// A pipeline being built inside a thread scope: its stage threads are already running; `T` is the message type
/// its last stage sends, `E` the stages' error type.
pub struct Pipeline<'scope, 'env, F: Flavor, T: Send, E> {
    scope: &'scope Scope<'scope, 'env>,
    rx: F::Receiver<T>,
    stages: Vec<StageThread<'scope, E>>,
    live: Option<Arc<LiveStages>>,
    line: Opener,
}

impl<F: Flavor, T: Send, E> fmt::Debug for Pipeline<'_, '_, F, T, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.stages.iter().map(|s| s.name).collect();
        f.debug_struct("Pipeline").field("flavor", &F::NAME).field("stages", &names).finish_non_exhaustive()
    }
}

impl<'scope, 'env, F, T, E> Pipeline<'scope, 'env, F, T, E>
where
    F: Flavor,
    T: Send + 'scope,
    E: Send + 'scope + fmt::Debug + fmt::Display,
{
    /// Start a pipeline with a source thread named `name` that runs `produce` once, sending into a channel of
    /// `capacity` messages. Every stage thread holds a guard of `live`, if given, while it runs.
    pub fn source<P>(
        scope: &'scope Scope<'scope, 'env>,
        live: Option<Arc<LiveStages>>,
        capacity: usize,
        name: &'static str,
        produce: P,
    ) -> Result<Self, PipelineError<E>>
    where
        P: FnOnce(&Outlet<F, T>) -> Result<(), E> + Send + 'scope,
    {
        let (tx, rx) = F::bounded(capacity.max(1));
        let line = Opener::new(Arc::new(StartLine::default()));
        let held = Arc::clone(line.line());
        let stage = spawn(scope, &live, line.line(), name, move || {
            held.wait_open();
            produce(&Outlet { tx })
        })?;
        Ok(Pipeline { scope, rx, stages: vec![stage], live, line })
    }

    /// Add a stage thread named `name` that applies `step` to every message and sends what it returns into a new
    /// channel of `capacity` messages.
    pub fn stage<U, S>(
        self,
        capacity: usize,
        name: &'static str,
        mut step: S,
    ) -> Result<Pipeline<'scope, 'env, F, U, E>, PipelineError<E>>
    where
        U: Send + 'scope,
        S: FnMut(T) -> Result<Option<U>, E> + Send + 'scope,
    {
        let Pipeline { scope, rx, mut stages, live, line } = self;
        let (tx, next_rx) = F::bounded::<U>(capacity.max(1));
        let stage = spawn(scope, &live, line.line(), name, move || {
            while let Some(message) = F::recv(&rx) {
                if let Some(out) = step(message)? {
                    if F::send(&tx, out).is_err() {
                        break;
                    }
                }
            }
            Ok(())
        })?;
        stages.push(stage);
        Ok(Pipeline { scope, rx: next_rx, stages, live, line })
    }

    /// [`Pipeline::start`] with nothing to do at the start line.
    pub fn finish<R>(self, consume: impl FnOnce(Inlet<F, T>) -> R) -> Result<R, PipelineError<E>> {
        self.start(&mut || {}, consume)
    }

    /// Wait until every stage thread is running, call `go`, release the source, run `consume` on the calling
    /// thread over what the last stage sends, then join every stage. The consumer may stop early by dropping the
    /// [`Inlet`]. Returns what `consume` returned unless a stage failed.
    pub fn start<R>(self, go: &mut dyn FnMut(), consume: impl FnOnce(Inlet<F, T>) -> R) -> Result<R, PipelineError<E>> {
        let Pipeline { rx, stages, line, .. } = self;
        line.line().wait_arrived(stages.len());
        go();
        drop(line);
        let out = consume(Inlet { rx });
        let mut failure = None;
        for StageThread { name, handle } in stages {
            let err = match handle.join() {
                Ok(Ok(())) => continue,
                Ok(Err(error)) => PipelineError::Stage { stage: name, error },
                Err(payload) => PipelineError::Panicked { stage: name, message: panic_message(&*payload) },
            };
            failure.get_or_insert(err);
        }
        match failure {
            Some(err) => Err(err),
            None => Ok(out),
        }
    }
}

fn spawn<'scope, E: Send + 'scope + fmt::Debug + fmt::Display>(
    scope: &'scope Scope<'scope, '_>,
    live: &Option<Arc<LiveStages>>,
    line: &Arc<StartLine>,
    name: &'static str,
    body: impl FnOnce() -> Result<(), E> + Send + 'scope,
) -> Result<StageThread<'scope, E>, PipelineError<E>> {
    let guard = live.as_ref().map(LiveStages::enter);
    let line = Arc::clone(line);
    let handle = thread::Builder::new()
        .name(name.to_string())
        .spawn_scoped(scope, move || {
            let _guard = guard;
            line.arrive();
            drop(line);
            body()
        })
        .map_err(|source| PipelineError::Spawn { stage: name, source })?;
    Ok(StageThread { name, handle })
}

#[cfg(test)]
mod tests {
    use super::crossbeam::Crossbeam;
    use super::flume::Flume;
    use super::std_sync::StdSync;
    use super::*;

    /// A source that sends `0..end` and stops early once the downstream is gone.
    fn counting<F: Flavor>(end: u64) -> impl FnOnce(&Outlet<F, u64>) -> Result<(), String> + Send {
        move |out| {
            for x in 0..end {
                if out.send(x).is_err() {
                    break;
                }
            }
            Ok(())
        }
    }

    fn doubled_sum<F: Flavor>(input: &[u64], capacity: usize) -> Result<u64, PipelineError<String>> {
        thread::scope(|scope| {
            Pipeline::<F, u64, String>::source(scope, None, capacity, "source", |out| {
                for &x in input {
                    if out.send(x).is_err() {
                        break;
                    }
                }
                Ok(())
            })?
            .stage(capacity, "double", |x| Ok(Some(x * 2)))?
            .stage(capacity, "odd-only", |x| Ok((x % 4 == 0).then_some(x)))?
            .finish(|items| items.sum())
        })
    }

    #[test]
    fn every_flavor_delivers_every_message_in_order() {
        let input: Vec<u64> = (0..10_000).collect();
        let expected: u64 = input.iter().map(|x| x * 2).filter(|x| x % 4 == 0).sum();
        assert_eq!(doubled_sum::<Crossbeam>(&input, 1).ok(), Some(expected));
        assert_eq!(doubled_sum::<Flume>(&input, 7).ok(), Some(expected));
        assert_eq!(doubled_sum::<StdSync>(&input, 1024).ok(), Some(expected));
    }

    #[test]
    fn go_runs_once_every_stage_is_running_and_before_the_source_sends() {
        use ::std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
        let (gone, sent_before_go, live) = (AtomicBool::new(false), AtomicUsize::new(0), Arc::new(LiveStages::new()));
        let sum = thread::scope(|scope| {
            Pipeline::<Crossbeam, u64, String>::source(scope, Some(live.clone()), 4, "source", |out| {
                for x in 0..100 {
                    if !gone.load(Ordering::SeqCst) {
                        sent_before_go.fetch_add(1, Ordering::SeqCst);
                    }
                    if out.send(x).is_err() {
                        break;
                    }
                }
                Ok(())
            })?
            .stage(4, "double", |x| Ok(Some(x * 2)))?
            .stage(4, "identity", |x| Ok(Some(x)))?
            .start(
                &mut || {
                    assert_eq!(live.current(), 3, "every stage thread is running at go");
                    gone.store(true, Ordering::SeqCst);
                },
                |items| items.sum::<u64>(),
            )
        });
        assert_eq!(sum.ok(), Some(9_900));
        assert_eq!(sent_before_go.load(Ordering::SeqCst), 0, "the source sent nothing before go");
        assert_eq!(live.current(), 0);
    }

    #[test]
    fn a_stage_error_ends_the_pipeline_with_that_error() {
        let live = Arc::new(LiveStages::new());
        let result = thread::scope(|scope| {
            Pipeline::<Crossbeam, u64, String>::source(scope, Some(live.clone()), 4, "source", counting(u64::MAX))?
                .stage(4, "fails", |x| if x == 100 { Err(format!("bad {x}")) } else { Ok(Some(x)) })?
                .finish(|items| items.count())
        });
        assert!(matches!(result, Err(PipelineError::Stage { stage: "fails", ref error }) if error == "bad 100"));
        assert_eq!(live.current(), 0);
    }

    #[test]
    fn a_consumer_that_stops_early_ends_every_stage() {
        let live = Arc::new(LiveStages::new());
        let taken = thread::scope(|scope| {
            Pipeline::<Flume, u64, String>::source(scope, Some(live.clone()), 2, "endless", counting(u64::MAX))?
                .stage(2, "identity", |x| Ok(Some(x)))?
                .finish(|items| items.take(3).collect::<Vec<_>>())
        });
        assert_eq!(taken.ok(), Some(vec![0, 1, 2]));
        assert_eq!(live.current(), 0);
    }

    #[test]
    fn a_stage_panic_is_reported_not_propagated() {
        let result = thread::scope(|scope| {
            Pipeline::<StdSync, u64, String>::source(scope, None, 4, "source", counting(1000))?
                .stage(4, "panics", |x| {
                    if x == 10 {
                        std::panic::panic_any(crate::InjectedPanic { stage: "map1", at: 10 });
                    }
                    Ok(Some(x))
                })?
                .finish(|items| items.count())
        });
        assert!(matches!(result, Err(PipelineError::Panicked { stage: "panics", .. })));
    }
}
