//! `blocking-rayon-spawn-join[-inside]`: a `scope` with one `spawn`, entered from outside the rayon pool on every
//! operation (`ThreadPool::scope` from the trial's thread) or from inside it (`rayon::scope` on a worker, within
//! one `ThreadPool::install`); the scope returns once the job has run.

use std::hint::black_box;

use rayon::{ThreadPool, ThreadPoolBuilder};

use super::Primitive;

/// A rayon pool built once per trial, entered from outside or inside.
#[derive(Debug)]
pub(crate) struct RayonSpawn {
    pool: ThreadPool,
    inside: bool,
}

impl RayonSpawn {
    pub(crate) fn new(inside: bool) -> Result<RayonSpawn, String> {
        let pool = ThreadPoolBuilder::new().build().map_err(|e| format!("cannot build the rayon pool: {e}"))?;
        Ok(RayonSpawn { pool, inside })
    }
}

impl Primitive for RayonSpawn {
    fn run(&self, ops: u64) -> Result<u64, String> {
        if self.inside {
            // Entered once; every scope then starts on a worker, as tokio's spawns start from a task.
            return Ok(self.pool.install(|| {
                let mut sum = 0u64;
                for i in 0..ops {
                    let mut out = 0u64;
                    rayon::scope(|scope| scope.spawn(|_| out = black_box(i)));
                    sum = sum.wrapping_add(out);
                }
                sum
            }));
        }
        let mut sum = 0u64;
        for i in 0..ops {
            let mut out = 0u64;
            self.pool.scope(|scope| scope.spawn(|_| out = black_box(i)));
            sum = sum.wrapping_add(out);
        }
        Ok(sum)
    }
}
