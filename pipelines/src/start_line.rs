//! A start line: threads that must exist before a measurement starts check in and wait there, and the measuring
//! thread waits until they have all arrived, starts its clock, then opens the line. Thread creation is thereby
//! kept out of what is measured after the line opens.
//!
//! ```
//! use std::sync::Arc;
//! use pipelines::start_line::StartLine;
//!
//! let line = Arc::new(StartLine::default());
//! std::thread::scope(|scope| {
//!     let held = Arc::clone(&line);
//!     let worker = scope.spawn(move || {
//!         held.arrive();
//!         held.wait_open();
//!         21 * 2
//!     });
//!     line.wait_arrived(1);
//!     // ... start the clock here ...
//!     line.open();
//!     assert_eq!(worker.join().ok(), Some(42));
//! });
//! ```

use std::sync::{Arc, Condvar, Mutex, PoisonError};

/// How many threads have arrived at the line, and whether it is open.
#[derive(Debug, Default)]
pub struct StartLine {
    state: Mutex<(usize, bool)>,
    changed: Condvar,
}

impl StartLine {
    /// One more thread is running and at the line.
    pub fn arrive(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.0 += 1;
        self.changed.notify_all();
    }

    /// Block until the line is open.
    pub fn wait_open(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        while !state.1 {
            state = self.changed.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Block until `threads` threads have arrived.
    pub fn wait_arrived(&self, threads: usize) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        while state.0 < threads {
            state = self.changed.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Open the line: every thread waiting at it goes, and any that arrives later does not wait.
    pub fn open(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.1 = true;
        self.changed.notify_all();
    }
}

/// Opens its start line when dropped, so a line abandoned on an error path (a thread failed to spawn, a run
/// returned early) never leaves a thread waiting at it forever.
#[derive(Debug)]
pub struct Opener(Arc<StartLine>);

impl Opener {
    /// Own the opening of `line`.
    pub fn new(line: Arc<StartLine>) -> Opener {
        Opener(line)
    }

    /// The line it opens.
    pub fn line(&self) -> &Arc<StartLine> {
        &self.0
    }
}

impl Drop for Opener {
    fn drop(&mut self) {
        self.0.open();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_opener_releases_a_waiting_thread() {
        let opener = Opener::new(Arc::new(StartLine::default()));
        let line = Arc::clone(opener.line());
        std::thread::scope(|scope| {
            let waiter = scope.spawn(move || {
                line.arrive();
                line.wait_open();
            });
            opener.line().wait_arrived(1);
            drop(opener);
            assert!(waiter.join().is_ok());
        });
    }
}
