//! The one completion type every family uses: a blocking caller [`Completion::wait`]s on it (the thread
//! parks), an async caller `.await`s it (the task stores its [`Waker`](std::task::Waker)), and the dependency's
//! timer thread [`Completer::complete`]s it, waking whichever is registered — the same cost for either family.
//!
//! **Coroutine-aware.** Called inside a `may` coroutine, [`Completion::wait`] and [`Completion::wait_until`]
//! park the *coroutine* (`may::coroutine::park`), not its carrier thread, and the completer wakes it with
//! `Coroutine::unpark`, which hands it back to `may`'s scheduler: a carrier keeps running other coroutines while
//! thousands of them wait. Outside a coroutine they park the thread, as before (one thread-local read more:
//! `may::coroutine::is_coroutine`). This is what `may` asks of blocking-style code: never block a carrier.
//!
//! The shared slot is one small mutex per call, touched only by that call's waiter and its completer; waking
//! (`Thread::unpark` or `Waker::wake`) happens after the slot's lock is released.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use crate::lock;
use crate::waiter::{park, Waiter};

/// Why a call did not return a [`Reply`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
pub enum CallError {
    /// The dependency's queue already held `queue_limit` calls when this one arrived; it was rejected at once.
    #[error("dependency overloaded: its queue is at queue_limit, call rejected")]
    Overloaded,
    /// The dependency shut down before the call completed (or its [`Completer`] was dropped unused).
    #[error("dependency shut down before the call completed")]
    ShutDown,
    /// The call's input is in [`crate::Config::fail_inputs`]: a failure injected by a conformance check.
    #[error("dependency failed this call on purpose (an injected failure)")]
    Injected,
}

/// What a completed call replies with, and when each step happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reply {
    /// [`crate::Dependency::answer`] of the call's input.
    pub value: u64,
    /// When [`crate::Dependency::call`] issued the call.
    pub issued: Instant,
    /// When service began (a slot was free and the call was first in the queue).
    pub started: Instant,
    /// When the timer fired; never earlier than `started` plus the call's service time.
    pub finished: Instant,
}

impl Reply {
    /// Issue to timer firing: what the caller saw, less the wake-up of the caller itself.
    pub fn latency(&self) -> Duration {
        self.finished.saturating_duration_since(self.issued)
    }

    /// Time spent waiting in the dependency's FIFO queue before service began.
    pub fn queued(&self) -> Duration {
        self.started.saturating_duration_since(self.issued)
    }

    /// Time in service: from its start to the timer firing.
    pub fn in_service(&self) -> Duration {
        self.finished.saturating_duration_since(self.started)
    }
}

/// The result of one call, as a blocking wait or an await yields it.
pub type CallResult = Result<Reply, CallError>;

/// The eventual result of one call. `.await` it (it is a `Future` that is `Unpin + Send`) or block on it with
/// [`Completion::wait`]. Dropping it does not cancel the call: the dependency still serves it (a remote would).
#[derive(Debug)]
#[must_use = "a Completion does nothing unless waited on or awaited"]
pub struct Completion {
    inner: Inner,
}

#[derive(Debug)]
enum Inner {
    /// Completed when made ([`Completion::ready`]); `None` once returned.
    Ready(Option<CallResult>),
    /// Completed later by a [`Completer`].
    Shared(Arc<Slot>),
}

/// The other end of a [`Completion`]: completes it once. Dropping it unused completes the
/// completion with [`CallError::ShutDown`], so no waiter hangs.
#[derive(Debug)]
pub struct Completer {
    slot: Option<Arc<Slot>>,
}

/// State shared by a completion and its completer.
#[derive(Debug, Default)]
struct Slot {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    outcome: Outcome,
    /// Who to wake on completion, once one waits.
    waiter: Option<Waiter>,
}

#[derive(Debug, Default)]
enum Outcome {
    #[default]
    Pending,
    Done(CallResult),
    /// Already handed to the waiter.
    Taken,
}

/// The message of the panic when a completion is used after it returned its result.
const USED_UP: &str = "Completion used after it returned its result";

impl Completion {
    /// A completion that is already complete with `result` (for scripted fakes and immediate rejections).
    pub fn ready(result: CallResult) -> Completion {
        Completion { inner: Inner::Ready(Some(result)) }
    }

