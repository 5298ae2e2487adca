//! A simulated remote dependency, shared by the overload, device and backpressure scenarios so that the
//! blocking and the async families call exactly the same thing.
//!
//! It has `capacity` concurrent slots ([`Config::capacity`], default 500), a service time per call
//! ([`Config::service`], default 5 ms, with optional [`Config::jitter`]), a FIFO queue for calls beyond
//! capacity (so latency includes time queued in the dependency), an optional queue limit, and a capacity
//! schedule applied as calls are issued. Its timers run on its own threads ([`Config::timer_threads`],
//! default 2), identical for every contestant, precise to tens of microseconds and never early.
//!
//! [`Dependency::call`] returns a [`Completion`]: one type that a blocking caller [`Completion::wait`]s on
//! (parking the thread) and an async caller `.await`s (storing its waker); the timer thread wakes either the
//! same way.
//!
//! ```
//! use dependency::{Config, Dependency};
//! use std::time::Duration;
//!
//! let dep = Dependency::start(Config { capacity: 2, service: Duration::from_millis(1), ..Config::default() })?;
//! let blocking = dep.call(7).wait().expect("served");
//! assert_eq!(blocking.value, Dependency::answer(7));
//! assert!(blocking.finished - blocking.started >= Duration::from_millis(1));
//! let awaited = futures::executor::block_on(dep.call(8)).expect("served");
//! assert_eq!(awaited.value, Dependency::answer(8));
//! assert_eq!(dep.stats().completed, 2);
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! Modules: [`config`] (what it is), [`completion`] (what a call returns), [`stats`] (what it served); inside,
//! `admission` (slots, queue, schedule under one lock), `timer` (per-thread deadline heaps and the timer loop),
//! `cpu` (the timer threads' CPU clocks) and `dependency` (the handle); [`waiter`] parks and wakes a caller of
//! any family.
#![warn(missing_docs)]

mod admission;
mod call;
pub mod completion;
pub mod config;
mod cpu;
mod dependency;
pub mod stats;
mod timer;
pub mod waiter;

use std::sync::{Mutex, MutexGuard, PoisonError};

pub use completion::{CallError, CallResult, Completer, Completion, Reply};
pub use config::{CapacityChange, Config};
pub use dependency::Dependency;
pub use stats::{Stats, Timeline, Window};

/// Locks `mutex`, ignoring poisoning: no code that runs under the dependency's locks can leave them
/// inconsistent by panicking (user code, such as a waker, runs outside them).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
