//! `blocking-std-mutex`: lock an uncontended `std::sync::Mutex<u64>`, add the number, unlock.

use std::hint::black_box;
use std::sync::{Mutex, PoisonError};

use super::{cancelled, Primitive};
use crate::work::{Checked, Plain, Work};

/// The mutex, made once per trial.
#[derive(Debug, Default)]
pub(crate) struct MutexOp {
    total: Mutex<u64>,
}

impl MutexOp {
    fn run_with<W: Work>(&self, ops: u64, work: W) -> Result<u64, String> {
        *self.total.lock().unwrap_or_else(PoisonError::into_inner) = 0;
        for i in 0..ops {
            if work.cancelled() {
                return Err(cancelled(i));
            }
            let mut total = black_box(&self.total).lock().unwrap_or_else(PoisonError::into_inner);
            let guard = work.start(i);
            *total = total.wrapping_add(work.finish(i, black_box(i)).map_err(|e| e.to_string())?);
            drop(guard);
        }
        Ok(*self.total.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

impl Primitive for MutexOp {
    fn run(&self, ops: u64) -> Result<u64, String> {
        self.run_with(ops, Plain)
    }

    fn run_checked(&self, ops: u64, work: &Checked) -> Result<u64, String> {
        self.run_with(ops, work.clone())
    }
}
