//! The crossbeam-channel flavor: `crossbeam_channel::bounded` with blocking `send` and `recv`.

/// Bounded crossbeam-channel channels (an array-backed queue; blocked threads park after a short spin).
#[derive(Debug, Clone, Copy, Default)]
pub struct Crossbeam;

flavor!(
    Crossbeam, name: "crossbeam", api: "crossbeam_channel::bounded",
    ::crossbeam_channel { bounded, Sender, Receiver },
    |e| e.into_inner()
);
