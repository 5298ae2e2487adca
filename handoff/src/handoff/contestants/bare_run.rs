//! What the bare pairs and their A/B variants share below their programs: the bare consumer loop (`receive!`),
//! the run they are handed ([`BareRun`]), and spawning and joining their threads and tasks.

use std::sync::Arc;
use std::thread;

use pipelines::LiveStages;

use crate::job::{Consumer, HandoffError, Outcome, Side};

/// The bare consumer loop over `$next` (an expression giving the next `Option<u64>`, awaiting it in a task): the
/// summing loop, the measured one, for [`Consumer::Sum`], else collecting (`Take(k)` stops after `k` items).
macro_rules! receive {
    ($consumer:expr, $next:expr) => {{
        match $consumer {
            Consumer::Sum => {
                let (mut sum, mut count, mut first_disorder) = (0u64, 0u64, None);
                while let Some(v) = $next {
                    if v != count && first_disorder.is_none() {
                        first_disorder = Some(count);
                    }
                    sum = sum.wrapping_add(v);
                    count += 1;
                }
                Outcome::Sum { sum, count: Some(count), first_disorder }
            }
            // A bare pair has no cancel to listen for (its `caller_cancel` check is not applicable): it collects.
            Consumer::Collect | Consumer::Cancellable => {
                let mut items = Vec::new();
                while let Some(v) = $next {
                    items.push(v);
                }
                Outcome::Items(items)
            }
            Consumer::Take(k) => {
                let mut items = Vec::new();
                while items.len() < k {
                    match $next {
                        Some(v) => items.push(v),
                        None => break,
                    }
                }
                Outcome::Items(items)
            }
        }
    }};
}
pub(super) use receive;

/// What a bare program or an A/B variant runs with: the job's size and consumer, the channel's capacity, the
/// live count the lab's spawns hold and the clock's `go`.
pub(super) struct BareRun<'a> {
    /// Messages the channel holds (at least 1).
    pub(super) capacity: usize,
    /// Items the producer sends.
    pub(super) items: u64,
    /// What the consumer keeps.
    pub(super) consumer: Consumer,
    /// The job's live count (the `lab-spawn` causes hold a guard of it).
    pub(super) live: &'a Arc<LiveStages>,
    /// Starts the clock.
    pub(super) go: &'a mut dyn FnMut(),
}

/// Spawn a plain thread for `side`.
pub(super) fn spawn<T: Send + 'static>(
    side: Side,
    body: impl FnOnce() -> T + Send + 'static,
) -> Result<thread::JoinHandle<T>, HandoffError> {
    thread::Builder::new().spawn(body).map_err(|source| HandoffError::Spawn { side, source })
}

/// Join the producer thread, then hand back what the consumer got.
pub(super) fn join(producer: thread::JoinHandle<()>, outcome: Outcome) -> Result<Outcome, HandoffError> {
    producer.join().map_err(|p| HandoffError::from_panic(Side::Producer, &*p))?;
    Ok(outcome)
}

/// Await the consumer task, then the producer task, as the bare pair and the lab's pair do.
pub(super) async fn join_tasks<T>(
    producer: tokio::task::JoinHandle<()>,
    consumer: tokio::task::JoinHandle<T>,
) -> Result<T, HandoffError> {
    let consumed = consumer.await.map_err(|e| HandoffError::from_join(Side::Consumer, e));
    producer.await.map_err(|e| HandoffError::from_join(Side::Producer, e))?;
    consumed
}
