//! The flume flavor: `flume::bounded` with its synchronous (blocking) `send` and `recv`.

/// Bounded flume channels used through the sync API (a mutex-protected queue; blocked threads park).
#[derive(Debug, Clone, Copy, Default)]
pub struct Flume;

flavor!(
    Flume, name: "flume", api: "flume::bounded (sync send/recv)",
    ::flume { bounded, Sender, Receiver },
    |e| e.into_inner()
);
