//! `trap-blocking-in-task`: the trap — one tokio task per connection on 1 worker, each exchange a std
//! `TcpStream` `write_all` + `read_exact` called directly in the task, so a worker blocks for the server's delay
//! and only one exchange runs at a time (1 worker).

use std::net::SocketAddr;
use std::sync::Arc;

use crate::tasks::BlockingStyle;
use crate::tcp_exchange::{self, Fail};

/// The most batches an iteration of this contestant runs: its batches are serial (256 exchanges one after another
/// on the one worker, about 0.3–0.7 s each at a 1 ms delay), so the scenario's 30 would take 10–20 s per iteration.
pub const MAX_BATCHES: u64 = 3;

/// The style: a std `TcpStream`, blocking the worker directly.
#[derive(Debug, Clone, Copy)]
pub struct Direct;

impl BlockingStyle for Direct {
    async fn exchange(stream: &Arc<std::net::TcpStream>, addr: SocketAddr, seq: u64, conn: usize) -> Result<(), Fail> {
        tcp_exchange::exchange_std(stream, addr, seq, conn)
    }
}
