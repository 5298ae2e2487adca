//! What one run of a client hands back: how many requests were answered correctly, how many ended in an error
//! or a wrong reply, the first error's message, and the latencies, so the trial can verify that every request
//! was answered exactly once.
//!
//! No histogram is built on a run's path: latencies go into one [`Times`] buffer per run, allocated before the
//! start line and written by index (each call's or batch's own slot), and the histogram is built from it when the
//! harness asks for the metrics, after the clock has stopped. A connection's part of an outcome holds only counts.

use std::sync::atomic::{AtomicU64, Ordering};

use measure::latency::LatencyRecorder;

use crate::wire::WrongReply;

use crate::error::NetworkError;

/// Count, sum and sum of squares of the sequence numbers answered: equal to the reference of `0..n` only if
/// every one was answered exactly once (a duplicate and a missing number would have to cancel in both sums).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Answers counted.
    pub count: u64,
    /// Sum of their sequence numbers (wrapping).
    pub sum: u64,
    /// Sum of their squares (wrapping).
    pub sum_sq: u64,
}

impl Tally {
    /// Count one answer to `seq`.
    pub fn add(&mut self, seq: u64) {
        self.count += 1;
        self.sum = self.sum.wrapping_add(seq);
        self.sum_sq = self.sum_sq.wrapping_add(seq.wrapping_mul(seq));
    }

    /// Add another tally.
    pub fn merge(&mut self, other: &Tally) {
        self.count += other.count;
        self.sum = self.sum.wrapping_add(other.sum);
        self.sum_sq = self.sum_sq.wrapping_add(other.sum_sq);
    }

    /// The tally of `0..n`, each once.
    pub fn reference(n: u64) -> Tally {
        let mut tally = Tally::default();
        for seq in 0..n {
            tally.add(seq);
        }
        tally
    }
}

/// One run's latencies in microseconds, a slot per call (HTTP, by sequence number) or per batch (TCP), allocated
/// before the start line and shared by every thread, task or coroutine of the run; a slot left at zero was not
/// answered. Writing a slot is one relaxed store: no allocation, no lock.
#[derive(Debug, Default)]
pub struct Times {
    slots: Box<[AtomicU64]>,
}

impl Times {
    /// `n` empty slots.
    pub fn new(n: usize) -> Times {
        Times { slots: (0..n).map(|_| AtomicU64::new(0)).collect() }
    }

    /// Record `us` microseconds (at least 1) in slot `index`; an index past the end is ignored.
    pub fn set(&self, index: u64, us: u64) {
        if let Some(slot) = usize::try_from(index).ok().and_then(|i| self.slots.get(i)) {
            slot.store(us.max(1), Ordering::Relaxed);
        }
    }

    /// The histogram of every written slot (built on demand, after the run).
    pub fn recorder(&self) -> LatencyRecorder {
        let mut recorder = LatencyRecorder::new();
        for us in self.slots.iter().map(|s| s.load(Ordering::Relaxed)).filter(|&us| us > 0) {
            recorder.record_us(us);
        }
        recorder
    }
}

/// Microseconds since `started`, saturating.
pub fn micros_since(started: std::time::Instant) -> u64 {
    u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX)
}

/// The result of one client run.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Requests (HTTP calls or TCP exchanges) the run was asked to make.
    pub requested: u64,
    /// The correct answers.
    pub tally: Tally,
    /// Requests that ended in an error (refused, reset, closed, timed out).
    pub errors: u64,
    /// Replies that answered the wrong request, or out of order.
    pub wrong: u64,
    /// The first error or wrong reply, as a message.
    pub first_error: Option<String>,
    /// Per-call latencies (HTTP) or per-batch times (TCP), in microseconds: the run's one buffer (empty in a
    /// connection's part).
    pub latencies: Times,
    /// How late the probe's 1 ms ticks ran, in microseconds: the run's one recorder, made before the start line
    /// (`None` in a connection's part).
    pub probe: Option<LatencyRecorder>,
    /// Threads the client had alive at once (its own, counted by the contestant).
    pub client_threads: u64,
}

impl Outcome {
    /// An empty outcome of `requested` requests.
    pub fn new(requested: u64) -> Outcome {
        Outcome { requested, ..Outcome::default() }
    }

    /// Count one error.
    pub fn error(&mut self, err: &NetworkError) {
        self.errors += 1;
        self.first_error.get_or_insert_with(|| err.to_string());
    }

