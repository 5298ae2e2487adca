//! One issued call, as admission queues it and the timer holds it in service: below both, so neither imports the
//! other for it.

use std::time::{Duration, Instant};

use crate::completion::Completer;

/// One issued call, waiting in the queue or in service.
#[derive(Debug)]
pub(crate) struct Call {
    /// 0-based issue index.
    pub(crate) seq: u64,
    /// What the caller passed; the reply is [`crate::Dependency::answer`] of it.
    pub(crate) input: u64,
    /// When it was issued.
    pub(crate) issued: Instant,
    /// Its service time ([`Config::service_time`] of `seq`).
    pub(crate) service: Duration,
    /// Completes the caller's [`crate::Completion`].
    pub(crate) completer: Completer,
}
