//! The tokio runtimes stream contestants run on. A long-lived application builds its runtime once; so does a
//! trial (outside the timed window), and every iteration reuses it.
//!
//! Neither enables the I/O or time drivers: the pipelines here neither wait on sockets nor sleep, and a
//! driver would only add work when a worker parks.

use std::io;

use tokio::runtime::{Builder, Runtime};

/// A current-thread runtime: `block_on` polls the given future (and any spawned task) on the calling thread.
pub fn current_thread() -> io::Result<Runtime> {
    Builder::new_current_thread().thread_name("stream-current").build()
}

/// A multi-thread (work-stealing) runtime with tokio's default worker count: one per logical CPU, or
/// `TOKIO_WORKER_THREADS` when that is set.
pub fn multi_thread() -> io::Result<Runtime> {
    Builder::new_multi_thread().thread_name("stream-worker").build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_runtimes_run_a_future_to_completion() -> io::Result<()> {
        assert_eq!(current_thread()?.block_on(async { 1 + 1 }), 2);
        let rt = multi_thread()?;
        let handle = rt.spawn(async { 40 + 2 });
        assert_eq!(rt.block_on(handle).ok(), Some(42));
        Ok(())
    }
}