    /// Count one wrong reply.
    pub fn wrong(&mut self, detail: &WrongReply) {
        self.wrong += 1;
        self.first_error.get_or_insert_with(|| detail.to_string());
    }

    /// The outcome of `requested` requests from every connection's part, in order; a part whose thread or
    /// coroutine (`what`) panicked counts as one wrong reply.
    pub fn joined<E>(
        requested: u64,
        parts: impl IntoIterator<Item = Result<Outcome, E>>,
        what: &'static str,
    ) -> Outcome {
        let mut outcome = Outcome::new(requested);
        for part in parts {
            match part {
                Ok(part) => outcome.merge(part),
                Err(_) => outcome.wrong(&WrongReply::Panicked(what)),
            }
        }
        outcome
    }

    /// Count one call's or exchange's failure: an error or a wrong reply.
    pub fn failed(&mut self, fail: &Fail) {
        match fail {
            Fail::Error(err) => self.error(err),
            Fail::Wrong(detail) => self.wrong(detail),
        }
    }

    /// Add a part (one thread's or task's counts) into this outcome; `requested`, the latencies and the probe are
    /// the whole run's and are kept.
    pub fn merge(&mut self, part: Outcome) {
        self.tally.merge(&part.tally);
        self.errors += part.errors;
        self.wrong += part.wrong;
        self.first_error = self.first_error.take().or(part.first_error);
    }

    /// Whether every request was answered exactly once, correctly, and nothing failed; else what differs.
    pub fn verify(&self) -> Result<(), Unverified> {
        let reference = Tally::reference(self.requested);
        if self.errors == 0 && self.wrong == 0 && self.tally == reference {
            return Ok(());
        }
        Err(Unverified {
            answered: self.tally.count,
            requested: self.requested,
            errors: self.errors,
            wrong: self.wrong,
            not_each_once: self.tally.count == self.requested && self.tally != reference,
            first_error: self.first_error.clone(),
        })
    }

    /// Whether every request is accounted for: answered, failed or wrong, and none twice.
    pub fn accounted(&self) -> bool {
        self.tally.count + self.errors + self.wrong == self.requested
    }
}

/// Why a call or an exchange did not count as answered.
#[derive(Debug)]
pub enum Fail {
    /// A socket or protocol error, or the server closed the connection.
    Error(NetworkError),
    /// The reply answered another request, or wrongly.
    Wrong(WrongReply),
}

/// A run that did not answer every request exactly once, correctly: its counts ([`Outcome::verify`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{answered} of {requested} requests answered correctly ({errors} errors, {wrong} wrong replies{}){}",
    if *not_each_once { "; the answered sequence numbers are not each of 0..n once" } else { "" },
    first_error.as_ref().map_or_else(String::new, |e| format!("; first: {e}"))
)]
pub struct Unverified {
    /// Requests answered correctly.
    pub answered: u64,
    /// Requests asked.
    pub requested: u64,
    /// Requests that ended in an error.
    pub errors: u64,
    /// Wrong replies.
    pub wrong: u64,
    /// Whether as many answers as requests came, but not each request's once.
    pub not_each_once: bool,
    /// The first error or wrong reply, as a message.
    pub first_error: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_clean_tally_verifies() {
        let mut outcome = Outcome::new(100);
        for seq in (0..100).rev() {
            outcome.tally.add(seq);
        }
        assert_eq!(outcome.verify(), Ok(()));
        assert!(outcome.accounted());
    }

    #[test]
    fn a_duplicate_in_place_of_a_missing_answer_fails() {
        let mut outcome = Outcome::new(3);
        for seq in [0, 1, 1] {
            outcome.tally.add(seq);
        }
        assert!(outcome.verify().is_err_and(|e| e.to_string().contains("not each of 0..n once")));
    }

    #[test]
    fn errors_are_counted_with_the_first_message() {
        let mut outcome = Outcome::new(2);
        outcome.tally.add(0);
        outcome.error(&NetworkError::Closed { addr: crate::server::loopback(9) });
        assert!(outcome.accounted());
        assert!(outcome.verify().is_err_and(|e| e.to_string().contains("127.0.0.1:9 closed")));
    }

    #[test]
    fn times_keep_written_slots_only() {
        let times = Times::new(4);
        times.set(0, 10);
        times.set(2, 0);
        times.set(9, 5);
        assert_eq!(times.recorder().len(), 2);
        assert!(Times::default().recorder().is_empty());
    }
}
