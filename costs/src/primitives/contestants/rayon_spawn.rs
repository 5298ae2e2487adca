//! `blocking-rayon-spawn-join`: `ThreadPool::scope` with one `spawn`; the scope returns once the job has run.

use std::hint::black_box;

use rayon::{ThreadPool, ThreadPoolBuilder};

use super::Primitive;

/// A rayon pool built once per trial.
#[derive(Debug)]
pub(crate) struct RayonSpawn {
    pool: ThreadPool,
}

impl RayonSpawn {
    pub(crate) fn new() -> Result<RayonSpawn, String> {
        let pool = ThreadPoolBuilder::new().build().map_err(|e| format!("cannot build the rayon pool: {e}"))?;
        Ok(RayonSpawn { pool })
    }
}

impl Primitive for RayonSpawn {
    fn run(&self, ops: u64) -> Result<u64, String> {
        let mut sum = 0u64;
        for i in 0..ops {
            let mut out = 0u64;
            self.pool.scope(|scope| scope.spawn(|_| out = black_box(i)));
            sum = sum.wrapping_add(out);
        }
        Ok(sum)
    }
}
