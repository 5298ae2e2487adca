//! `stream-spawn-blocking`: one tokio task per connection on 1 worker, each exchange a std `TcpStream`
//! `write_all` + `read_exact` moved to tokio's blocking pool with `spawn_blocking` (one job per exchange).

use std::net::SocketAddr;
use std::sync::Arc;

use measure::meter::Meter;

use crate::error::NetworkError;
use crate::outcome::Outcome;
use crate::tasks::{self, Style};
use crate::tcp_exchange::{self, Fail, TcpJob};
use crate::wire::WrongReply;

/// Run `job`, calling `go` once every connection is open.
pub fn run<M: Meter>(job: &TcpJob<M>, go: &mut dyn FnMut()) -> Result<Outcome, NetworkError> {
    tasks::run::<SpawnBlocking, M>(job, go)
}

/// One exchange on a blocking-pool thread; the task awaits it.
pub async fn exchange(stream: &Arc<std::net::TcpStream>, addr: SocketAddr, seq: u64, conn: usize) -> Result<(), Fail> {
    let stream = Arc::clone(stream);
    tokio::task::spawn_blocking(move || tcp_exchange::exchange_std(&stream, addr, seq, conn))
        .await
        .unwrap_or_else(|e| Err(Fail::Wrong(WrongReply::Lost { what: "the blocking exchange", detail: e.to_string() })))
}

/// The style: a std `TcpStream` inside `spawn_blocking`, one blocking-pool job per exchange.
#[derive(Debug, Clone, Copy)]
pub struct SpawnBlocking;

impl Style for SpawnBlocking {
    type Conn = Arc<std::net::TcpStream>;

    async fn connect(addr: SocketAddr) -> Result<Self::Conn, NetworkError> {
        tasks::connect_std(addr).await
    }

    async fn exchange(
        conn: &mut Self::Conn,
        addr: SocketAddr,
        seq: u64,
        index: usize,
    ) -> Result<(), tcp_exchange::Fail> {
        exchange(conn, addr, seq, index).await
    }
}
