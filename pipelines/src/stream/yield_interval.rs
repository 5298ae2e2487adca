//! [`tokio_iter_yield_interval`]: how often `tokio_stream::iter` yields, as compiled into this binary.
//!
//! tokio-stream 0.1's `iter` has two behaviours chosen at compile time. Without its `rt` feature (this
//! workspace enables only `time`) it returns `Poll::Pending` after every 32 items, waking itself first
//! (`cx.waker().wake_by_ref()`), so an executor re-polls it after one trip through its scheduler. With `rt`
//! it instead consumes tokio's cooperative budget (128 units per task poll) and yields only when the budget
//! runs out, and never outside a runtime. Feature unification can switch this silently, so the chain
//! scenario describes the behaviour this function observes.

use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use futures::Stream;

/// Items `tokio_stream::iter` yields between two `Pending`s when polled outside any runtime: `Some(32)` without
/// tokio-stream's `rt` feature, `None` (never yields outside a runtime; uses tokio's coop budget inside one)
/// with it.
pub fn tokio_iter_yield_interval() -> Option<u64> {
    let mut stream = tokio_stream::iter(0..1_000_u64);
    let mut cx = Context::from_waker(Waker::noop());
    let mut items = 0;
    loop {
        match Pin::new(&mut stream).poll_next(&mut cx) {
            Poll::Ready(Some(_)) => items += 1,
            Poll::Ready(None) => return None,
            Poll::Pending => return Some(items),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokio_stream_iter_yields_every_32_items_in_this_workspace() {
        assert_eq!(tokio_iter_yield_interval(), Some(32));
    }
}
