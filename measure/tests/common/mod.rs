//! What several of measure's integration tests share: threads that exist, doing nothing, for checks that count
//! the process's threads.
#![allow(clippy::unwrap_used)]

use std::sync::{Arc, Barrier};
use std::thread::JoinHandle;

/// Threads parked on a barrier until [`Parked::release`].
pub(crate) struct Parked {
    /// The barrier they wait on, with one place for the releasing thread.
    barrier: Arc<Barrier>,
    /// The threads.
    handles: Vec<JoinHandle<()>>,
}

impl Parked {
    /// Starts `count` threads, each waiting for [`Parked::release`].
    pub(crate) fn start(count: usize) -> Parked {
        let barrier = Arc::new(Barrier::new(count + 1));
        let handles = (0..count)
            .map(|_| {
                let barrier = Arc::clone(&barrier);
                std::thread::spawn(move || {
                    barrier.wait();
                })
            })
            .collect();
        Parked { barrier, handles }
    }

    /// Lets every thread end, and joins them all.
    pub(crate) fn release(self) {
        self.barrier.wait();
        for h in self.handles {
            h.join().unwrap();
        }
    }
}
