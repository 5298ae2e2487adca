//! Every contestant of the tcp scenario: 64 persistent connections, batches of 256 exchanges, one outstanding
//! exchange per connection.
//!
//! - [`blocking_threads`] (`blocking-threads`): a std thread per connection, std `TcpStream`.
//! - [`tokio_tasks`] (`stream-tokio-tasks`): a tokio task per connection, tokio `TcpStream` — proper async I/O.
//! - [`trap_blocking_in_task`] (`trap-blocking-in-task`): tokio tasks making std blocking socket calls on the
//!   runtime's 1 worker.
//! - [`spawn_blocking`] (`stream-spawn-blocking`): the same calls inside `spawn_blocking`.
//! - [`block_in_place`] (`stream-block-in-place`): the same calls inside `block_in_place`.
//! - [`coroutine_may`] (`coroutine-may`): a `may` coroutine per connection on 1 carrier, `may::net::TcpStream`:
//!   blocking-style code whose waits park the coroutine.

pub mod block_in_place;
pub mod blocking_threads;
pub mod coroutine_may;
pub mod spawn_blocking;
pub mod tokio_tasks;
pub mod trap_blocking_in_task;

use measure::meter::Meter;
use measure::summary::{ContestantInfo, Family, Role};

use crate::error::NetworkError;
use crate::outcome::Outcome;
use crate::tasks;
use crate::tcp_exchange::TcpJob;

measure::registry! {
    /// A tcp contestant.
    TcpContestant {
        /// [`blocking_threads`].
        BlockingThreads => "blocking-threads",
        /// [`tokio_tasks`].
        TokioTasks => "stream-tokio-tasks",
        /// [`trap_blocking_in_task`].
        BlockingInTask => "trap-blocking-in-task",
        /// [`spawn_blocking`].
        SpawnBlocking => "stream-spawn-blocking",
        /// [`block_in_place`].
        BlockInPlace => "stream-block-in-place",
        /// [`coroutine_may`].
        CoroutineMay => "coroutine-may",
    }
}

impl TcpContestant {
    /// What it is, for `lab list` and the report.
    pub fn info(self) -> ContestantInfo {
        let coroutine = format!(
            "A `may` coroutine per persistent connection ({}), `may::net::TcpStream` `write_all` + `read_exact` \
             written in the blocking style (the coroutine parks, not its carrier); batches released and joined \
             over `may::sync::mpsc` channels.",
            crate::affinity::may_setup()
        );
        let (family, description) = match self {
            TcpContestant::BlockingThreads => (
                Family::Blocking,
                "A std thread per persistent connection, std `TcpStream` `write_all` + `read_exact`; batches \
                 released through a `std::sync::Barrier`; every connection thread shares the client's one core.",
            ),
            TcpContestant::TokioTasks => (
                Family::Stream,
                "A tokio task per persistent connection on a 1-worker multi-thread runtime, tokio `TcpStream` \
                 `write_all` + `read_exact`; batches released through `tokio::sync::Barrier`. Proper async I/O.",
            ),
            TcpContestant::BlockingInTask => (
                Family::Stream,
                "The trap: tokio tasks on 1 worker calling std `TcpStream` `write_all` + `read_exact` directly, \
                 so each call blocks the only worker for the server's delay: one exchange at a time. Runs at most 3 \
                 batches per iteration (they are serial); its rates are per batch and per exchange.",
            ),
            TcpContestant::SpawnBlocking => (
                Family::Stream,
                "Tokio tasks on 1 worker, each std `TcpStream` exchange inside `tokio::task::spawn_blocking` \
                 (one blocking-pool job per exchange; the pool's threads share the client's one core).",
            ),
            TcpContestant::BlockInPlace => (
                Family::Stream,
                "Tokio tasks on 1 worker, each std `TcpStream` exchange inside `tokio::task::block_in_place` \
                 (the worker's other tasks move to a new worker thread while it blocks; all share the client's one \
                 core).",
            ),
            TcpContestant::CoroutineMay => (Family::Coroutine, coroutine.as_str()),
        };
        // Blocking socket code called inside a task is the scenario's trap; `spawn_blocking` and `block_in_place`
        // are tokio's documented remedies for a blocking call (cats-effect's `IO.blocking` is their counterpart),
        // so they are candidates a user could adopt.
        let role = match self {
            TcpContestant::BlockingInTask => Role::Trap,
            TcpContestant::SpawnBlocking
            | TcpContestant::BlockInPlace
            | TcpContestant::BlockingThreads
            | TcpContestant::TokioTasks
            | TcpContestant::CoroutineMay => Role::Candidate,
        };
        ContestantInfo::new(self.name(), family, crate::affinity::described(description)).with_role(role)
    }

    /// The batches of an iteration when the scenario asks for `batches`: all of them, except for
    /// `trap-blocking-in-task`, which runs at most [`trap_blocking_in_task::MAX_BATCHES`] (its batches are serial,
    /// each ⌈exchanges ÷ workers⌉ server delays long; its rates are per batch and per exchange, so they compare).
    pub fn batches(self, batches: u64) -> u64 {
        match self {
            TcpContestant::BlockingInTask => batches.min(trap_blocking_in_task::MAX_BATCHES),
            _ => batches,
        }
    }

    /// Run `job` once, calling `go` when everything but the exchanges is ready.
    pub fn run<M: Meter>(self, job: &TcpJob<M>, go: &mut dyn FnMut()) -> Result<Outcome, NetworkError> {
        match self {
            TcpContestant::BlockingThreads => blocking_threads::run(job, go),
            TcpContestant::TokioTasks => tasks::run::<tokio_tasks::AsyncIo, M>(job, go),
            TcpContestant::BlockingInTask => tasks::run::<trap_blocking_in_task::Direct, M>(job, go),
            TcpContestant::SpawnBlocking => tasks::run::<spawn_blocking::SpawnBlocking, M>(job, go),
            TcpContestant::BlockInPlace => tasks::run::<block_in_place::BlockInPlace, M>(job, go),
            TcpContestant::CoroutineMay => coroutine_may::run(job, go),
        }
    }
}
