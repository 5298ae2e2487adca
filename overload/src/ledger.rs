//! Every call's issue time, latency and outcome, in one lock-free slot per call, analysed after the run.
//!
//! Contestants only store into their call's slot (one relaxed `compare_exchange` per call, the same in both
//! families); percentiles, per-phase throughput, outstanding calls and the per-window series are all computed
//! afterwards, outside the timed window, so recording costs neither family a lock nor a histogram update, and a
//! slot written twice or never is caught exactly.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use dependency::{CallError, Dependency};

use crate::error::LedgerError;

/// Bit set in a slot once it is written.
const WRITTEN: u64 = 1 << 63;
/// Bit set when the call failed (the dependency rejected it or shut down).
const FAILED: u64 = 1 << 62;
/// Width of each time field (microseconds): 31 bits, about 35 minutes.
const FIELD_BITS: u32 = 31;
/// Mask of one time field.
const FIELD_MASK: u64 = (1 << FIELD_BITS) - 1;

/// One slot per call: when it was issued (admitted, for a gated call) and how long it took, from the caller's
/// point of view, and beside it how long the call waited at the gate.
#[derive(Debug)]
pub struct Ledger {
    origin: Instant,
    slots: Box<[AtomicU64]>,
    /// Microseconds each call waited at the gate before admission (0 for calls that had no gate).
    waits: Box<[AtomicU32]>,
    /// The gate's limit when each call was admitted (0 for calls that had no gate).
    limits: Box<[AtomicU32]>,
    /// Nanoseconds from the origin to each call's issue, and to the moment its caller saw it complete: the
    /// outstanding count is taken from these, so that two events a microsecond apart keep their order.
    issued_ns: Box<[AtomicU64]>,
    seen_ns: Box<[AtomicU64]>,
    /// Each gated call's place in its gate's admission order (0 without a gate): it orders two admissions that
    /// share a nanosecond.
    seqs: Box<[AtomicU64]>,
    wrong_answers: AtomicU64,
    duplicates: AtomicU64,
    out_of_range: AtomicU64,
}

/// What the caller saw of one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallRecord {
    /// Microseconds from the ledger's origin to the moment the caller issued the call.
    pub issued_us: u64,
    /// Microseconds from issue until the caller saw the call complete (dependency queue and wake-up included).
    pub latency_us: u64,
    /// The call failed (rejected by the dependency's queue limit, or the dependency shut down).
    pub failed: bool,
    /// Microseconds the caller waited at the gate before the call was admitted (0 without a gate).
    pub gate_wait_us: u64,
    /// The gate's limit when the call was admitted (0 without a gate).
    pub limit: u32,
    /// Nanoseconds from the ledger's origin to the issue.
    pub issued_ns: u64,
    /// Nanoseconds from the ledger's origin to the moment the caller saw the call complete.
    pub completed_ns: u64,
    /// Its place in the gate's admission order (0 without a gate).
    pub seq: u64,
}

impl CallRecord {
    /// Microseconds from the origin to the moment the caller saw the call complete.
    pub fn completed_us(&self) -> u64 {
        self.issued_us + self.latency_us
    }
}

impl Ledger {
    /// A ledger for calls `0..calls`, its clock starting now.
    pub fn new(calls: u64) -> Ledger {
        let slots = (0..calls).map(|_| AtomicU64::new(0)).collect();
        let waits = (0..calls).map(|_| AtomicU32::new(0)).collect();
        let limits = (0..calls).map(|_| AtomicU32::new(0)).collect();
        let zeros = || (0..calls).map(|_| AtomicU64::new(0)).collect();
        Ledger {
            origin: Instant::now(),
            slots,
            waits,
            limits,
            issued_ns: zeros(),
            seen_ns: zeros(),
            seqs: zeros(),
            wrong_answers: AtomicU64::new(0),
            duplicates: AtomicU64::new(0),
            out_of_range: AtomicU64::new(0),
        }
    }

