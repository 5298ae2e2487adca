//! The timer: one shard of pending deadlines per timer thread, each a binary min-heap under its own small
//! lock, and how a timer thread waits on it (the thread's loop is `dependency::timer_thread`).
//!
//! A timer thread sleeps on its shard's condition variable until the earliest deadline (a futex wait with an
//! absolute `CLOCK_MONOTONIC` timeout; the thread's timer slack is set to 1 ns so the kernel does not defer
//! the wake-up by its default 50 µs). It never spins. On waking it pops every deadline that has passed — never
//! one that has not, so no call completes early — and hands the batch to the dependency, which frees their
//! slots, starts queued calls (into this shard) and completes the batch outside every lock.
//!
//! A push only notifies the thread when it is asleep and the new deadline is earlier than the one it sleeps
//! until (or it sleeps with nothing pending), so in steady state (every new deadline is later than the
//! pending ones) pushing costs no system call.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::{Condvar, Mutex};
use std::time::Instant;

use crate::call::Call;
use crate::lock;

/// A call in service: when its timer fires, when its service began, and the call.
#[derive(Debug)]
pub(crate) struct InService {
    /// `started` plus the call's service time: the timer fires at or after this instant, never before.
    pub(crate) deadline: Instant,
    /// When its service began.
    pub(crate) started: Instant,
    /// The call itself.
    pub(crate) call: Call,
}

impl InService {
    fn key(&self) -> (Instant, u64) {
        (self.deadline, self.call.seq)
    }
}

impl PartialEq for InService {
    fn eq(&self, other: &Self) -> bool {
        self.key() == other.key()
    }
}

impl Eq for InService {}

impl PartialOrd for InService {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for InService {
    /// Reversed, so that `BinaryHeap` (a max-heap) pops the earliest deadline first, ties in issue order.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key().cmp(&self.key())
    }
}

/// The pending deadlines of one timer thread.
#[derive(Debug, Default)]
pub(crate) struct Shard {
    state: Mutex<ShardState>,
    wake: Condvar,
}

#[derive(Debug, Default)]
struct ShardState {
    heap: BinaryHeap<InService>,
    sleep: Sleep,
    closed: bool,
}

/// What the shard's timer thread is doing, so pushes know whether to wake it.
#[derive(Debug, Default, Clone, Copy)]
enum Sleep {
    /// Running (or already notified): it will look at the heap before it sleeps again.
    #[default]
    Awake,
    /// Asleep until this deadline.
    Until(Instant),
    /// Asleep with nothing pending.
    Idle,
}

impl Shard {
    /// Adds a call in service. Returns whether the timer thread must be woken ([`Shard::notify`]) because the
    /// new deadline is earlier than what it sleeps until; the caller may notify after releasing its own locks.
    pub(crate) fn push(&self, entry: InService) -> bool {
        let mut state = lock(&self.state);
        debug_assert!(!state.closed, "nothing is pushed after shutdown");
        let notify = match state.sleep {
            Sleep::Awake => false,
            Sleep::Idle => true,
            Sleep::Until(deadline) => entry.deadline < deadline,
        };
        if notify {
            state.sleep = Sleep::Awake;
        }
        state.heap.push(entry);
        notify
    }

    /// Wakes the timer thread (after a [`Shard::push`] that asked for it).
    pub(crate) fn notify(&self) {
        self.wake.notify_one();
    }

    /// Closes the shard (its thread exits at its next look) and returns every call still pending in it.
    pub(crate) fn close(&self) -> Vec<InService> {
        let pending = {
            let mut state = lock(&self.state);
            state.closed = true;
            std::mem::take(&mut state.heap).into_vec()
        };
        self.wake.notify_all();
        pending
    }

    /// Blocks until at least one deadline has passed, moves every passed one into `batch` (earliest first)
    /// and returns the instant they were found due (`>=` each of their deadlines). `None` once closed.
    pub(crate) fn next_batch(&self, batch: &mut Vec<InService>) -> Option<Instant> {
        let mut state = lock(&self.state);
        let now = loop {
            if state.closed {
                return None;
            }
            let now = Instant::now();
            match state.heap.peek().map(|entry| entry.deadline) {
                Some(deadline) if deadline <= now => break now,
                Some(deadline) => {
                    state.sleep = Sleep::Until(deadline);
                    state = self.wake.wait_timeout(state, deadline - now).unwrap_or_else(|e| e.into_inner()).0;
                }
                None => {
                    state.sleep = Sleep::Idle;
                    state = self.wake.wait(state).unwrap_or_else(|e| e.into_inner());
                }
            }
            state.sleep = Sleep::Awake;
        };
        state.pop_due(now, batch);
        Some(now)
    }

    /// Moves every entry due by `now` into a new batch, without waiting (for deterministic tests of admission).
    #[cfg(test)]
    pub(crate) fn take_due(&self, now: Instant) -> Vec<InService> {
        let mut batch = Vec::new();
        lock(&self.state).pop_due(now, &mut batch);
        batch
    }

    /// How many calls are pending in the shard.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        lock(&self.state).heap.len()
    }
}

impl ShardState {
    /// Moves every entry whose deadline is at or before `now` into `batch`, earliest first.
    fn pop_due(&mut self, now: Instant, batch: &mut Vec<InService>) {
        while self.heap.peek().is_some_and(|entry| entry.deadline <= now) {
            if let Some(entry) = self.heap.pop() {
                batch.push(entry);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::completion::Completion;
    use std::time::Duration;

    fn entry(seq: u64, deadline: Instant) -> InService {
        let (completer, _completion) = Completion::pending();
        let call = Call { seq, input: seq, issued: deadline, service: Duration::ZERO, completer };
        InService { deadline, started: deadline, call }
    }

    #[test]
    fn the_heap_pops_earliest_deadline_first_then_issue_order() {
        let shard = Shard::default();
        let t = Instant::now();
        let ms = Duration::from_millis;
        for (seq, at) in [(0, ms(3)), (1, ms(1)), (2, ms(2)), (3, ms(1)), (4, ms(9))] {
            let _ = shard.push(entry(seq, t + at));
        }
        let due: Vec<u64> = shard.take_due(t + ms(3)).into_iter().map(|e| e.call.seq).collect();
        assert_eq!(due, vec![1, 3, 2, 0]);
        assert_eq!(shard.len(), 1);
    }

    #[test]
    fn a_push_wakes_the_thread_only_for_an_earlier_deadline() {
        let shard = Shard::default();
        let t = Instant::now();
        let ms = Duration::from_millis;
        assert!(!shard.push(entry(0, t)), "an awake thread needs no wake-up");
        lock(&shard.state).sleep = Sleep::Until(t + ms(5));
        assert!(!shard.push(entry(1, t + ms(6))));
        assert!(shard.push(entry(2, t + ms(4))));
        assert!(!shard.push(entry(3, t + ms(1))), "already notified: it will look again");
        lock(&shard.state).sleep = Sleep::Idle;
        assert!(shard.push(entry(4, t + ms(9))));
    }
}
