//! Process memory from `/proc/self/status`: peak resident set (`VmHWM`, which unlike `ru_maxrss` does not
//! inherit the parent's high-water mark across fork+exec) and the thread count.
//!
//! # The `ru_maxrss` trap
//!
//! `getrusage(RUSAGE_SELF).ru_maxrss` is kept in the `signal_struct`, which `fork` copies from the parent; when
//! the child then `exec`s, the kernel folds the old (parent-copied) mm's high-water mark into it. So a small
//! trial process forked from a large lab process reports the *lab's* peak as its own. `VmHWM` in
//! `/proc/<pid>/status` is the high-water mark of the process's current address space (`mm_struct`), which
//! `exec` creates fresh, so it is the trial's own peak. Every peak here comes from `VmHWM`.
//!
//! `VmHWM` is approximate to a few hundred KiB on current kernels (RSS is kept in per-CPU counters that are
//! read without summing exactly), and it can read slightly lower after memory is unmapped; it keeps peaks of
//! memory that was freed before it was read.

use std::fs::File;

/// Kibibytes in one mebibyte.
const KIB_PER_MIB: f64 = 1024.0;

/// The number on the `key:` line of a `/proc/<pid>/status` text, such as `1234` from `VmHWM:   1234 kB`
/// (kibibytes for memory fields; a plain count for fields like `Threads`). `key` may be given with or without
/// its trailing colon. `None` when the line is missing or its value is not a number.
pub fn parse_status_kib(text: &str, key: &str) -> Option<u64> {
    let key = key.strip_suffix(':').unwrap_or(key);
    text.lines().find_map(|line| {
        let rest = line.strip_prefix(key)?.strip_prefix(':')?;
        rest.split_whitespace().next()?.parse().ok()
    })
}

/// Peak resident set size of process `pid` in MiB, from `VmHWM` in `/proc/<pid>/status`; `None` off Linux, when
/// the process does not exist (any more), or when it is a zombie whose address space is gone.
pub fn peak_rss_mib_of(pid: u32) -> Option<f64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    parse_status_kib(&text, "VmHWM").map(|kib| kib as f64 / KIB_PER_MIB)
}

/// Peak resident set size of this process in MiB, from `VmHWM`; `None` off Linux.
pub fn peak_rss_mib() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    parse_status_kib(&text, "VmHWM").map(|kib| kib as f64 / KIB_PER_MIB)
}

/// Reset this process's peak resident set (`VmHWM`) to its resident set now, so a later [`peak_rss_mib`]
/// describes only what came after (on Linux, by writing `5` to `/proc/self/clear_refs`). Returns whether the
/// kernel took it; off Linux, or where `/proc` is read-only, it does nothing and returns false.
pub fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", b"5").is_ok()
}

/// The peak resident set of the measured iterations, held by [`hold_measured_peak`] when the harness's loop ends,
/// in MiB as f64 bits; 0 while nothing is held.
static MEASURED_PEAK_BITS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Hold this process's peak resident set now ([`peak_rss_mib`]) as that of its measured iterations, so that what
/// the process runs after them (the conformance checks of its first process) does not count in
/// [`measured_peak_rss_mib`].
pub fn hold_measured_peak() {
    if let Some(peak) = peak_rss_mib() {
        MEASURED_PEAK_BITS.store(peak.to_bits(), std::sync::atomic::Ordering::Relaxed);
    }
}

/// The peak resident set in MiB that [`hold_measured_peak`] held, or, when nothing was held, the peak now.
pub fn measured_peak_rss_mib() -> Option<f64> {
    match MEASURED_PEAK_BITS.load(std::sync::atomic::Ordering::Relaxed) {
        0 => peak_rss_mib(),
        bits => Some(f64::from_bits(bits)),
    }
}

/// Resident set size of this process now in KiB, from `VmRSS`; `None` off Linux.
pub fn rss_kib() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    parse_status_kib(&text, "VmRSS")
}

/// Threads this process has now, from `Threads:`; `None` off Linux.
pub fn thread_count() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    parse_status_kib(&text, "Threads")
}

