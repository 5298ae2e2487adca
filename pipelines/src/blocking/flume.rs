//! The flume flavor: `flume::bounded` with its synchronous (blocking) `send` and `recv`.

flavor! {
    /// Bounded flume channels used through the sync API (a mutex-protected queue; blocked threads park).
    pub struct Flume, name: "flume", api: "flume::bounded (sync send/recv)",
    ::flume { bounded, Sender, Receiver }, |e| e.into_inner()
}