    /// Microseconds from the ledger's origin to `at` (0 if earlier).
    pub fn offset_us(&self, at: Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.origin).as_micros()).unwrap_or(u64::MAX)
    }

    /// Record call `index`, issued at `issued` and seen complete at `seen` with `result`; a reply is checked
    /// against [`Dependency::answer`]. Returns whether the call succeeded (with the right answer or not).
    pub fn record(&self, index: u64, issued: Instant, seen: Instant, result: &Result<u64, CallError>) -> bool {
        let ok = match result {
            Ok(value) => {
                if *value != Dependency::answer(index) {
                    self.wrong_answers.fetch_add(1, Ordering::Relaxed);
                }
                true
            }
            Err(_) => false,
        };
        let issued_us = self.offset_us(issued).min(FIELD_MASK);
        let latency_us = u64::try_from(seen.saturating_duration_since(issued).as_micros()).unwrap_or(u64::MAX);
        let packed = WRITTEN | if ok { 0 } else { FAILED } | (issued_us << FIELD_BITS) | latency_us.min(FIELD_MASK);
        match usize::try_from(index).ok().and_then(|i| self.slots.get(i).map(|slot| (i, slot))) {
            Some((i, slot)) => {
                if slot.compare_exchange(0, packed, Ordering::Relaxed, Ordering::Relaxed).is_err() {
                    self.duplicates.fetch_add(1, Ordering::Relaxed);
                } else {
                    let ns = |at: Instant| u64::try_from(at.saturating_duration_since(self.origin).as_nanos());
                    self.issued_ns[i].store(ns(issued).unwrap_or(u64::MAX), Ordering::Relaxed);
                    self.seen_ns[i].store(ns(seen).unwrap_or(u64::MAX), Ordering::Relaxed);
                }
            }
            None => {
                self.out_of_range.fetch_add(1, Ordering::Relaxed);
            }
        }
        ok
    }

    /// Records how long call `index` waited at the gate before it was admitted (microseconds, saturating at
    /// about 71 minutes); an unknown index is ignored (its [`record`](Self::record) counts it).
    pub fn record_gate_wait(&self, index: u64, wait: Duration) {
        if let Some(slot) = usize::try_from(index).ok().and_then(|i| self.waits.get(i)) {
            slot.store(u32::try_from(wait.as_micros()).unwrap_or(u32::MAX), Ordering::Relaxed);
        }
    }

    /// Records how long call `index` waited at the gate, the gate's limit when it was admitted (saturating at
    /// `u32::MAX`) and its place in the gate's admission order; an unknown index is ignored.
    pub fn record_admission(&self, index: u64, wait: Duration, limit: usize, seq: u64) {
        self.record_gate_wait(index, wait);
        if let Some(i) = usize::try_from(index).ok().filter(|&i| i < self.limits.len()) {
            self.limits[i].store(u32::try_from(limit).unwrap_or(u32::MAX), Ordering::Relaxed);
            self.seqs[i].store(seq, Ordering::Relaxed);
        }
    }

    /// The record of call `index`, if it was written.
    pub fn get(&self, index: u64) -> Option<CallRecord> {
        self.decode_at(usize::try_from(index).ok()?)
    }

    /// Every written record, in call order.
    pub fn records(&self) -> Vec<CallRecord> {
        (0..self.slots.len()).filter_map(|i| self.decode_at(i)).collect()
    }

    fn decode_at(&self, i: usize) -> Option<CallRecord> {
        let raw = self.slots.get(i)?.load(Ordering::Relaxed);
        let mut record = decode(raw, self.waits[i].load(Ordering::Relaxed), self.limits[i].load(Ordering::Relaxed))?;
        record.issued_ns = self.issued_ns[i].load(Ordering::Relaxed);
        record.completed_ns = self.seen_ns[i].load(Ordering::Relaxed);
        record.seq = self.seqs[i].load(Ordering::Relaxed);
        Some(record)
    }

    /// Whether every call was recorded exactly once, each success with the right answer; the error says what
    /// went wrong.
    pub fn verify(&self) -> Result<(), LedgerError> {
        let missing = self.slots.iter().filter(|s| s.load(Ordering::Relaxed) == 0).count();
        let duplicates = self.duplicates.load(Ordering::Relaxed);
        let wrong = self.wrong_answers.load(Ordering::Relaxed);
        let out_of_range = self.out_of_range.load(Ordering::Relaxed);
        if missing == 0 && duplicates == 0 && wrong == 0 && out_of_range == 0 {
            Ok(())
        } else {
            Err(LedgerError::NotAllOnce { missing, duplicates, wrong, out_of_range, calls: self.slots.len() })
        }
    }

    /// Whether every call that was recorded was recorded once, each success with the right answer (calls never
    /// recorded are allowed: a cancelled run); the error says what went wrong.
    pub fn verify_delivered(&self) -> Result<(), LedgerError> {
        let duplicates = self.duplicates.load(Ordering::Relaxed);
        let wrong = self.wrong_answers.load(Ordering::Relaxed);
        let out_of_range = self.out_of_range.load(Ordering::Relaxed);
        if duplicates == 0 && wrong == 0 && out_of_range == 0 {
            Ok(())
        } else {
            Err(LedgerError::NotDeliveredOnce { duplicates, wrong, out_of_range })
        }
    }

    /// The ledger's origin.
    pub fn origin(&self) -> Instant {
        self.origin
    }
}

