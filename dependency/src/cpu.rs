//! The CPU time of the dependency's own timer threads, so the lab can report it and subtract it from a
//! contestant's process CPU. Linux only (elsewhere it reads zero).
//!
//! Each timer thread registers its CPU clock (`pthread_getcpuclockid`) and kernel thread id when it starts, and
//! replaces the clock with its final reading (`CLOCK_THREAD_CPUTIME_ID`) as it exits. Readers hold the same
//! lock while reading the clock, so a thread's clock is never read after the thread is gone.

use std::sync::Mutex;
use std::time::Duration;

use crate::lock;

/// The CPU clock of one timer thread.
#[derive(Debug, Default)]
pub(crate) struct ThreadCpu {
    state: Mutex<CpuState>,
}

#[derive(Debug, Default, Clone, Copy)]
enum CpuState {
    /// The thread has not registered yet.
    #[default]
    NotStarted,
    /// The thread is running: its CPU clock and its kernel thread id.
    Running { clock: Clock, tid: u32 },
    /// The thread has exited, having used this much CPU.
    Exited(Duration),
}

#[cfg(target_os = "linux")]
type Clock = libc::clockid_t;
#[cfg(not(target_os = "linux"))]
type Clock = ();

impl ThreadCpu {
    /// Registers the calling thread; its clock is read until the returned guard drops (as the thread exits).
    pub(crate) fn track_current(&self) -> Tracking<'_> {
        if let Some((clock, tid)) = current_clock() {
            *lock(&self.state) = CpuState::Running { clock, tid };
        }
        Tracking { cpu: self }
    }

    /// CPU time the thread has used so far (zero if it has not started or the clock cannot be read).
    pub(crate) fn read(&self) -> Duration {
        match *lock(&self.state) {
            CpuState::NotStarted => Duration::ZERO,
            CpuState::Running { clock, .. } => read_clock(clock),
            CpuState::Exited(total) => total,
        }
    }

    /// The thread's kernel id while it runs.
    pub(crate) fn tid(&self) -> Option<u32> {
        match *lock(&self.state) {
            CpuState::Running { tid, .. } => Some(tid),
            _ => None,
        }
    }
}

/// Keeps a timer thread's clock readable; on drop (the thread is exiting) stores its final CPU time.
#[derive(Debug)]
pub(crate) struct Tracking<'a> {
    cpu: &'a ThreadCpu,
}

impl Drop for Tracking<'_> {
    fn drop(&mut self) {
        *lock(&self.cpu.state) = CpuState::Exited(own_cpu());
    }
}

#[cfg(target_os = "linux")]
fn current_clock() -> Option<(Clock, u32)> {
    let mut clock: libc::clockid_t = 0;
    // SAFETY: pthread_self() is the calling, live thread; `clock` is a valid out-pointer.
    let rc = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut clock) };
    // SAFETY: gettid has no preconditions.
    let tid = u32::try_from(unsafe { libc::gettid() }).ok()?;
    (rc == 0).then_some((clock, tid))
}

#[cfg(not(target_os = "linux"))]
fn current_clock() -> Option<(Clock, u32)> {
    None
}

#[cfg(target_os = "linux")]
fn read_clock(clock: Clock) -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid out-pointer; the clock belongs to a thread that is still running (the caller holds
    // the lock its exit takes).
    if unsafe { libc::clock_gettime(clock, &mut ts) } != 0 {
        return Duration::ZERO;
    }
    Duration::new(u64::try_from(ts.tv_sec).unwrap_or(0), u32::try_from(ts.tv_nsec).unwrap_or(0))
}

#[cfg(not(target_os = "linux"))]
fn read_clock(_clock: Clock) -> Duration {
    Duration::ZERO
}

/// The calling thread's CPU time.
#[cfg(target_os = "linux")]
fn own_cpu() -> Duration {
    read_clock(libc::CLOCK_THREAD_CPUTIME_ID)
}

#[cfg(not(target_os = "linux"))]
fn own_cpu() -> Duration {
    Duration::ZERO
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_busy_thread_is_read_while_running_and_after_exit() {
        let cpu = std::sync::Arc::new(ThreadCpu::default());
        assert_eq!(cpu.read(), Duration::ZERO);
        let (started_tx, started_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = std::sync::mpsc::channel::<()>();
        let worker = {
            let cpu = std::sync::Arc::clone(&cpu);
            std::thread::spawn(move || {
                let _tracking = cpu.track_current();
                // Spin until this thread has used 20 ms of CPU, however long that takes on a busy machine.
                while own_cpu() < Duration::from_millis(20) {
                    std::hint::spin_loop();
                }
                let _ = started_tx.send(());
                let _ = stop_rx.recv();
            })
        };
        let _ = started_rx.recv();
        assert!(cpu.tid().is_some());
        let running = cpu.read();
        assert!(running >= Duration::from_millis(20), "read {running:?} while running");
        let _ = stop_tx.send(());
        assert!(worker.join().is_ok());
        assert!(cpu.tid().is_none());
        assert!(cpu.read() >= running);
    }
}
