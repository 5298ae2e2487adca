//! The standard-library flavor: `std::sync::mpsc::sync_channel` with blocking `send` and `recv`.

/// Bounded `std::sync::mpsc::sync_channel` channels (since Rust 1.67 a port of crossbeam-channel's array queue).
#[derive(Debug, Clone, Copy, Default)]
pub struct StdSync;

flavor!(
    StdSync, name: "std", api: "std::sync::mpsc::sync_channel",
    ::std::sync::mpsc { sync_channel, SyncSender, Receiver },
    |e| e.0
);
