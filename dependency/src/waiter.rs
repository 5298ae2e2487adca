//! Who waits on something and how to wake it, in any family: a parked thread, a parked `may` coroutine or a
//! task's waker. The dependency's [`Completion`](crate::Completion) and the overload scenario's gate park and wake
//! their callers with it, so a coroutine parks itself (not its carrier thread) the same way in both. Marked
//! `#[inline]`, as they were when each crate held its own copy: they sit on the measured paths of the callers.

use std::fmt;
use std::task::Waker;
use std::thread::{self, Thread};
use std::time::Duration;

/// One caller to wake: a thread, a `may` coroutine or an async task.
pub enum Waiter {
    /// A thread parked in a blocking wait.
    Thread(Thread),
    /// A `may` coroutine parked in a blocking wait (its carrier runs other coroutines meanwhile).
    Coroutine(may::coroutine::Coroutine),
    /// A task whose future returned `Pending`.
    Task(Waker),
}

impl fmt::Debug for Waiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Waiter::Thread(thread) => f.debug_tuple("Thread").field(thread).finish(),
            Waiter::Coroutine(co) => f.debug_tuple("Coroutine").field(&co.name()).finish(),
            Waiter::Task(waker) => f.debug_tuple("Task").field(waker).finish(),
        }
    }
}

impl Waiter {
    /// The caller of a blocking wait: its coroutine inside a `may` coroutine, else its thread.
    #[inline]
    pub fn current() -> Waiter {
        if may::coroutine::is_coroutine() {
            Waiter::Coroutine(may::coroutine::current())
        } else {
            Waiter::Thread(thread::current())
        }
    }

    /// Wakes it: unparks the thread or the coroutine, or wakes the task.
    #[inline]
    pub fn wake(self) {
        match self {
            Waiter::Thread(thread) => thread.unpark(),
            Waiter::Coroutine(co) => co.unpark(),
            Waiter::Task(waker) => waker.wake(),
        }
    }
}

/// Parks the caller of a blocking wait until unparked or `timeout` passes: the coroutine (not its carrier) inside
/// a `may` coroutine, else the thread. Either may return spuriously.
#[inline]
pub fn park(timeout: Option<Duration>) {
    match (may::coroutine::is_coroutine(), timeout) {
        (true, None) => may::coroutine::park(),
        (true, Some(left)) => may::coroutine::park_timeout(whole_millis_up(left)),
        (false, None) => thread::park(),
        (false, Some(left)) => thread::park_timeout(left),
    }
}

/// `left` rounded up to whole milliseconds, at least one. `may` 0.3 keeps a park timeout in whole milliseconds,
/// truncated, and takes 0 as *no timeout*: a coroutine parked for 0.8 ms would never wake, and one parked for
/// 4.9 ms wakes at 4 ms. Rounding up makes a coroutine's timed wait end at or after its deadline, never never.
fn whole_millis_up(left: Duration) -> Duration {
    let millis = left.as_nanos().div_ceil(1_000_000).max(1);
    Duration::from_millis(u64::try_from(millis).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_coroutine_park_timeout_is_rounded_up_to_whole_milliseconds() {
        assert_eq!(whole_millis_up(Duration::from_micros(779)), Duration::from_millis(1));
        assert_eq!(whole_millis_up(Duration::ZERO), Duration::from_millis(1));
        assert_eq!(whole_millis_up(Duration::from_micros(4_993)), Duration::from_millis(5));
        assert_eq!(whole_millis_up(Duration::from_millis(7)), Duration::from_millis(7));
    }
}
