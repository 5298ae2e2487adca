//! `stream-block-in-place`: one tokio task per connection on 1 worker, each exchange a std `TcpStream`
//! `write_all` + `read_exact` inside `tokio::task::block_in_place`, which hands the worker's other tasks to a new
//! worker thread while this one blocks.

use std::net::SocketAddr;
use std::sync::Arc;

use measure::meter::Meter;

use crate::error::NetworkError;
use crate::outcome::Outcome;
use crate::tasks::{self, Style};
use crate::tcp_exchange::{self, Fail, TcpJob};

/// Run `job`, calling `go` once every connection is open.
pub fn run<M: Meter>(job: &TcpJob<M>, go: &mut dyn FnMut()) -> Result<Outcome, NetworkError> {
    tasks::run::<BlockInPlace, M>(job, go)
}

/// One exchange inside `block_in_place`.
pub fn exchange(stream: &Arc<std::net::TcpStream>, addr: SocketAddr, seq: u64, conn: usize) -> Result<(), Fail> {
    tokio::task::block_in_place(|| tcp_exchange::exchange_std(stream, addr, seq, conn))
}

/// The style: a std `TcpStream` inside `block_in_place`, which hands the worker's other tasks to a new worker.
#[derive(Debug, Clone, Copy)]
pub struct BlockInPlace;

impl Style for BlockInPlace {
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
        exchange(conn, addr, seq, index)
    }
}