    /// A completion and the [`Completer`] that completes it by hand (for scripted fakes).
    pub fn pending() -> (Completer, Completion) {
        let slot = Arc::new(Slot::default());
        (Completer { slot: Some(Arc::clone(&slot)) }, Completion { inner: Inner::Shared(slot) })
    }

    /// Whether the result is available, so that [`Completion::wait`] would return at once.
    pub fn is_complete(&self) -> bool {
        match &self.inner {
            Inner::Ready(result) => result.is_some(),
            Inner::Shared(slot) => matches!(lock(&slot.state).outcome, Outcome::Done(_)),
        }
    }

    /// Blocks the calling thread until the call completes and returns its result. The thread parks (no
    /// spinning) and is unparked by the completer; inside a `may` coroutine the coroutine parks instead and its
    /// carrier thread runs other coroutines meanwhile.
    ///
    /// # Panics
    ///
    /// If this completion was polled to completion before (a misuse, as for any future).
    pub fn wait(mut self) -> CallResult {
        match self.wait_inner(None) {
            Some(result) => result,
            None => unreachable!("a wait without a deadline returns only with a result"),
        }
    }

    /// Blocks until the call completes or `deadline` passes, whichever is first. On timeout it hands the
    /// completion back (`Err`), still live: wait again, await it, or drop it (the call is still served).
    /// Precision is that of `std::thread::park_timeout` on the calling thread (its timer slack applies), or of
    /// `may::coroutine::park_timeout` inside a coroutine (`may`'s timer thread, whole milliseconds: the wait is
    /// rounded up to the next millisecond, because `may` truncates and would take a sub-millisecond timeout as
    /// none at all).
    ///
    /// # Panics
    ///
    /// If this completion was polled to completion before.
    pub fn wait_until(mut self, deadline: Instant) -> Result<CallResult, Completion> {
        match self.wait_inner(Some(deadline)) {
            Some(result) => Ok(result),
            None => Err(self),
        }
    }

    /// Waits until complete or past `deadline` (`None`: no deadline). `None` means the deadline passed.
    fn wait_inner(&mut self, deadline: Option<Instant>) -> Option<CallResult> {
        let slot = match &mut self.inner {
            Inner::Ready(result) => return Some(result.take().expect(USED_UP)),
            Inner::Shared(slot) => slot,
        };
        let mut registered = false;
        loop {
            let timeout = {
                let mut state = lock(&slot.state);
                if let Some(result) = state.outcome.take() {
                    state.waiter = None;
                    return Some(result);
                }
                let timeout = match deadline {
                    None => None,
                    Some(deadline) => match deadline.checked_duration_since(Instant::now()) {
                        Some(left) if !left.is_zero() => Some(left),
                        _ => {
                            state.waiter = None;
                            return None;
                        }
                    },
                };
                if !registered {
                    state.waiter = Some(Waiter::current());
                    registered = true;
                }
                timeout
            };
            // Spurious returns (an unpark meant for something else) just go round the loop.
            park(timeout);
        }
    }
}

impl Outcome {
    /// Takes a finished result, leaving `Taken`; `None` while pending; panics if already taken.
    fn take(&mut self) -> Option<CallResult> {
        match std::mem::replace(self, Outcome::Taken) {
            Outcome::Done(result) => Some(result),
            Outcome::Pending => {
                *self = Outcome::Pending;
                None
            }
            Outcome::Taken => panic!("{USED_UP}"),
        }
    }
}

impl Future for Completion {
    type Output = CallResult;

    /// Ready with the result once complete; otherwise stores the task's waker (replacing an older one unless
    /// it would wake the same task) and returns `Pending`.
    ///
    /// # Panics
    ///
    /// If polled again after it returned `Ready`.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<CallResult> {
        let slot = match &mut self.get_mut().inner {
            Inner::Ready(result) => return Poll::Ready(result.take().expect(USED_UP)),
            Inner::Shared(slot) => slot,
        };
        let mut state = lock(&slot.state);
        if let Some(result) = state.outcome.take() {
            state.waiter = None;
            return Poll::Ready(result);
        }
        match &mut state.waiter {
            Some(Waiter::Task(waker)) if waker.will_wake(cx.waker()) => {}
            waiter => *waiter = Some(Waiter::Task(cx.waker().clone())),
        }
        Poll::Pending
    }
}

