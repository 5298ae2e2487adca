//! Process memory from `/proc/self/status`: peak resident set (`VmHWM`, which unlike `ru_maxrss` does not
//! inherit the parent's high-water mark across fork+exec) and the thread count.

/// Peak resident set size of this process in MiB, from `VmHWM`; `None` off Linux.
pub fn peak_rss_mib() -> Option<f64> {
    unimplemented!()
}

/// Threads this process has now, from `Threads:`; `None` off Linux.
pub fn thread_count() -> Option<u64> {
    unimplemented!()
}
