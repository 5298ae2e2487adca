//! Type aliases that carry a unit in their name, so a signature says what a number means.

/// A duration or CPU time in nanoseconds.
pub type Nanos = u64;
/// A duration in microseconds.
pub type Micros = u64;
/// A size in bytes.
pub type Bytes = u64;
/// A count of items, calls or events.
pub type Count = u64;

/// Nanoseconds in one millisecond.
pub const NANOS_PER_MILLI: f64 = 1e6;
/// Bytes in one mebibyte.
pub const BYTES_PER_MIB: f64 = 1024.0 * 1024.0;
