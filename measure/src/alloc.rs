//! A counting global allocator: the lab binary installs it with `#[global_allocator]`, and the accounting probe
//! reads allocations, bytes and live heap from it.
//!
//! Counting can be switched off ([`pause`]): the timed probe does so for its window, so a timed iteration's
//! allocations cost the system allocator's price plus one relaxed load of a flag that nobody writes during the
//! window (a cache line every core keeps shared), and never an update of the counters. A block allocated while
//! counting is off and freed while it is on (or the reverse) makes the live-heap level drift; the level is only
//! ever compared with itself inside one accounting window, where such blocks are few (the timed runs free what
//! they allocate before their window closes).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};

/// Wraps the system allocator and counts allocations, allocated bytes and live bytes.
#[derive(Debug)]
pub struct CountingAlloc;

/// Counters at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AllocSnapshot {
    /// Allocations (including reallocations) so far.
    pub allocs: u64,
    /// Bytes allocated so far.
    pub bytes: u64,
    /// Bytes allocated and not yet freed.
    pub live_bytes: u64,
}

/// Allocations (including reallocations) so far.
static ALLOCS: AtomicU64 = AtomicU64::new(0);
/// Bytes allocated so far (a reallocation counts its new size).
static BYTES: AtomicU64 = AtomicU64::new(0);
/// Bytes allocated and not yet freed (signed: see the module doc on drift).
static LIVE_BYTES: AtomicI64 = AtomicI64::new(0);
/// Set by the first call into [`CountingAlloc`].
static COUNTING: AtomicBool = AtomicBool::new(false);
/// Cleared while counting is paused ([`pause`]).
static ENABLED: AtomicBool = AtomicBool::new(true);

/// The counters now. All zeros where [`CountingAlloc`] is not the global allocator. The three counters are read
/// one after the other with relaxed loads, so under concurrent allocation they are each exact but not one
/// atomic snapshot. A live level that drifted below zero reads as 0.
pub fn snapshot() -> AllocSnapshot {
    AllocSnapshot {
        allocs: ALLOCS.load(Ordering::Relaxed),
        bytes: BYTES.load(Ordering::Relaxed),
        live_bytes: u64::try_from(LIVE_BYTES.load(Ordering::Relaxed)).unwrap_or(0),
    }
}

/// Stop counting until the returned guard is dropped: the timed probe holds one for its window. Guards do not
/// nest (dropping any of them resumes counting); the lab holds at most one at a time.
#[must_use = "counting resumes when the guard is dropped"]
pub fn pause() -> Paused {
    ENABLED.store(false, Ordering::Relaxed);
    Paused(())
}

/// Counting is off while this lives ([`pause`]).
#[derive(Debug)]
pub struct Paused(());

impl Drop for Paused {
    fn drop(&mut self) {
        ENABLED.store(true, Ordering::Relaxed);
    }
}

/// Whether counting is on now (not [`pause`]d).
#[inline]
pub fn counting_now() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

impl AllocSnapshot {
    /// `self - earlier` for the cumulative counters (`allocs`, `bytes`), saturating at zero; `live_bytes` is
    /// `self`'s (it is a level, not a count).
    pub fn since(&self, earlier: &AllocSnapshot) -> AllocSnapshot {
        AllocSnapshot {
            allocs: self.allocs.saturating_sub(earlier.allocs),
            bytes: self.bytes.saturating_sub(earlier.bytes),
            live_bytes: self.live_bytes,
        }
    }
}

/// Whether [`CountingAlloc`] is the global allocator of this process (it has counted at least one call).
///
/// Strictly, whether any call reached a `CountingAlloc`: a test that calls one directly, without installing
/// it, turns this on too.
pub fn is_counting() -> bool {
    COUNTING.load(Ordering::Relaxed)
}

/// Marks counting as active; the load keeps the common path to a read of a cache line that stays shared.
#[inline]
fn mark_counting() {
    if !COUNTING.load(Ordering::Relaxed) {
        COUNTING.store(true, Ordering::Relaxed);
    }
}

/// Counts one successful allocation of `size` bytes.
#[inline]
fn count_alloc(size: usize) {
    if !counting_now() {
        return;
    }
    mark_counting();
    let size = size as u64;
    ALLOCS.fetch_add(1, Ordering::Relaxed);
    BYTES.fetch_add(size, Ordering::Relaxed);
    LIVE_BYTES.fetch_add(size as i64, Ordering::Relaxed);
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged and only adds counting,
// which never allocates.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which we pass on unchanged.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            count_alloc(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            count_alloc(layout.size());
        }
        ptr
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract, which we pass on unchanged.
        let new_ptr = unsafe { System.realloc(ptr, layout, new_size) };
        if !new_ptr.is_null() && counting_now() {
            mark_counting();
            ALLOCS.fetch_add(1, Ordering::Relaxed);
            BYTES.fetch_add(new_size as u64, Ordering::Relaxed);
            LIVE_BYTES.fetch_add(new_size as i64 - layout.size() as i64, Ordering::Relaxed);
        }
        new_ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller upholds `GlobalAlloc::dealloc`'s contract, which we pass on unchanged.
        unsafe { System.dealloc(ptr, layout) };
        if counting_now() {
            mark_counting();
            LIVE_BYTES.fetch_sub(layout.size() as i64, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_subtracts_counts_and_keeps_level() {
        let earlier = AllocSnapshot { allocs: 10, bytes: 1000, live_bytes: 500 };
        let later = AllocSnapshot { allocs: 15, bytes: 1800, live_bytes: 300 };
        assert_eq!(later.since(&earlier), AllocSnapshot { allocs: 5, bytes: 800, live_bytes: 300 });
        assert_eq!(earlier.since(&later), AllocSnapshot { allocs: 0, bytes: 0, live_bytes: 500 });
    }

    #[test]
    fn direct_calls_count() {
        // The unit-test binary does not install the allocator; calling it directly still counts.
        let a = CountingAlloc;
        let layout = Layout::from_size_align(4096, 8).expect("valid layout");
        let before = snapshot();
        // SAFETY: non-zero-size layout; the pointer is freed with the same layout (after realloc, the new size).
        unsafe {
            let p = a.alloc(layout);
            assert!(!p.is_null());
            let q = a.realloc(p, layout, 8192);
            assert!(!q.is_null());
            a.dealloc(q, Layout::from_size_align(8192, 8).expect("valid layout"));
            let z = a.alloc_zeroed(layout);
            assert!(!z.is_null());
            assert_eq!(*z, 0);
            a.dealloc(z, layout);
        }
        let after = snapshot();
        assert!(is_counting());
        // Other tests may call the allocator directly at the same time, so these are lower bounds.
        assert!(after.allocs - before.allocs >= 3);
        assert!(after.bytes - before.bytes >= 4096 + 8192 + 4096);
    }
}
