//! `blocking-std-mutex`: lock an uncontended `std::sync::Mutex<u64>`, add the number, unlock.

use std::hint::black_box;
use std::sync::{Mutex, PoisonError};

use super::{OpError, Operation};
use crate::work::Work;

/// The mutex, made once per trial.
#[derive(Debug, Default)]
pub(crate) struct MutexOp {
    total: Mutex<u64>,
}

impl Operation for MutexOp {
    fn run_with<W: Work>(&self, ops: u64, work: W) -> Result<u64, OpError> {
        *self.total.lock().unwrap_or_else(PoisonError::into_inner) = 0;
        for i in 0..ops {
            if work.cancelled() {
                return Err(OpError::Cancelled(i));
            }
            let mut total = black_box(&self.total).lock().unwrap_or_else(PoisonError::into_inner);
            let guard = work.start(i);
            *total = total.wrapping_add(work.finish(i, black_box(i)).map_err(OpError::failed)?);
            drop(guard);
        }
        Ok(*self.total.lock().unwrap_or_else(PoisonError::into_inner))
    }
}
