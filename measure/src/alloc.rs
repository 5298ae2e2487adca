//! A counting global allocator: the lab binary installs it with `#[global_allocator]`, and the probe reads
//! allocations, bytes and live heap from it. Each call costs a few relaxed atomics.

use std::alloc::{GlobalAlloc, Layout, System};

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

/// The counters now.
pub fn snapshot() -> AllocSnapshot {
    unimplemented!()
}

/// Whether [`CountingAlloc`] is the global allocator of this process (it has counted at least one call).
pub fn is_counting() -> bool {
    unimplemented!()
}

unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}
