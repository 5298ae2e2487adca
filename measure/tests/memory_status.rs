//! Tests reading this process's peak RSS and thread count from `/proc`, including the reusable reader's
//! re-reads from offset 0. One test only, so no other test thread changes the count meanwhile.
#![allow(clippy::unwrap_used)]

mod common;

use measure::memory::{peak_rss_mib, peak_rss_mib_of, settled_thread_count, thread_count, ThreadCountReader};

#[test]
fn peak_rss_and_thread_counts() {
    let before = peak_rss_mib().unwrap();
    // Touch 64 MiB so the high-water mark must rise by about that much.
    let mut block = vec![0u8; 64 << 20];
    for i in (0..block.len()).step_by(4096) {
        block[i] = 1;
    }
    std::hint::black_box(&block);
    let after = peak_rss_mib().unwrap();
    assert!(after >= before.max(60.0), "peak {before} → {after} MiB");
    drop(block);
    // The kernel keeps RSS in per-CPU counters and reads them approximately (within a few hundred KiB), so the
    // mark can read a little lower after the block is unmapped, but it keeps the 64 MiB peak.
    let later = peak_rss_mib().unwrap();
    assert!(later >= after - 2.0 && later >= before.max(60.0), "peak fell from {after} to {later} MiB");
    assert!(peak_rss_mib_of(std::process::id()).unwrap() >= after - 2.0);
    assert_eq!(peak_rss_mib_of(u32::MAX), None);

    let mut reader = ThreadCountReader::open();
    let base = reader.read().unwrap();
    assert_eq!(thread_count().unwrap(), base);
    let parked = common::Parked::start(5);
    // The same open file, read again from offset 0, shows the five new threads.
    assert_eq!(reader.read().unwrap(), base + 5);
    assert_eq!(thread_count().unwrap(), base + 5);
    parked.release();
    // A joined thread can still be counted for a moment: join returns when the kernel clears its tid, a
    // little before the thread leaves the group. So wait (at most 5 s) for the count to settle first.
    let settled = settled_thread_count(Some(base), std::time::Duration::from_secs(5));
    assert_eq!(settled, Some(base), "the five threads ended");
    assert_eq!(reader.read().unwrap(), base);
}
