//! A bounded blocking queue written the classic way, without a channel crate: a `Mutex<VecDeque<T>>` and two
//! `Condvar`s, `not_empty` and `not_full` — the shape of Java's `ArrayBlockingQueue`, and what a team writes
//! when it has only the standard library's locks.
//!
//! `send` waits on `not_full` while the queue holds `capacity` items, pushes, unlocks and calls
//! `not_empty.notify_one()`; `recv` waits on `not_empty` while it is empty, pops, unlocks and calls
//! `not_full.notify_one()`. Both notify on *every* operation, as the classic version does; with the standard
//! library's futex-based `Condvar` on Linux, each notify is a `FUTEX_WAKE` system call whether or not anyone
//! waits. That is the naive queue ([`bounded`]). The expert one ([`bounded_counted`], `COUNTED = true`) keeps a
//! count of the threads waiting on each `Condvar`, under the lock, and notifies only when the count is not zero —
//! what Java's `Condition.signal` does by checking its wait queue first; the const parameter makes each a
//! separate compiled queue, with no branch on it at run time.
//! Disconnection is explicit: dropping the [`Sender`] wakes a waiting receiver, which drains what is left and
//! then sees the end; dropping the [`Receiver`] drops what is queued and makes every later `send` fail.
//!
//! One sender and one receiver: neither end is `Clone`.
//!
//! ```
//! let (tx, rx) = handoff::condvar_queue::bounded(2);
//! let producer = std::thread::spawn(move || {
//!     for x in 0..100u64 {
//!         if tx.send(x).is_err() {
//!             break;
//!         }
//!     }
//! });
//! let sum: u64 = std::iter::from_fn(|| rx.recv()).sum();
//! assert_eq!(sum, 4950);
//! assert!(producer.join().is_ok());
//! ```

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use pipelines::blocking::Flavor;

struct State<T> {
    queue: VecDeque<T>,
    sender_alive: bool,
    receiver_alive: bool,
    /// Threads waiting on `not_full` (kept only when counted).
    senders_waiting: usize,
    /// Threads waiting on `not_empty` (kept only when counted).
    receivers_waiting: usize,
}

struct Shared<T> {
    state: Mutex<State<T>>,
    not_empty: Condvar,
    not_full: Condvar,
    capacity: usize,
}

impl<T> Shared<T> {
    /// The lock; a panic while holding it cannot leave the queue inconsistent (every critical section is a
    /// single push, pop or flag change), so poisoning is ignored.
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The `Debug` of the queue's end named `end`.
    fn debug_end(&self, f: &mut fmt::Formatter<'_>, end: &str, counted: bool) -> fmt::Result {
        f.debug_struct(end).field("capacity", &self.capacity).field("counted", &counted).finish_non_exhaustive()
    }
}

/// The sending end of a [`bounded`] (or, with `COUNTED`, [`bounded_counted`]) queue.
pub struct Sender<T, const COUNTED: bool = false> {
    shared: Arc<Shared<T>>,
}

/// The receiving end of a [`bounded`] (or, with `COUNTED`, [`bounded_counted`]) queue.
pub struct Receiver<T, const COUNTED: bool = false> {
    shared: Arc<Shared<T>>,
}

/// The receiver is gone; the value that could not be sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SendError<T>(pub T);

/// The naive queue, holding at most `capacity` items (at least 1: a capacity of 0 is raised to 1): it notifies
/// after every push and pop.
pub fn bounded<T>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    with_policy(capacity)
}

/// The expert queue, holding at most `capacity` items (at least 1): it notifies only when a peer waits.
pub fn bounded_counted<T>(capacity: usize) -> (Sender<T, true>, Receiver<T, true>) {
    with_policy(capacity)
}

fn with_policy<T, const COUNTED: bool>(capacity: usize) -> (Sender<T, COUNTED>, Receiver<T, COUNTED>) {
    let capacity = capacity.max(1);
    let state = State {
        queue: VecDeque::with_capacity(capacity),
        sender_alive: true,
        receiver_alive: true,
        senders_waiting: 0,
        receivers_waiting: 0,
    };
    let shared =
        Arc::new(Shared { state: Mutex::new(state), not_empty: Condvar::new(), not_full: Condvar::new(), capacity });
    (Sender { shared: Arc::clone(&shared) }, Receiver { shared })
}

impl<T, const COUNTED: bool> Sender<T, COUNTED> {
    /// Append `value`, blocking while the queue is full; gives it back if the receiver is gone.
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        let shared = &*self.shared;
        let mut state = shared.lock();
        while state.receiver_alive && state.queue.len() >= shared.capacity {
            if COUNTED {
                state.senders_waiting += 1;
            }
            state = shared.not_full.wait(state).unwrap_or_else(PoisonError::into_inner);
            if COUNTED {
                state.senders_waiting -= 1;
            }
        }
        if !state.receiver_alive {
            return Err(SendError(value));
        }
        state.queue.push_back(value);
        let wake = !COUNTED || state.receivers_waiting > 0;
        drop(state);
        if wake {
            shared.not_empty.notify_one();
        }
        Ok(())
    }
}

impl<T, const COUNTED: bool> Receiver<T, COUNTED> {
    /// Take the oldest item, blocking while the queue is empty; `None` once it is empty and the sender is gone.
    pub fn recv(&self) -> Option<T> {
        let shared = &*self.shared;
        let mut state = shared.lock();
        loop {
            if let Some(value) = state.queue.pop_front() {
                let wake = !COUNTED || state.senders_waiting > 0;
                drop(state);
                if wake {
                    shared.not_full.notify_one();
                }
                return Some(value);
            }
            if !state.sender_alive {
                return None;
            }
            if COUNTED {
                state.receivers_waiting += 1;
            }
            state = shared.not_empty.wait(state).unwrap_or_else(PoisonError::into_inner);
            if COUNTED {
                state.receivers_waiting -= 1;
            }
        }
    }
}

