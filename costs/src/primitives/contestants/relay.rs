//! The one-shot hand-off every oneshot contestant runs (`stream-tokio-oneshot`, `blocking-std-channel`,
//! `coroutine-may-oneshot`): a relay between two units of the style (two tasks, two threads, two coroutines), each
//! operation a channel made for one value, sent by one unit while the other waits on it.
//!
//! Operation `n`: the unit whose turn it is makes a fresh channel for its own next wait, sends `n`'s value with
//! that channel's sender ([`Hop`]) through the channel the other unit made and is parked on, then waits on its
//! own. So every operation makes one channel, sends one value and wakes one parked receiver on another unit, as a
//! oneshot is used (a reply to a request, a result to whoever awaits it); the first channel is made before the
//! peer starts. A side whose channel closes without a value ends: the other side made the last operation, or
//! failed, and its error is the run's.

use std::hint::black_box;

use super::OpError;
use crate::work::Work;

/// One hand-off: operation `n`'s value, and the sender of the channel its sender made to wait on next.
pub(crate) struct Hop<Tx> {
    /// The operation.
    pub(crate) n: u64,
    /// Its value.
    pub(crate) value: u64,
    /// Where the receiver sends operation `n + 1`.
    pub(crate) next: Tx,
}

/// A side's turn: to send operation `n` through the other side's channel, or to wait on its own.
pub(crate) enum Turn<Tx, Rx> {
    /// Send operation `.0` through `.1`.
    Send(u64, Tx),
    /// Wait on this channel.
    Wait(Rx),
}

/// What a side does when it is its turn to send operation `n` through `to`: make the channel it waits on next
/// and send `n`'s value with its sender; the turn after (waiting on it), or why the run stops.
pub(crate) fn send_turn<W: Work, Tx, Rx>(
    n: u64,
    work: &W,
    channel: impl FnOnce() -> (Tx, Rx),
    send: impl FnOnce(Hop<Tx>) -> bool,
) -> Result<Rx, OpError> {
    if work.cancelled() {
        return Err(OpError::Cancelled(n));
    }
    let guard = work.start(n);
    let value = work.finish(n, black_box(n)).map_err(OpError::failed)?;
    let (next, wait) = channel();
    if !send(Hop { n, value, next }) {
        return Err(OpError::ReceiverGone(n));
    }
    drop(guard);
    Ok(wait)
}

/// A unit of a blocking style (an OS thread, a `may` coroutine) and its channel.
pub(crate) trait Blocking {
    /// A channel's sender.
    type Tx: Send + 'static;
    /// Its receiver.
    type Rx: Send + 'static;
    /// A fresh channel for one value.
    fn channel() -> (Self::Tx, Self::Rx);
    /// Send `hop`; `false` if the receiver is gone.
    fn send(to: Self::Tx, hop: Hop<Self::Tx>) -> bool;
    /// Wait for the one value (parks the thread or the coroutine); `None` if the sender was dropped.
    fn recv(wait: Self::Rx) -> Option<Hop<Self::Tx>>;
}

/// One side of the relay in a blocking style, from `turn` until `ops` operations are done: the sum of the values
/// it received.
pub(crate) fn blocking_side<B: Blocking, W: Work>(
    mut turn: Turn<B::Tx, B::Rx>,
    ops: u64,
    work: &W,
) -> Result<u64, OpError> {
    let mut sum = 0u64;
    loop {
        turn = match turn {
            Turn::Send(n, _) if n >= ops => return Ok(sum),
            Turn::Send(n, to) => Turn::Wait(send_turn(n, work, B::channel, |hop| B::send(to, hop))?),
            Turn::Wait(wait) => match B::recv(wait) {
                Some(hop) => {
                    sum = sum.wrapping_add(hop.value);
                    Turn::Send(hop.n + 1, hop.next)
                }
                None => return Ok(sum),
            },
        };
    }
}

/// The run's outcome from both sides': the sum of both, or the first error (the side that failed first; the
/// other then saw its channel close and ended cleanly).
pub(crate) fn combine(mine: Result<u64, OpError>, theirs: Result<u64, OpError>) -> Result<u64, OpError> {
    Ok(mine?.wrapping_add(theirs?))
}
