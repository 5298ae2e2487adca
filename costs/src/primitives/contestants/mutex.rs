//! `blocking-std-mutex`: lock an uncontended `std::sync::Mutex<u64>`, add the number, unlock.

use std::hint::black_box;
use std::sync::{Mutex, PoisonError};

use super::Primitive;

/// The mutex, made once per trial.
#[derive(Debug, Default)]
pub(crate) struct MutexOp {
    total: Mutex<u64>,
}

impl Primitive for MutexOp {
    fn run(&self, ops: u64) -> Result<u64, String> {
        *self.total.lock().unwrap_or_else(PoisonError::into_inner) = 0;
        for i in 0..ops {
            let mut total = black_box(&self.total).lock().unwrap_or_else(PoisonError::into_inner);
            *total = total.wrapping_add(black_box(i));
        }
        Ok(*self.total.lock().unwrap_or_else(PoisonError::into_inner))
    }
}
