//! The crossbeam-channel flavor: `crossbeam_channel::bounded` with blocking `send` and `recv`.

flavor! {
    /// Bounded crossbeam-channel channels (an array-backed queue; blocked threads park after a short spin).
    pub struct Crossbeam, name: "crossbeam", api: "crossbeam_channel::bounded",
    ::crossbeam_channel { bounded, Sender, Receiver }, |e| e.into_inner()
}
