//! The device scenario's contestants, in report order, and the best of a family at one level: each stream
//! shape as it comes and unconstrained, the own-timer stream, the thread pools, then the `may` coroutine pools.
//! Every construction is the crate's ([`crate::contestants`]: names, families, roles and descriptions are
//! written there once for both scenarios).

use measure::summary::{metric_key, Family, MetricStats, Summary};

use super::HEADLINE;
use crate::contestants::{BlockingShape, Contestant, StreamShape, Timer};

/// Every device contestant, in report order: each stream shape as it comes and unconstrained (the
/// work-stealing runtime's, then thread-per-core: one current-thread runtime per core), the own-timer stream,
/// the thread pools, then the `may` coroutine pools (1 and 2 carriers on the device, 2 on their own timer: the
/// carrier sweep).
pub const CONTESTANTS: [Contestant; 17] = [
    Contestant::Stream { shape: StreamShape::Buffered, free: false, timer: Timer::Device },
    Contestant::Stream { shape: StreamShape::Buffered, free: true, timer: Timer::Device },
    Contestant::Stream { shape: StreamShape::BufferUnordered, free: false, timer: Timer::Device },
    Contestant::Stream { shape: StreamShape::BufferUnordered, free: true, timer: Timer::Device },
    Contestant::Stream { shape: StreamShape::PerWorkerUnordered, free: false, timer: Timer::Device },
    Contestant::Stream { shape: StreamShape::PerWorkerUnordered, free: true, timer: Timer::Device },
    Contestant::Stream { shape: StreamShape::ThreadPerCore, free: false, timer: Timer::Device },
    Contestant::Stream { shape: StreamShape::ThreadPerCore, free: true, timer: Timer::Device },
    Contestant::Stream { shape: StreamShape::Tasks, free: false, timer: Timer::Device },
    Contestant::Stream { shape: StreamShape::Tasks, free: true, timer: Timer::Device },
    Contestant::Stream { shape: StreamShape::BufferUnordered, free: false, timer: Timer::Own },
    Contestant::Stream { shape: StreamShape::BufferUnordered, free: true, timer: Timer::Own },
    Contestant::Blocking { shape: BlockingShape::Pool, timer: Timer::Device },
    Contestant::Blocking { shape: BlockingShape::Pool, timer: Timer::Own },
    Contestant::Coroutine { carriers: Some(1), timer: Timer::Device },
    Contestant::Coroutine { carriers: Some(2), timer: Timer::Device },
    Contestant::Coroutine { carriers: Some(2), timer: Timer::Own },
];

/// The contestants of `family` on the shared device, in report order.
pub(crate) fn on_device(family: Family) -> Vec<String> {
    CONTESTANTS.iter().filter(|c| c.family() == family && c.timer() == Timer::Device).map(Contestant::name).collect()
}

/// The coroutine contestant on `may`'s own timer.
pub(crate) fn own_timer_coroutine() -> Option<String> {
    CONTESTANTS.iter().find(|c| c.family() == Family::Coroutine && c.timer() == Timer::Own).map(Contestant::name)
}

/// The contestant of `family` waiting on `timer` with the highest median throughput at `phase`.
pub(crate) fn best<'s>(
    summary: &'s Summary,
    family: Family,
    timer: Timer,
    phase: &str,
) -> Option<(String, &'s MetricStats)> {
    CONTESTANTS
        .iter()
        .filter(|c| c.family() == family && c.timer() == timer)
        .filter_map(|c| summary.metric(&c.name(), &metric_key(Some(phase), HEADLINE)).map(|s| (c.name(), s)))
        .max_by(|a, b| a.1.median.total_cmp(&b.1.median))
}
