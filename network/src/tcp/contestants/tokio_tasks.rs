//! `stream-tokio-tasks`: one tokio task per persistent connection on a 1-worker multi-thread runtime, each
//! exchange a tokio `TcpStream` `write_all` + `read_exact` (the task yields while the socket is not ready).

use std::net::SocketAddr;

use crate::error::NetworkError;
use crate::tasks::Style;
use crate::tcp_exchange;

/// The style: a tokio `TcpStream`, the task yielding while the socket is not ready.
#[derive(Debug, Clone, Copy)]
pub struct AsyncIo;

impl Style for AsyncIo {
    type Conn = tokio::net::TcpStream;

    async fn connect(addr: SocketAddr) -> Result<Self::Conn, NetworkError> {
        tcp_exchange::connect_tokio(addr).await
    }

    async fn exchange(
        conn: &mut Self::Conn,
        addr: SocketAddr,
        seq: u64,
        index: usize,
    ) -> Result<(), tcp_exchange::Fail> {
        tcp_exchange::exchange_tokio(conn, addr, seq, index).await
    }
}
