//! `coroutine-may[-batched]`: a producer coroutine sends into `may::sync::mpsc::channel` (unbounded in `may`, so bounded here by a `may::sync::Semphore` of `messages` permits taken before each send and returned after each receive); a consumer coroutine receives, sums and checks order; `may` 0.3 with one carrier thread per CPU and its default 32 KiB stack; in order.

use std::sync::Arc;

use may::sync::mpsc::{self, Receiver};
use may::sync::Semphore;
use measure::meter::Meter;
use pipelines::coroutine::{self, CoroutineConfig};

use super::{shape_phrase, Kind, Run};
use crate::consume::{consume, Sink};
use crate::job::{HandoffError, Outcome, Packing, Side};
use crate::pair::settle;
use crate::produce::{produce, Closed, Producer, Shape};

/// Carriers and stack of both coroutines: one carrier per CPU the trial may use (tokio's default worker count),
/// `may`'s default stack.
fn config() -> CoroutineConfig {
    CoroutineConfig::per_core()
}

/// Producer coroutine → `may` mpsc bounded by a semaphore → consumer coroutine.
pub(crate) struct MayMpsc;

impl Kind for MayMpsc {
    fn describe(packing: Packing) -> String {
        format!(
            "two coroutines ({}) spawned each run once the clock runs: the producer takes a permit from a \
             `may::sync::Semphore` of `messages` permits, then sends on `may::sync::mpsc::channel` (unbounded in \
             `may`: the semaphore is the bound); the consumer receives with a blocking-style `recv` (it parks the \
             coroutine, not the carrier), returns the permit, sums and checks order; the calling thread joins \
             both; {}; in order. `may`'s rules hold: no thread-blocking call and no thread-local held across a \
             wait inside either coroutine",
            config().describe(),
            shape_phrase(packing)
        )
    }

    fn run<M: Meter, Sh: Shape, P: Producer, S: Sink>(run: Run<'_, '_, M, Sh, P, S>) -> Result<Outcome, HandoffError> {
        let Run { env, shape, job, go, producer, sink } = run;
        config().apply();
        let (tx, rx) = mpsc::channel::<Result<Sh::Msg, P::Error>>();
        let permits = Arc::new(Semphore::new(env.messages(shape)));
        let producer_permits = Arc::clone(&permits);
        let items = job.items();
        go();

        // The consumer first: were the producer's spawn to fail, its dropped sender ends the consumer, whereas a
        // producer without a consumer could wait for a permit for ever.
        let meter = job.meter.clone();
        let consumer_co = coroutine::spawn("consumer", config().stack_words, job.live, move || {
            let end = ConsumerEnd { rx: Some(rx), permits };
            consume(shape, std::iter::from_fn(|| end.recv()), &meter, sink)
        })
        .map_err(|source| HandoffError::Spawn { side: Side::Consumer, source })?;

        let meter = job.meter.clone();
        let producer_co = coroutine::spawn("producer", config().stack_words, job.live, move || {
            produce(shape, &producer, items, &meter, |m| {
                producer_permits.wait();
                tx.send(m).map_err(|_| Closed)
            });
        });
        let producer_co = match producer_co {
            Ok(co) => co,
            Err(source) => {
                let _ = consumer_co.join();
                return Err(HandoffError::Spawn { side: Side::Producer, source });
            }
        };
        let consumed = consumer_co.join().unwrap_or_else(|p| Err(HandoffError::from_panic(Side::Consumer, &*p)));
        let produced = producer_co.join().map_err(|p| HandoffError::from_panic(Side::Producer, &*p));
        settle(consumed, produced)
    }
}

/// The consumer's end: the receiver and the semaphore that bounds the channel. Dropping it (the consumer ended,
/// stopped early or panicked) drops the receiver first, so the producer's next send fails, then posts a permit,
/// so a producer waiting for one wakes to find the receiver gone instead of waiting forever.
struct ConsumerEnd<T> {
    rx: Option<Receiver<T>>,
    permits: Arc<Semphore>,
}

impl<T> ConsumerEnd<T> {
    /// The next message, returning its permit; `None` once every sender is gone.
    fn recv(&self) -> Option<T> {
        let message = self.rx.as_ref()?.recv().ok()?;
        self.permits.post();
        Some(message)
    }
}

impl<T> Drop for ConsumerEnd<T> {
    fn drop(&mut self) {
        drop(self.rx.take());
        self.permits.post();
    }
}
