//! The crossbeam-channel flavor: `crossbeam_channel::bounded` with blocking `send` and `recv`.

use super::Flavor;

/// Bounded crossbeam-channel channels (an array-backed queue; blocked threads park after a short spin).
#[derive(Debug, Clone, Copy, Default)]
pub struct Crossbeam;

impl Flavor for Crossbeam {
    const NAME: &'static str = "crossbeam";
    const API: &'static str = "crossbeam_channel::bounded";
    type Sender<T: Send> = ::crossbeam_channel::Sender<T>;
    type Receiver<T: Send> = ::crossbeam_channel::Receiver<T>;

    fn bounded<T: Send>(capacity: usize) -> (Self::Sender<T>, Self::Receiver<T>) {
        ::crossbeam_channel::bounded(capacity)
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
