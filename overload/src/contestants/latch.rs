//! A start latch: pool threads park on it until the run begins, or leave if it is aborted.

use std::sync::{Condvar, Mutex, PoisonError};

/// Open or aborted, once; waiters learn which.
#[derive(Debug, Default)]
pub(crate) struct Latch {
    state: Mutex<Option<bool>>,
    changed: Condvar,
}

impl Latch {
    /// Wait until the latch is opened (`true`) or aborted (`false`).
    pub(crate) fn wait(&self) -> bool {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(open) = *state {
                return open;
            }
            state = self.changed.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Let every waiter go: `true` to run, `false` to leave without running.
    pub(crate) fn release(&self, open: bool) {
        *self.state.lock().unwrap_or_else(PoisonError::into_inner) = Some(open);
        self.changed.notify_all();
    }
}
