//! Where a consumer's items end up, shared by every scenario whose consumer runs on one thread: the [`Sink`]
//! trait (generic over what a scenario's sink returns) and [`TakeSink`], which collects items in arrival order
//! (the conformance checks' consumer). Each scenario keeps its own summing sink, since what it checks differs.

use std::ops::ControlFlow;

/// Where a pipeline's items end up; `O` is what the sink returns when the pipeline is done.
pub trait Sink<O>: Send + 'static {
    /// Take one item; `Break` when the sink wants no more.
    fn push(&mut self, x: u64) -> ControlFlow<()>;
    /// Take a batch of items (and free it); `Break` when the sink wants no more.
    fn push_batch(&mut self, batch: Vec<u64>) -> ControlFlow<()>;
    /// What it got.
    fn finish(self) -> O;
}

/// Every item, in arrival order, up to a limit; returns them as whatever `Vec<u64>` converts into.
#[derive(Debug)]
pub struct TakeSink {
    items: Vec<u64>,
    limit: usize,
}

impl TakeSink {
    /// Keep the first `limit` items, then ask for no more.
    pub fn first(limit: usize) -> TakeSink {
        TakeSink { items: Vec::with_capacity(limit.min(1 << 20)), limit }
    }

    /// Keep every item.
    pub fn all() -> TakeSink {
        TakeSink { items: Vec::new(), limit: usize::MAX }
    }

    fn flow(&self) -> ControlFlow<()> {
        if self.items.len() >= self.limit {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    }
}

impl<O: From<Vec<u64>>> Sink<O> for TakeSink {
    #[inline]
    fn push(&mut self, x: u64) -> ControlFlow<()> {
        if self.items.len() < self.limit {
            self.items.push(x);
        }
        self.flow()
    }

    fn push_batch(&mut self, batch: Vec<u64>) -> ControlFlow<()> {
        let room = self.limit.saturating_sub(self.items.len());
        self.items.extend(batch.into_iter().take(room));
        self.flow()
    }

    fn finish(self) -> O {
        O::from(self.items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_take_sink_keeps_the_first_items_and_then_asks_for_no_more() {
        let mut sink = TakeSink::first(3);
        assert_eq!(Sink::<Vec<u64>>::push(&mut sink, 7), ControlFlow::Continue(()));
        assert_eq!(Sink::<Vec<u64>>::push_batch(&mut sink, vec![8, 9, 10]), ControlFlow::Break(()));
        assert_eq!(Sink::<Vec<u64>>::finish(sink), vec![7, 8, 9]);
    }

    #[test]
    fn an_unlimited_take_sink_keeps_everything() {
        let mut sink = TakeSink::all();
        for x in 0..5 {
            assert_eq!(Sink::<Vec<u64>>::push(&mut sink, x), ControlFlow::Continue(()));
        }
        assert_eq!(Sink::<Vec<u64>>::finish(sink), vec![0, 1, 2, 3, 4]);
    }
}
