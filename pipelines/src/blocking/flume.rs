//! The flume flavor: `flume::bounded` with its synchronous (blocking) `send` and `recv`.

use super::Flavor;

/// Bounded flume channels used through the sync API (a mutex-protected queue; blocked threads park).
#[derive(Debug, Clone, Copy, Default)]
pub struct Flume;

impl Flavor for Flume {
    const NAME: &'static str = "flume";
    const API: &'static str = "flume::bounded (sync send/recv)";
    type Sender<T: Send> = ::flume::Sender<T>;
    type Receiver<T: Send> = ::flume::Receiver<T>;

    fn bounded<T: Send>(capacity: usize) -> (Self::Sender<T>, Self::Receiver<T>) {
        ::flume::bounded(capacity)
    }

    #[inline]
    fn send<T: Send>(tx: &Self::Sender<T>, value: T) -> Result<(), T> {
        tx.send(value).map_err(|e| e.into_inner())
    }

    #[inline]
    fn recv<T: Send>(rx: &Self::Receiver<T>) -> Option<T> {
        rx.recv().ok()
    }
}