fn decode(raw: u64, wait_us: u32, limit: u32) -> Option<CallRecord> {
    (raw & WRITTEN != 0).then_some(CallRecord {
        issued_us: (raw >> FIELD_BITS) & FIELD_MASK,
        latency_us: raw & FIELD_MASK,
        failed: raw & FAILED != 0,
        gate_wait_us: u64::from(wait_us),
        limit,
        issued_ns: 0,
        completed_ns: 0,
        seq: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_recorded_call_reads_back_with_its_times() {
        let ledger = Ledger::new(3);
        let issued = ledger.origin() + Duration::from_micros(1_500);
        let seen = issued + Duration::from_micros(5_250);
        assert!(ledger.record(1, issued, seen, &Ok(Dependency::answer(1))));
        ledger.record_admission(1, Duration::from_micros(300), 40, 9);
        assert_eq!(
            ledger.get(1),
            Some(CallRecord {
                issued_us: 1_500,
                latency_us: 5_250,
                failed: false,
                gate_wait_us: 300,
                limit: 40,
                issued_ns: 1_500_000,
                completed_ns: 6_750_000,
                seq: 9,
            })
        );
        assert_eq!(ledger.get(0), None);
    }

    #[test]
    fn verification_names_missing_duplicate_and_wrong_calls() {
        let ledger = Ledger::new(3);
        let now = Instant::now();
        ledger.record(0, now, now, &Ok(Dependency::answer(0)));
        ledger.record(0, now, now, &Ok(Dependency::answer(0)));
        ledger.record(1, now, now, &Ok(Dependency::answer(1).wrapping_add(1)));
        ledger.record(7, now, now, &Ok(Dependency::answer(7)));
        let err = ledger.verify().expect_err("three problems").to_string();
        assert!(err.contains("1 calls never completed"), "{err}");
        assert!(err.contains("1 completed twice"), "{err}");
        assert!(err.contains("1 wrong answers"), "{err}");
        assert!(err.contains("1 unknown call numbers"), "{err}");
    }

    #[test]
    fn failures_are_recorded_and_counted() {
        let ledger = Ledger::new(2);
        let now = Instant::now();
        assert!(!ledger.record(0, now, now, &Err(CallError::Overloaded)));
        ledger.record(1, now, now, &Ok(Dependency::answer(1)));
        assert_eq!(ledger.records().iter().filter(|r| r.failed).count(), 1);
        assert!(ledger.verify().is_ok());
    }
}
