//! What became of every arrival, written once by whichever thread, task or coroutine handled it and read after
//! the run: one atomic word per arrival (its outcome and when it was seen, in µs from the run's start), so the
//! timed path takes no lock and allocates nothing.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

/// What became of one arrival.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// Answered with the right value.
    Answered,
    /// Refused at the gate at once: the limit was full.
    Shed,
    /// The dependency failed it.
    Failed,
    /// Answered with a wrong value (a broken contestant).
    Wrong,
}

impl Fate {
    fn code(self) -> u64 {
        match self {
            Fate::Answered => 1,
            Fate::Shed => 2,
            Fate::Failed => 3,
            Fate::Wrong => 4,
        }
    }

    fn from_code(code: u64) -> Option<Fate> {
        let fates = [Fate::Answered, Fate::Shed, Fate::Failed, Fate::Wrong];
        fates.into_iter().find(|fate| fate.code() == code)
    }
}

/// One arrival's record, read back after the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// What became of it.
    pub fate: Fate,
    /// When its caller saw the outcome, µs from the run's start.
    pub seen_us: u64,
}

/// Every arrival's outcome, and how many were written twice.
#[derive(Debug)]
pub struct Book {
    start: OnceLock<Instant>,
    slots: Vec<AtomicU64>,
    written: AtomicU64,
    twice: AtomicU64,
}

impl Book {
    /// A book of `arrivals` empty slots, its clock not started yet ([`Book::begin`]).
    pub fn new(arrivals: usize) -> Book {
        Book {
            start: OnceLock::new(),
            slots: (0..arrivals).map(|_| AtomicU64::new(0)).collect(),
            written: AtomicU64::new(0),
            twice: AtomicU64::new(0),
        }
    }

    /// Starts the clock every record and every scheduled instant is read on (once; later calls do nothing).
    pub fn begin(&self, at: Instant) {
        let _ = self.start.set(at);
    }

    /// The clock's start (the instant of the first record, if [`Book::begin`] was never called).
    pub fn start(&self) -> Instant {
        *self.start.get_or_init(Instant::now)
    }

    /// Records that arrival `index` met `fate`, seen at `seen`. A second record of the same arrival is counted,
    /// not stored; an index beyond the book is counted the same way.
    pub fn record(&self, index: u64, fate: Fate, seen: Instant) {
        let us = u64::try_from(seen.saturating_duration_since(self.start()).as_micros()).unwrap_or(u64::MAX >> 4);
        let word = (us.min(u64::MAX >> 4) << 3) | fate.code();
        let slot = usize::try_from(index).ok().and_then(|i| self.slots.get(i));
        match slot.map(|s| s.compare_exchange(0, word, Ordering::AcqRel, Ordering::Acquire)) {
            Some(Ok(_)) => {
                self.written.fetch_add(1, Ordering::Release);
            }
            _ => {
                self.twice.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Arrivals recorded so far.
    pub fn written(&self) -> u64 {
        self.written.load(Ordering::Acquire)
    }

    /// Records refused because their arrival already had one (or did not exist).
    pub fn twice(&self) -> u64 {
        self.twice.load(Ordering::Relaxed)
    }

    /// Every arrival's record, in arrival order (`None`: never recorded).
    pub fn entries(&self) -> Vec<Option<Entry>> {
        self.slots
            .iter()
            .map(|s| {
                let word = s.load(Ordering::Acquire);
                Fate::from_code(word & 0b111).map(|fate| Entry { fate, seen_us: word >> 3 })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn each_arrival_keeps_its_first_record_and_a_second_is_counted() {
        let start = Instant::now();
        let book = Book::new(3);
        book.begin(start);
        book.record(0, Fate::Answered, start + Duration::from_micros(40));
        book.record(2, Fate::Shed, start + Duration::from_micros(7));
        book.record(2, Fate::Answered, start + Duration::from_micros(9));
        book.record(5, Fate::Answered, start);
        assert_eq!(book.written(), 2);
        assert_eq!(book.twice(), 2);
        let entries = book.entries();
        assert_eq!(entries[0], Some(Entry { fate: Fate::Answered, seen_us: 40 }));
        assert_eq!(entries[1], None);
        assert_eq!(entries[2], Some(Entry { fate: Fate::Shed, seen_us: 7 }));
    }
}
