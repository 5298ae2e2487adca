//! The caller's cancellation of a run, as each family would really write it: a shared flag the blocking and
//! coroutine clients check between calls (and the tcp coordinators between batches), and for the stream clients
//! the same flag awaited ([`CallerCancel::raised`]) in the `select` that drops their calls in flight.
//!
//! Every job carries a [`Cancel`]. Timed and accounting runs carry [`Cancel::never`] (no flag at all): checking it
//! is one test of a `None` pointer between calls, nothing measurable next to a socket call. The conformance check
//! `caller_cancel` carries [`Cancel::after`]: the caller's side is the kit's [`CallerCancel`] (the answer that
//! reaches the point, counted by [`CallerCancel::pass_next`], waits there until the caller's thread raised the
//! cancellation, so it always lands mid-run), and the handle also counts each answered request in its own slot
//! (the check's record of exactly-once; never present in a timed run).

use std::sync::Arc;
use std::time::Instant;

use pipelines::calls::OnceLedger;
use pipelines::cancel::CallerCancel;

use crate::outcome::Tally;

/// A run's cancellation: never raised ([`Cancel::never`]) or raised by the caller ([`Cancel::after`]).
#[derive(Debug, Clone, Default)]
pub struct Cancel(Option<Arc<State>>, Deaf);

/// Whether this handle ignores the caller ([`Cancel::deaf`]).
#[derive(Debug, Clone, Copy, Default)]
struct Deaf(bool);

#[derive(Debug)]
struct State {
    /// The caller's side: raised once the point-th answer passed (it wakes the stream clients' `select`).
    caller: CallerCancel,
    /// The check's record: which requests were answered, and how many answers repeated one.
    answers: OnceLedger,
}

impl Cancel {
    /// A run nobody cancels: the timed and accounting runs.
    pub fn never() -> Cancel {
        Cancel(None, Deaf(false))
    }

    /// A run of `requests` requests the caller cancels once `point` of them were answered.
    pub fn after(point: u64, requests: u64) -> Cancel {
        Cancel(
            Some(Arc::new(State { caller: CallerCancel::at(point), answers: OnceLedger::new(requests) })),
            Deaf(false),
        )
    }

    /// The same run's record, through a handle that never hears the caller: what a client that ignores
    /// cancellation sees (for the tests that show `caller_cancel` rejects one).
    pub fn deaf(&self) -> Cancel {
        Cancel(self.0.clone(), Deaf(true))
    }

    /// The state, unless this handle ignores the caller.
    fn heard(&self) -> Option<&State> {
        self.0.as_deref().filter(|_| !self.1 .0)
    }

    /// Whether the caller cancelled the run: checked between calls (one load, or nothing at all for a run nobody
    /// cancels).
    #[inline]
    pub fn is_raised(&self) -> bool {
        self.heard().is_some_and(|s| s.caller.is_raised())
    }

    /// Resolves when the caller cancels the run (never for [`Cancel::never`]): what a stream client `select`s on.
    pub async fn cancelled(&self) {
        match self.heard() {
            Some(state) => state.caller.raised().await,
            None => std::future::pending().await,
        }
    }

    /// Request `seq` was answered correctly (nothing for a run nobody cancels): the check's record; the answer
    /// that reaches the point waits there for the caller ([`CallerCancel::pass`]).
    #[inline]
    pub fn answered(&self, seq: u64) {
        let Some(state) = &self.0 else { return };
        state.answers.note(seq);
        state.caller.pass_next();
    }

    /// The caller's side: wait until `point` requests were answered (or the run was abandoned), then raise the
    /// cancellation; whether it raised it.
    pub fn raise_when_reached(&self) -> bool {
        self.0.as_ref().is_some_and(|state| state.caller.raise_when_reached())
    }

    /// The run returned: release a caller still waiting for the point.
    pub fn abandon(&self) {
        if let Some(state) = &self.0 {
            state.caller.abandon();
        }
    }

    /// When the caller raised the cancellation, if it did.
    pub fn raised_at(&self) -> Option<Instant> {
        self.0.as_ref().and_then(|s| s.caller.raised_at())
    }

    /// Whether request `seq` was answered, in the check's record (never for [`Cancel::never`]).
    pub fn was_answered(&self, seq: u64) -> bool {
        self.0.as_ref().is_some_and(|s| s.answers.seen(seq))
    }

    /// The check's record: the tally of every request answered at least once, and the answers that repeated a
    /// request already answered.
    pub fn record(&self) -> (Tally, u64) {
        let mut tally = Tally::default();
        let Some(state) = &self.0 else { return (tally, 0) };
        state.answers.seen_inputs().for_each(|seq| tally.add(seq));
        (tally, state.answers.counts().twice)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_is_never_raised_and_records_nothing() {
        let cancel = Cancel::never();
        cancel.answered(3);
        assert!(!cancel.is_raised());
        assert!(!cancel.raise_when_reached());
        assert_eq!(cancel.record(), (Tally::default(), 0));
    }

    #[test]
    fn the_caller_raises_at_the_point_and_duplicates_show() {
        let cancel = Cancel::after(2, 10);
        let caller = {
            let cancel = cancel.clone();
            std::thread::spawn(move || cancel.raise_when_reached())
        };
        for seq in [4, 4] {
            cancel.answered(seq);
        }
        assert!(caller.join().unwrap_or(false));
        assert!(cancel.is_raised());
        assert!(cancel.raised_at().is_some());
        let mut four = Tally::default();
        four.add(4);
        assert_eq!(cancel.record(), (four, 1));
    }

    #[test]
    fn a_deaf_handle_records_but_never_hears_the_caller() {
        let cancel = Cancel::after(1, 4);
        let deaf = cancel.deaf();
        let caller = {
            let cancel = cancel.clone();
            std::thread::spawn(move || cancel.raise_when_reached())
        };
        deaf.answered(2);
        assert!(caller.join().unwrap_or(false));
        assert!(cancel.is_raised() && !deaf.is_raised());
        assert_eq!(cancel.record().0.count, 1);
    }

    #[test]
    fn an_abandoned_run_is_not_cancelled() {
        let cancel = Cancel::after(5, 10);
        cancel.abandon();
        assert!(!cancel.raise_when_reached());
        assert!(!cancel.is_raised());
    }
}
