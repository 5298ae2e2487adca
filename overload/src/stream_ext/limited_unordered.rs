//! `limited_unordered`: like `buffer_unordered`, with the width set by an admission gate, not a constant.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::stream::{FusedStream, FuturesUnordered};
use futures::{Stream, StreamExt};

use crate::limit::{Acquire, Gate, Permit};

/// Stream for [`LimitedStreamExt::limited_unordered`](super::LimitedStreamExt::limited_unordered).
///
/// Each poll first admits as many new items as the gate allows (acquire a permit, then pull one item and start
/// its future), then yields the first finished future's output. While waiting for a permit it holds one pending
/// [`Acquire`], so it queues at the gate in FIFO order like any other waiter, and wakes when a slot frees.
///
/// ```
/// use std::sync::Arc;
/// use futures::{stream, StreamExt};
/// use overload::limit::{Fixed, Gate, Outcome};
/// use overload::stream_ext::LimitedStreamExt;
///
/// let gate = Arc::new(Gate::new(Box::new(Fixed::new(2))));
/// let doubled: Vec<u64> = futures::executor::block_on(
///     stream::iter(1..=4u64)
///         .limited_unordered(Arc::clone(&gate), |x, permit| async move {
///             permit.release(std::time::Duration::ZERO, Outcome::Success);
///             x * 2
///         })
///         .collect(),
/// );
/// assert_eq!(doubled.iter().sum::<u64>(), 20);
/// assert!(gate.max_in_flight() <= 2);
/// ```
#[must_use = "streams do nothing unless polled"]
pub struct LimitedUnordered<S, F, Fut> {
    upstream: Pin<Box<futures::stream::Fuse<S>>>,
    gate: Arc<Gate>,
    make: F,
    running: FuturesUnordered<Fut>,
    acquiring: Option<Acquire>,
    /// A permit granted while upstream had no item ready yet.
    spare: Option<Permit>,
}

impl<S, F, Fut> LimitedUnordered<S, F, Fut>
where
    S: Stream,
    F: FnMut(S::Item, Permit) -> Fut,
    Fut: Future,
{
    pub(super) fn new(upstream: S, gate: Arc<Gate>, make: F) -> Self {
        LimitedUnordered {
            upstream: Box::pin(upstream.fuse()),
            gate,
            make,
            running: FuturesUnordered::new(),
            acquiring: None,
            spare: None,
        }
    }

    /// Admit and start as many items as the gate allows right now.
    fn admit(&mut self, cx: &mut Context<'_>) {
        while !self.upstream.is_terminated() {
            let permit = match self.spare.take() {
                Some(permit) => permit,
                None => {
                    let gate = &self.gate;
                    let acquiring = self.acquiring.get_or_insert_with(|| gate.acquire());
                    match Pin::new(acquiring).poll(cx) {
                        Poll::Ready(permit) => {
                            self.acquiring = None;
                            permit
                        }
                        Poll::Pending => return,
                    }
                }
            };
            match self.upstream.as_mut().poll_next(cx) {
                Poll::Ready(Some(item)) => self.running.push((self.make)(item, permit)),
                // Upstream is done: the unused permit goes back (dropped: not a measured call).
                Poll::Ready(None) => drop(permit),
                Poll::Pending => {
                    self.spare = Some(permit);
                    return;
                }
            }
        }
    }
}

// Nothing is ever pinned in place: the upstream is boxed, `FuturesUnordered` is `Unpin` whatever it holds, and
// the closure is only called through `&mut`.
impl<S, F, Fut> Unpin for LimitedUnordered<S, F, Fut> {}

impl<S, F, Fut> Stream for LimitedUnordered<S, F, Fut>
where
    S: Stream,
    F: FnMut(S::Item, Permit) -> Fut,
    Fut: Future,
{
    type Item = Fut::Output;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        this.admit(cx);
        match this.running.poll_next_unpin(cx) {
            Poll::Ready(Some(output)) => Poll::Ready(Some(output)),
            Poll::Ready(None) if this.upstream.is_terminated() => Poll::Ready(None),
            Poll::Ready(None) | Poll::Pending => Poll::Pending,
        }
    }
}

impl<S, F, Fut> fmt::Debug for LimitedUnordered<S, F, Fut> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LimitedUnordered")
            .field("in_progress", &self.running.len())
            .field("waiting_for_permit", &self.acquiring.is_some())
            .finish_non_exhaustive()
    }
}
