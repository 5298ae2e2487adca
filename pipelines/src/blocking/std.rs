//! The standard-library flavor: `std::sync::mpsc::sync_channel` with blocking `send` and `recv`.

flavor! {
    /// Bounded `std::sync::mpsc::sync_channel` channels (since Rust 1.67 a port of crossbeam-channel's array queue).
    pub struct StdSync, name: "std", api: "std::sync::mpsc::sync_channel",
    ::std::sync::mpsc { sync_channel, SyncSender, Receiver }, |e| e.0
}
