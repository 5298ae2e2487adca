//! A count of live stage threads and tasks, so a test can tell that a pipeline left nothing running.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// How many stage threads or tasks of the pipelines sharing this counter are alive.
///
/// Each stage holds a [`StageGuard`] from before it is spawned until its body has returned or unwound, so after
/// a pipeline's `run` returns, [`LiveStages::current`] is 0 exactly when every stage has ended.
#[derive(Debug, Default)]
pub struct LiveStages {
    live: AtomicUsize,
}

/// Holds one count in [`LiveStages`] while it lives.
#[derive(Debug)]
#[must_use = "the stage counts as alive only while the guard lives"]
pub struct StageGuard {
    counter: Arc<LiveStages>,
}

impl LiveStages {
    /// A counter at zero.
    pub fn new() -> Self {
        Self::default()
    }

    /// Count one more live stage until the returned guard is dropped.
    pub fn enter(self: &Arc<Self>) -> StageGuard {
        self.live.fetch_add(1, Ordering::AcqRel);
        StageGuard { counter: Arc::clone(self) }
    }

    /// Stages alive now.
    pub fn current(&self) -> usize {
        self.live.load(Ordering::Acquire)
    }
}

impl Drop for StageGuard {
    fn drop(&mut self) {
        self.counter.live.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guard_counts_while_it_lives() {
        let live = Arc::new(LiveStages::new());
        let a = live.enter();
        let b = live.enter();
        assert_eq!(live.current(), 2);
        drop(a);
        assert_eq!(live.current(), 1);
        drop(b);
        assert_eq!(live.current(), 0);
    }
}
