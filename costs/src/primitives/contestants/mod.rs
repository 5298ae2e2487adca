//! Every contestant of the primitives scenario: one operation each, in its own file; [`Contestant`] is the
//! registry.
//!
//! | name | one operation |
//! |---|---|
//! | `stream-tokio-spawn-join` | `tokio::spawn` a task that returns its number, and await its `JoinHandle`, from a task on a multi-thread runtime |
//! | `blocking-thread-spawn-join` | `std::thread::spawn` a thread that returns its number, and `join` it |
//! | `blocking-rayon-spawn-join` | `rayon::ThreadPool::scope` with one `spawn` that stores its number: the scope returns once the job has run |
//! | `stream-tokio-semaphore` | acquire and drop one permit of an uncontended `tokio::sync::Semaphore` |
//! | `blocking-std-mutex` | lock and unlock an uncontended `std::sync::Mutex<u64>`, adding the number |
//! | `stream-tokio-oneshot` | make a `tokio::sync::oneshot`, send the number, await it |
//! | `blocking-std-channel` | send the number into a `std::sync::mpsc::sync_channel(1)` and `recv` it on the same thread |
//!
//! Every operation hands back the number of the operation, so a run proves it did every operation once: the sum
//! of `0..ops`. Spawning a thread costs tens of microseconds, so the thread contestant does
//! [`Contestant::ops_divisor`] times fewer operations; every figure is per operation.

mod mutex;
mod rayon_spawn;
mod semaphore;
mod std_channel;
mod thread_spawn;
mod tokio_oneshot;
mod tokio_spawn;

use std::fmt;

use measure::summary::{ContestantInfo, Family};

/// One kind of operation, ready to run many times.
pub trait Primitive: Send + fmt::Debug {
    /// Do the operation `ops` times, numbered `0..ops`; the wrapping sum of the numbers handed back.
    fn run(&self, ops: u64) -> Result<u64, String>;
}

/// The contestants, in report order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contestant {
    /// `stream-tokio-spawn-join`.
    TokioSpawn,
    /// `blocking-thread-spawn-join`.
    ThreadSpawn,
    /// `blocking-rayon-spawn-join`.
    RayonSpawn,
    /// `stream-tokio-semaphore`.
    Semaphore,
    /// `blocking-std-mutex`.
    Mutex,
    /// `stream-tokio-oneshot`.
    TokioOneshot,
    /// `blocking-std-channel`.
    StdChannel,
}

impl Contestant {
    /// Every contestant, in report order.
    pub const ALL: [Contestant; 7] = [
        Contestant::TokioSpawn,
        Contestant::ThreadSpawn,
        Contestant::RayonSpawn,
        Contestant::Semaphore,
        Contestant::Mutex,
        Contestant::TokioOneshot,
        Contestant::StdChannel,
    ];

    /// The contestant named `name`.
    pub fn find(name: &str) -> Option<Contestant> {
        Contestant::ALL.into_iter().find(|c| c.info().name == name)
    }

    /// How many times fewer operations than `ops` it does (spawning a thread costs tens of microseconds).
    pub fn ops_divisor(&self) -> u64 {
        match self {
            Contestant::ThreadSpawn => 20,
            _ => 1,
        }
    }

    /// Name, family and one line saying exactly what one operation is.
    pub fn info(&self) -> ContestantInfo {
        let (name, family, description) = match self {
            Contestant::TokioSpawn => (
                "stream-tokio-spawn-join",
                Family::Stream,
                "`tokio::spawn` of a task returning its number, then `.await` on the `JoinHandle`, from a task on a \
                 multi-thread runtime (one worker per core) built once per trial",
            ),
            Contestant::ThreadSpawn => (
                "blocking-thread-spawn-join",
                Family::Blocking,
                "`std::thread::spawn` of a thread returning its number (default stack), then `join`; 20× fewer \
                 operations than the others",
            ),
            Contestant::RayonSpawn => (
                "blocking-rayon-spawn-join",
                Family::Blocking,
                "`ThreadPool::scope` with one `spawn` storing its number, on a rayon pool (one thread per core) \
                 built once per trial: the scope returns once the job has run",
            ),
            Contestant::Semaphore => (
                "stream-tokio-semaphore",
                Family::Stream,
                "`Semaphore::acquire().await` and drop of the permit, uncontended, inside `block_on` of a \
                 current-thread runtime",
            ),
            Contestant::Mutex => (
                "blocking-std-mutex",
                Family::Blocking,
                "`std::sync::Mutex<u64>::lock`, add the number, unlock; uncontended",
            ),
            Contestant::TokioOneshot => (
                "stream-tokio-oneshot",
                Family::Stream,
                "`tokio::sync::oneshot::channel`, `send` of the number, `.await` of the receiver, inside `block_on` \
                 of a current-thread runtime",
            ),
            Contestant::StdChannel => (
                "blocking-std-channel",
                Family::Blocking,
                "`std::sync::mpsc::sync_channel(1)` made once, `send` of the number and `recv` on the same thread",
            ),
        };
        ContestantInfo::new(name, family, description)
    }

    /// Build what the operation needs (a runtime, a pool), outside any timing.
    pub fn prepare(&self) -> Result<Box<dyn Primitive>, String> {
        Ok(match self {
            Contestant::TokioSpawn => Box::new(tokio_spawn::TokioSpawn::new()?),
            Contestant::ThreadSpawn => Box::new(thread_spawn::ThreadSpawn),
            Contestant::RayonSpawn => Box::new(rayon_spawn::RayonSpawn::new()?),
            Contestant::Semaphore => Box::new(semaphore::SemaphoreOp::new()?),
            Contestant::Mutex => Box::new(mutex::MutexOp::default()),
            Contestant::TokioOneshot => Box::new(tokio_oneshot::Oneshot::new()?),
            Contestant::StdChannel => Box::new(std_channel::StdChannel),
        })
    }
}

/// A tokio runtime, or why it could not be built.
pub(crate) fn runtime(current_thread: bool) -> Result<tokio::runtime::Runtime, String> {
    let mut builder = if current_thread {
        tokio::runtime::Builder::new_current_thread()
    } else {
        tokio::runtime::Builder::new_multi_thread()
    };
    builder.build().map_err(|e| format!("cannot build the runtime: {e}"))
}
