//! The CPUs the lab may use and pinning to them (`sched_getaffinity`, `sched_setaffinity`): below the options that
//! parse `--cores`, the executor that pins each trial process and the testbed that records the cpuset.

use std::thread;

/// The CPU set of `cpus`, built in the parent (the child only passes it to the kernel).
pub(crate) fn cpu_set(cpus: &[usize]) -> libc::cpu_set_t {
    // SAFETY: cpu_set_t is a plain bit array; all zeroes is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &cpu in cpus {
        // SAFETY: CPU_SET writes one bit of `set`, and ignores a CPU beyond its size.
        unsafe { libc::CPU_SET(cpu, &mut set) };
    }
    set
}

/// Pin the calling thread (a trial process's only one before it executes) to `set`. Async-signal-safe: one system
/// call, no allocation.
pub(crate) fn pin(set: &libc::cpu_set_t) -> std::io::Result<()> {
    // SAFETY: sched_setaffinity(2) on this process (pid 0) reads `size_of::<cpu_set_t>()` bytes of `set`.
    if unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The CPUs this process may run on, in order (its `sched_getaffinity` mask); empty if it cannot be read.
pub(crate) fn allowed_cpus() -> Vec<usize> {
    // SAFETY: as in `cpu_set`.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: sched_getaffinity(2) writes at most `size_of::<cpu_set_t>()` bytes into `set`.
    if unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) } != 0 {
        return Vec::new();
    }
    // SAFETY: CPU_ISSET reads one bit of `set`.
    (0..libc::CPU_SETSIZE as usize).filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) }).collect()
}

/// What `available_parallelism` gives a thread pinned to `cpus`: what a trial process pinned to them sees, and so
/// what runtimes sized by it get there (a cgroup's CPU quota below the count lowers it). Measured on a thread of
/// its own, pinned alone; `None` if it cannot be pinned or read.
pub(crate) fn parallelism_on(cpus: &[usize]) -> Option<usize> {
    let set = cpu_set(cpus);
    thread::spawn(move || {
        pin(&set).ok()?;
        std::thread::available_parallelism().ok().map(usize::from)
    })
    .join()
    .ok()
    .flatten()
}