/// This process's thread count once threads that are exiting have gone: read every 5 ms until it is at most
/// `target` or `within` has passed, then the last count read (`None` off Linux). Checks use it to tell a
/// thread left behind from one still ending.
pub fn settled_thread_count(target: Option<u64>, within: std::time::Duration) -> Option<u64> {
    let give_up = std::time::Instant::now() + within;
    loop {
        let now = thread_count();
        if now <= target || std::time::Instant::now() >= give_up {
            return now;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// Reads this process's thread count again and again without reopening `/proc/self/status` or allocating:
/// the file stays open and each read starts over at offset 0 (procfs regenerates the text on every read
/// from the start), into a buffer allocated once. Falls back to reopening if a positioned read fails.
#[derive(Debug)]
pub struct ThreadCountReader {
    file: Option<File>,
    buf: Vec<u8>,
}

/// Room for the whole of `/proc/self/status` (about 1.5 KiB on current kernels).
const STATUS_BUF_BYTES: usize = 8 * 1024;

impl ThreadCountReader {
    /// Opens `/proc/self/status` (`read` then answers `None` off Linux).
    pub fn open() -> Self {
        ThreadCountReader { file: File::open("/proc/self/status").ok(), buf: vec![0; STATUS_BUF_BYTES] }
    }

    /// Threads this process has now; `None` off Linux.
    pub fn read(&mut self) -> Option<u64> {
        if let Some(count) = self.read_open_file() {
            return Some(count);
        }
        // The positioned read did not work: reopen once and try again.
        self.file = File::open("/proc/self/status").ok();
        self.read_open_file()
    }

    /// Resident set size of this process now in KiB (`VmRSS`), read the same way; `None` off Linux.
    pub fn read_rss_kib(&mut self) -> Option<u64> {
        if let Some(kib) = self.read_field("VmRSS") {
            return Some(kib);
        }
        self.file = File::open("/proc/self/status").ok();
        self.read_field("VmRSS")
    }

    fn read_open_file(&mut self) -> Option<u64> {
        self.read_field("Threads")
    }

    fn read_field(&mut self, key: &str) -> Option<u64> {
        let file = self.file.as_mut()?;
        let len = read_from_start(file, &mut self.buf)?;
        let text = std::str::from_utf8(&self.buf[..len]).ok()?;
        parse_status_kib(text, key)
    }
}

/// Reads `file` from offset 0 into `buf` until end of file or `buf` is full; the bytes read.
#[cfg(unix)]
fn read_from_start(file: &mut File, buf: &mut [u8]) -> Option<usize> {
    use std::os::unix::fs::FileExt;
    let mut len = 0;
    while len < buf.len() {
        match file.read_at(&mut buf[len..], len as u64) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        }
    }
    (len > 0).then_some(len)
}

/// Reads `file` from offset 0 into `buf` until end of file or `buf` is full; the bytes read.
#[cfg(not(unix))]
fn read_from_start(file: &mut File, buf: &mut [u8]) -> Option<usize> {
    use std::io::{Read, Seek, SeekFrom};
    file.seek(SeekFrom::Start(0)).ok()?;
    let mut len = 0;
    while len < buf.len() {
        match file.read(&mut buf[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(_) => return None,
        }
    }
    (len > 0).then_some(len)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const SAMPLE: &str = "Name:\tlab\nUmask:\t0022\nState:\tR (running)\nVmPeak:\t  123456 kB\nVmHWM:\t    2048 kB\n\
                          VmRSS:\t    1024 kB\nThreads:\t7\nSigQ:\t0/63416\n";

    #[test]
    fn parses_memory_and_count_fields() {
        assert_eq!(parse_status_kib(SAMPLE, "VmHWM"), Some(2048));
        assert_eq!(parse_status_kib(SAMPLE, "VmHWM:"), Some(2048));
        assert_eq!(parse_status_kib(SAMPLE, "VmPeak"), Some(123456));
        assert_eq!(parse_status_kib(SAMPLE, "Threads"), Some(7));
    }

    #[test]
    fn the_resident_set_is_read_on_linux() {
        if cfg!(target_os = "linux") {
            let once = rss_kib().unwrap();
            let reread = ThreadCountReader::open().read_rss_kib().unwrap();
            assert!(once > 0 && reread > 0, "rss {once} KiB, re-read {reread} KiB");
        }
    }

    #[test]
    fn missing_or_non_numeric_fields_are_none() {
        assert_eq!(parse_status_kib(SAMPLE, "VmSwap"), None);
        assert_eq!(parse_status_kib(SAMPLE, "Name"), None);
        assert_eq!(parse_status_kib(SAMPLE, "State"), None);
        assert_eq!(parse_status_kib("", "Threads"), None);
    }

    #[test]
    fn key_must_match_whole_name() {
        // `Vm` is a prefix of several keys but not a key itself.
        assert_eq!(parse_status_kib(SAMPLE, "Vm"), None);
        assert_eq!(parse_status_kib(SAMPLE, "VmHW"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn reads_own_status() {
        let peak = peak_rss_mib().unwrap();
        assert!(peak > 0.0 && peak < 64.0 * 1024.0, "peak {peak} MiB");
        let threads = thread_count().unwrap();
        assert!(threads >= 1);
        let of_self = peak_rss_mib_of(std::process::id()).unwrap();
        assert!(of_self >= peak);
    }

    // In a process of its own, so the count is this test's alone and can be checked exactly.
    #[cfg(target_os = "linux")]
    testkit::own_process! {
        #[test]
        fn reader_sees_thread_count_change_without_reopening() {
            let mut reader = ThreadCountReader::open();
            let before = reader.read().unwrap();
            let (tx, rx) = std::sync::mpsc::channel::<()>();
            let (ready_tx, ready_rx) = std::sync::mpsc::channel::<()>();
            let handle = std::thread::spawn(move || {
                ready_tx.send(()).unwrap();
                rx.recv().ok();
            });
            ready_rx.recv().unwrap();
            assert_eq!(reader.read().unwrap(), before + 1, "one thread started");
            tx.send(()).unwrap();
            handle.join().unwrap();
            assert_eq!(settled_thread_count(Some(before), std::time::Duration::from_secs(5)), Some(before), "it ended");
        }
    }
}
