//! `stream-spawn-blocking`: one tokio task per connection on 1 worker, each exchange a std `TcpStream`
//! `write_all` + `read_exact` moved to tokio's blocking pool with `spawn_blocking` (one job per exchange).

use std::net::SocketAddr;
use std::sync::Arc;

use crate::tasks::BlockingStyle;
use crate::tcp_exchange::{self, Fail};
use crate::wire::WrongReply;

/// The style: a std `TcpStream` inside `spawn_blocking`, one blocking-pool job per exchange; the task awaits it.
#[derive(Debug, Clone, Copy)]
pub struct SpawnBlocking;

impl BlockingStyle for SpawnBlocking {
    async fn exchange(stream: &Arc<std::net::TcpStream>, addr: SocketAddr, seq: u64, conn: usize) -> Result<(), Fail> {
        let stream = Arc::clone(stream);
        tokio::task::spawn_blocking(move || tcp_exchange::exchange_std(&stream, addr, seq, conn)).await.unwrap_or_else(
            |e| Err(Fail::Wrong(WrongReply::Lost { what: "the blocking exchange", detail: e.to_string() })),
        )
    }
}