impl<T, const COUNTED: bool> Drop for Sender<T, COUNTED> {
    fn drop(&mut self) {
        self.shared.lock().sender_alive = false;
        self.shared.not_empty.notify_all();
    }
}

impl<T, const COUNTED: bool> Drop for Receiver<T, COUNTED> {
    fn drop(&mut self) {
        let dropped = {
            let mut state = self.shared.lock();
            state.receiver_alive = false;
            std::mem::take(&mut state.queue)
        };
        self.shared.not_full.notify_all();
        // Drop the queued items outside the lock.
        drop(dropped);
    }
}

impl<T, const COUNTED: bool> fmt::Debug for Sender<T, COUNTED> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.shared.debug_end(f, "Sender", COUNTED)
    }
}

impl<T, const COUNTED: bool> fmt::Debug for Receiver<T, COUNTED> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.shared.debug_end(f, "Receiver", COUNTED)
    }
}

/// The queue as a [`Flavor`] of the `pipelines` crate's blocking channels: the naive one ([`CondvarQueue`]) or,
/// with `COUNTED`, the expert one ([`CountedCondvarQueue`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct CondvarFlavor<const COUNTED: bool>;

/// The naive queue (notify after every push and pop) as a [`Flavor`].
pub type CondvarQueue = CondvarFlavor<false>;

/// The expert queue (notify only when a peer waits) as a [`Flavor`].
pub type CountedCondvarQueue = CondvarFlavor<true>;

impl<const COUNTED: bool> Flavor for CondvarFlavor<COUNTED> {
    const NAME: &'static str = if COUNTED { "condvar-counted" } else { "condvar" };
    const API: &'static str = if COUNTED {
        "a hand-written Mutex<VecDeque> + two Condvars queue that counts its waiters (handoff::condvar_queue)"
    } else {
        "a hand-written Mutex<VecDeque> + two Condvars queue (handoff::condvar_queue)"
    };
    type Sender<T: Send> = Sender<T, COUNTED>;
    type Receiver<T: Send> = Receiver<T, COUNTED>;

    fn bounded<T: Send>(capacity: usize) -> (Sender<T, COUNTED>, Receiver<T, COUNTED>) {
        with_policy(capacity)
    }

    #[inline]
    fn send<T: Send>(tx: &Sender<T, COUNTED>, value: T) -> Result<(), T> {
        tx.send(value).map_err(|e| e.0)
    }

    #[inline]
    fn recv<T: Send>(rx: &Receiver<T, COUNTED>) -> Option<T> {
        rx.recv()
    }
}

#[cfg(test)]
mod tests {
    use std::thread;

    use super::*;

    /// Send `0..10_000` through `tx` from a thread of its own and assert that `rx` receives them in order.
    fn assert_in_order<const COUNTED: bool>((tx, rx): (Sender<u64, COUNTED>, Receiver<u64, COUNTED>)) {
        let received = thread::scope(|s| {
            s.spawn(move || {
                for x in 0..10_000u64 {
                    assert!(tx.send(x).is_ok());
                }
            });
            std::iter::from_fn(|| rx.recv()).collect::<Vec<_>>()
        });
        assert_eq!(received, (0..10_000).collect::<Vec<_>>());
    }

    #[test]
    fn items_arrive_in_order_through_a_queue_of_one() {
        assert_in_order(bounded(1));
    }

    #[test]
    fn the_queue_never_holds_more_than_its_capacity() {
        let (tx, rx) = bounded(3);
        for x in 0..3 {
            assert!(tx.send(x).is_ok());
        }
        assert_eq!(tx.shared.lock().queue.len(), 3);
        assert_eq!(rx.recv(), Some(0));
        assert!(tx.send(3).is_ok());
        assert_eq!(tx.shared.lock().queue.len(), 3);
    }

    #[test]
    fn dropping_the_receiver_fails_a_blocked_sender() {
        let (tx, rx) = bounded(1);
        assert!(tx.send(1).is_ok());
        let blocked = thread::spawn(move || tx.send(2));
        thread::sleep(std::time::Duration::from_millis(20));
        drop(rx);
        assert_eq!(blocked.join().ok(), Some(Err(SendError(2))));
    }

    #[test]
    fn dropping_the_sender_ends_the_receiver_after_the_queued_items() {
        let (tx, rx) = bounded(4);
        assert!(tx.send(7).is_ok());
        drop(tx);
        assert_eq!(rx.recv(), Some(7));
        assert_eq!(rx.recv(), None);
    }

    #[test]
    fn the_counted_queue_delivers_in_order_and_tracks_no_waiter_at_rest() {
        assert_in_order(bounded_counted(2));
        let (tx, rx) = bounded_counted::<u64>(1);
        assert!(tx.send(1).is_ok());
        assert_eq!(rx.recv(), Some(1));
        let state = tx.shared.lock();
        assert_eq!((state.senders_waiting, state.receivers_waiting), (0, 0));
    }

    #[test]
    fn a_capacity_of_zero_is_one() {
        let (tx, rx) = bounded(0);
        assert!(tx.send(1).is_ok());
        assert_eq!(rx.recv(), Some(1));
    }
}
