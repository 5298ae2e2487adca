//! `blocking-rayon-spawn-join[-inside]`: a `scope` with one `spawn`, entered from outside the rayon pool on every
//! operation (`ThreadPool::scope` from the trial's thread) or from inside it (`rayon::scope` on a worker, within
//! one `ThreadPool::install`); the scope returns once the job has run.

use std::hint::black_box;

use rayon::{ThreadPool, ThreadPoolBuilder};

use super::{OpError, Operation};
use crate::work::Work;

/// A rayon pool built once per trial, entered from outside or inside.
#[derive(Debug)]
pub(crate) struct RayonSpawn {
    pool: ThreadPool,
    inside: bool,
}

impl RayonSpawn {
    pub(crate) fn new(inside: bool) -> Result<RayonSpawn, OpError> {
        Ok(RayonSpawn { pool: ThreadPoolBuilder::new().build().map_err(OpError::Pool)?, inside })
    }
}

impl Operation for RayonSpawn {
    fn run_with<W: Work>(&self, ops: u64, work: W) -> Result<u64, OpError> {
        // One operation: a scope with one job storing its number; a job's panic is resumed by the scope on the
        // thread that entered it, as rayon surfaces it.
        let op = |i: u64| -> Result<u64, OpError> {
            let guard = work.start(i);
            let mut out = Ok(0u64);
            let job = |_: &rayon::Scope<'_>| {
                let _guard = guard;
                out = work.finish(i, black_box(i));
            };
            if self.inside {
                rayon::scope(|scope| scope.spawn(job));
            } else {
                self.pool.scope(|scope| scope.spawn(job));
            }
            out.map_err(OpError::failed)
        };
        let all = || {
            let mut sum = 0u64;
            for i in 0..ops {
                if work.cancelled() {
                    return Err(OpError::Cancelled(i));
                }
                sum = sum.wrapping_add(op(i)?);
            }
            Ok(sum)
        };
        if self.inside {
            // Entered once; every scope then starts on a worker, as tokio's spawns start from a task.
            return self.pool.install(all);
        }
        all()
    }
}