impl Completer {
    /// Completes the completion with `result` and wakes its waiter, if one is registered (after releasing the
    /// slot's lock). A completion that was dropped just discards the result.
    pub fn complete(mut self, result: CallResult) {
        if let Some(slot) = self.slot.take() {
            finish(&slot, result);
        }
    }
}

impl Drop for Completer {
    fn drop(&mut self) {
        if let Some(slot) = self.slot.take() {
            finish(&slot, Err(CallError::ShutDown));
        }
    }
}

/// Stores `result` and wakes the registered waiter outside the lock.
fn finish(slot: &Slot, result: CallResult) {
    let waiter = {
        let mut state = lock(&slot.state);
        state.outcome = Outcome::Done(result);
        state.waiter.take()
    };
    if let Some(waiter) = waiter {
        waiter.wake();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::thread;

    fn reply(value: u64) -> Reply {
        let now = Instant::now();
        Reply { value, issued: now, started: now, finished: now }
    }

    #[test]
    fn ready_returns_its_result_blocking_and_awaited() {
        assert_eq!(Completion::ready(Ok(reply(7))).wait().map(|r| r.value), Ok(7));
        assert_eq!(
            futures::executor::block_on(Completion::ready(Err(CallError::Overloaded))),
            Err(CallError::Overloaded)
        );
        assert!(Completion::ready(Err(CallError::ShutDown)).is_complete());
    }

    #[test]
    fn pending_completes_a_parked_thread() {
        let (completer, completion) = Completion::pending();
        assert!(!completion.is_complete());
        let Inner::Shared(slot) = &completion.inner else { panic!("a pending completion shares a slot") };
        let slot = Arc::clone(slot);
        let waiter = thread::spawn(move || completion.wait());
        // Complete only once the thread has registered itself to be woken (it parks right after): the completer
        // then certainly wakes a waiting thread rather than leaving the result for a wait yet to start.
        let deadline = Instant::now() + Duration::from_secs(20);
        while lock(&slot.state).waiter.is_none() {
            assert!(Instant::now() < deadline, "the waiter never registered");
            thread::sleep(Duration::from_millis(1));
        }
        completer.complete(Ok(reply(3)));
        assert_eq!(waiter.join().ok().and_then(|r| r.ok()).map(|r| r.value), Some(3));
    }

    #[test]
    fn dropping_the_completer_resolves_shut_down() {
        let (completer, completion) = Completion::pending();
        drop(completer);
        assert_eq!(completion.wait(), Err(CallError::ShutDown));
    }

    #[test]
    fn wait_until_hands_the_completion_back_on_timeout() {
        let (completer, completion) = Completion::pending();
        let start = Instant::now();
        let completion = match completion.wait_until(start + Duration::from_millis(10)) {
            Ok(result) => panic!("completed without a completer: {result:?}"),
            Err(completion) => completion,
        };
        assert!(start.elapsed() >= Duration::from_millis(10));
        completer.complete(Ok(reply(9)));
        assert!(matches!(completion.wait_until(Instant::now()), Ok(Ok(r)) if r.value == 9));
    }

    #[test]
    fn completing_after_the_completion_is_dropped_is_harmless() {
        let (completer, completion) = Completion::pending();
        drop(completion);
        completer.complete(Ok(reply(1)));
    }

    #[test]
    fn completion_is_send_sync_and_unpin() {
        fn assert_traits<T: Send + Sync + Unpin + 'static>() {}
        assert_traits::<Completion>();
        assert_traits::<Completer>();
    }

    #[test]
    #[should_panic(expected = "used after")]
    fn polling_after_ready_panics() {
        let mut completion = Completion::ready(Ok(reply(1)));
        let waker = futures::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        assert!(Pin::new(&mut completion).poll(&mut cx).is_ready());
        let _ = Pin::new(&mut completion).poll(&mut cx);
    }

    #[test]
    fn reply_splits_latency() {
        let issued = Instant::now();
        let r = Reply {
            value: 0,
            issued,
            started: issued + Duration::from_millis(2),
            finished: issued + Duration::from_millis(7),
        };
        assert_eq!(r.latency(), Duration::from_millis(7));
        assert_eq!(r.queued(), Duration::from_millis(2));
        assert_eq!(r.in_service(), Duration::from_millis(5));
    }
}
