//! [`count_pending`]: wrap a stream and count how many times polling it returned `Pending`.

use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use futures::Stream;

/// Stream for [`count_pending`]: yields what the inner stream yields.
#[derive(Debug)]
#[must_use = "streams do nothing unless polled"]
pub struct CountPending<S> {
    inner: S,
    pending: Arc<AtomicU64>,
}

/// Wrap `stream` so that every `Pending` it returns adds one to `pending` (a way to see how often a source
/// yields to its executor).
///
/// ```
/// use std::sync::{atomic::{AtomicU64, Ordering}, Arc};
/// use futures::StreamExt;
/// use pipelines::stream::count_pending;
///
/// let pending = Arc::new(AtomicU64::new(0));
/// let items = futures::stream::iter(0..100_u64);
/// let sum = futures::executor::block_on(count_pending(items, pending.clone()).fold(0, |a, x| async move { a + x }));
/// assert_eq!(sum, 4950);
/// assert_eq!(pending.load(Ordering::Relaxed), 0); // futures::stream::iter never yields
/// ```
pub fn count_pending<S: Stream + Unpin>(stream: S, pending: Arc<AtomicU64>) -> CountPending<S> {
    CountPending { inner: stream, pending }
}

impl<S: Stream + Unpin> Stream for CountPending<S> {
    type Item = S::Item;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        let poll = Pin::new(&mut self.inner).poll_next(cx);
        if poll.is_pending() {
            self.pending.fetch_add(1, Ordering::Relaxed);
        }
        poll
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}
