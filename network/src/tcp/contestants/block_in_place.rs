//! `stream-block-in-place`: one tokio task per connection on 1 worker, each exchange a std `TcpStream`
//! `write_all` + `read_exact` inside `tokio::task::block_in_place`, which hands the worker's other tasks to a new
//! worker thread while this one blocks.

use std::net::SocketAddr;
use std::sync::Arc;

use crate::tasks::BlockingStyle;
use crate::tcp_exchange::{self, Fail};

/// The style: a std `TcpStream` inside `block_in_place`, which hands the worker's other tasks to a new worker.
#[derive(Debug, Clone, Copy)]
pub struct BlockInPlace;

impl BlockingStyle for BlockInPlace {
    async fn exchange(stream: &Arc<std::net::TcpStream>, addr: SocketAddr, seq: u64, conn: usize) -> Result<(), Fail> {
        tokio::task::block_in_place(|| tcp_exchange::exchange_std(stream, addr, seq, conn))
    }
}
