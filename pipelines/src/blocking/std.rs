//! The standard-library flavor: `std::sync::mpsc::sync_channel` with blocking `send` and `recv`.

use super::Flavor;

/// Bounded `std::sync::mpsc::sync_channel` channels (since Rust 1.67 a port of crossbeam-channel's array queue).
#[derive(Debug, Clone, Copy, Default)]
pub struct StdSync;

impl Flavor for StdSync {
    const NAME: &'static str = "std";
    const API: &'static str = "std::sync::mpsc::sync_channel";
    type Sender<T: Send> = ::std::sync::mpsc::SyncSender<T>;
    type Receiver<T: Send> = ::std::sync::mpsc::Receiver<T>;

    fn bounded<T: Send>(capacity: usize) -> (Self::Sender<T>, Self::Receiver<T>) {
        ::std::sync::mpsc::sync_channel(capacity)
    }

    #[inline]
    fn send<T: Send>(tx: &Self::Sender<T>, value: T) -> Result<(), T> {
        tx.send(value).map_err(|e| e.0)
    }

    #[inline]
    fn recv<T: Send>(rx: &Self::Receiver<T>) -> Option<T> {
        rx.recv().ok()
    }
}
