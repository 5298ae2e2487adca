//! The checks' ledger of calls made or answered exactly once: which inputs `0..n` were noted, one atomic bit
//! each, and how many notes repeated an input or named none. Conformance checks only: a timed run carries no
//! ledger at all.

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::{Acquire, Relaxed};

/// Which inputs `0..inputs` were noted (a call made, an answer delivered), and the notes that repeated an input
/// already noted or named no input: the witness that every call was made, or answered, at most once.
#[derive(Debug)]
pub struct OnceLedger {
    inputs: u64,
    seen: Vec<AtomicU64>,
    notes: AtomicU64,
    twice: AtomicU64,
    outside: AtomicU64,
}

/// What a [`OnceLedger`] saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Noted {
    /// Notes made.
    pub notes: u64,
    /// Notes of an input already noted.
    pub twice: u64,
    /// Notes of no input in `0..inputs`.
    pub outside: u64,
}

impl OnceLedger {
    /// A ledger of inputs `0..inputs`, none noted.
    pub fn new(inputs: u64) -> OnceLedger {
        let words = usize::try_from(inputs.div_ceil(64)).unwrap_or(usize::MAX);
        let zero = || AtomicU64::new(0);
        OnceLedger { inputs, seen: (0..words).map(|_| zero()).collect(), notes: zero(), twice: zero(), outside: zero() }
    }

    /// Note `input` (one more call made, one more answer delivered).
    pub fn note(&self, input: u64) {
        self.notes.fetch_add(1, Relaxed);
        let word = usize::try_from(input / 64).ok().and_then(|w| self.seen.get(w)).filter(|_| input < self.inputs);
        let Some(word) = word else {
            self.outside.fetch_add(1, Relaxed);
            return;
        };
        let bit = 1u64 << (input % 64);
        if word.fetch_or(bit, Relaxed) & bit != 0 {
            self.twice.fetch_add(1, Relaxed);
        }
    }

    /// Note something that is no input at all (an answer no input gives).
    pub fn note_outside(&self) {
        self.notes.fetch_add(1, Relaxed);
        self.outside.fetch_add(1, Relaxed);
    }

    /// Whether `input` was noted.
    pub fn seen(&self, input: u64) -> bool {
        usize::try_from(input / 64).is_ok_and(|w| self.word(w) & (1u64 << (input % 64)) != 0)
    }

    /// The inputs noted, in order.
    pub fn seen_inputs(&self) -> impl Iterator<Item = u64> + '_ {
        (0..self.seen.len()).flat_map(move |w| {
            let word = self.word(w);
            (0..64).filter(move |bit| word & (1u64 << bit) != 0).map(move |bit| w as u64 * 64 + bit)
        })
    }

    /// How many inputs noted here `other` never noted (answers of inputs never called).
    pub fn seen_not_in(&self, other: &OnceLedger) -> u64 {
        (0..self.seen.len()).map(|w| u64::from((self.word(w) & !other.word(w)).count_ones())).sum()
    }

    /// What it saw so far.
    pub fn counts(&self) -> Noted {
        Noted { notes: self.notes.load(Acquire), twice: self.twice.load(Acquire), outside: self.outside.load(Acquire) }
    }

    /// The `w`-th word of bits (0 past the end).
    fn word(&self, w: usize) -> u64 {
        self.seen.get(w).map_or(0, |word| word.load(Acquire))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ledger_tells_repeats_and_strangers_from_inputs_noted_once() {
        let (calls, answers) = (OnceLedger::new(130), OnceLedger::new(130));
        for input in [0, 64, 129, 64, 130] {
            calls.note(input);
        }
        assert_eq!(calls.counts(), Noted { notes: 5, twice: 1, outside: 1 });
        assert!(calls.seen(129) && !calls.seen(1) && !calls.seen(130));
        assert_eq!(calls.seen_inputs().collect::<Vec<_>>(), [0, 64, 129]);
        answers.note(0);
        answers.note(1);
        answers.note_outside();
        assert_eq!(answers.counts(), Noted { notes: 3, twice: 0, outside: 1 });
        assert_eq!(answers.seen_not_in(&calls), 1, "input 1 was answered, never called");
    }
}
