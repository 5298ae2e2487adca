//! What several of measure's integration tests share: threads that exist, doing nothing, for checks that count
//! the process's threads, and a way to wait until the sampler has sampled, rather than sleeping and hoping the
//! machine ran it meanwhile.
#![allow(clippy::unwrap_used, dead_code)]

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::{Arc, Barrier};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

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

/// The process's one `lab-sampler` thread, watched from outside through its `/proc` status: how many times it
/// has blocked of its own accord (`voluntary_ctxt_switches`).
///
/// The sampler's loop is: wake, sample the gauge (then, every few ticks, read the thread count), park until the
/// next tick. Each pass blocks at most twice (a `/proc` read that has to wait, and the park), both after its
/// sample; so once the count has grown by three since a moment, a whole pass has begun after that moment and
/// taken its sample. No sampler code is touched: a measured run's sampler carries nothing for this.
pub(crate) struct SamplerThread {
    status: File,
}

impl SamplerThread {
    /// The process's running sampler thread (a test runs one at a time). A sampler stopped just before can
    /// still be listed for a moment after its join (the kernel clears the thread id a little before the thread
    /// leaves), so this waits (bounded) until only one is.
    pub(crate) fn find() -> SamplerThread {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let mut samplers = Vec::new();
            for entry in std::fs::read_dir("/proc/self/task").unwrap() {
                let dir = entry.unwrap().path();
                if std::fs::read_to_string(dir.join("comm")).is_ok_and(|name| name.trim() == "lab-sampler") {
                    samplers.push(dir);
                }
            }
            if let [only] = &samplers[..] {
                return SamplerThread { status: File::open(only.join("status")).unwrap() };
            }
            assert!(Instant::now() < deadline, "not one sampler thread in this process: {samplers:?}");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Times the sampler has blocked so far. Reads into a buffer on the stack: no heap allocation, so a test
    /// may call it while counting the heap.
    pub(crate) fn blocked(&self) -> u64 {
        let mut buf = [0u8; 8192];
        let n = self.status.read_at(&mut buf, 0).unwrap();
        let text = std::str::from_utf8(&buf[..n]).unwrap();
        let line = text.lines().find_map(|line| line.strip_prefix("voluntary_ctxt_switches:")).unwrap();
        line.trim().parse().unwrap()
    }

    /// Waits (sleeping, bounded) until the sampler has blocked `more` times since `since`.
    pub(crate) fn blocked_since(&self, since: u64, more: u64) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.blocked() < since + more {
            assert!(Instant::now() < deadline, "the sampler did not block {more} times within 20 s");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Waits until the sampler has taken a sample after this call began: whatever the gauge reads now, the
    /// series and the maxima have seen it.
    pub(crate) fn sampled(&self) {
        self.blocked_since(self.blocked(), 3);
    }
}
