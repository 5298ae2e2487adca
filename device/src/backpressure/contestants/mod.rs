//! The backpressure scenario's contestants, in report order: the bounded shapes of both families, the two with
//! no admission at all, and `limit` `may` coroutines. Every construction is the crate's
//! ([`crate::contestants`]: names, families, roles and descriptions are written there once for both scenarios).

use crate::contestants::{BlockingShape, ChannelFlavor, Contestant, StreamShape, Timer};

/// Every backpressure contestant, in report order: the bounded stream shapes, the stream task per item with no
/// admission, the bounded blocking shapes, the thread per item with no admission, then `limit` `may` coroutines
/// (the coroutine family's bounded shape: one coroutine per allowed call). All call the shared device; no stream
/// contestant runs outside tokio's cooperative budget.
pub const CONTESTANTS: [Contestant; 11] = [
    Contestant::Stream { shape: StreamShape::Buffered, free: false, timer: Timer::Device },
    Contestant::Stream { shape: StreamShape::BufferUnordered, free: false, timer: Timer::Device },
    Contestant::Stream { shape: StreamShape::Tasks, free: false, timer: Timer::Device },
    Contestant::Stream { shape: StreamShape::ChannelWorkers, free: false, timer: Timer::Device },
    Contestant::Stream { shape: StreamShape::Unbounded, free: false, timer: Timer::Device },
    Contestant::Blocking { shape: BlockingShape::Pool, timer: Timer::Device },
    Contestant::Blocking { shape: BlockingShape::ChannelWorkers(ChannelFlavor::Crossbeam), timer: Timer::Device },
    Contestant::Blocking { shape: BlockingShape::ChannelWorkers(ChannelFlavor::Flume), timer: Timer::Device },
    Contestant::Blocking { shape: BlockingShape::ChannelWorkers(ChannelFlavor::Std), timer: Timer::Device },
    Contestant::Blocking { shape: BlockingShape::ThreadPerItem, timer: Timer::Device },
    Contestant::Coroutine { carriers: None, timer: Timer::Device },
];

/// The stream contestant with no admission control.
pub const STREAM_UNBOUNDED: &str = "stream-unbounded";

/// The blocking contestant with no admission control (a thread per item).
pub const BLOCKING_UNBOUNDED: &str = "blocking-unbounded";

/// Names of the bounded contestants, in report order.
pub(crate) fn bounded_names() -> Vec<String> {
    CONTESTANTS.iter().filter(|c| c.bounded()).map(Contestant::name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backpressure::BackpressureScenario;
    use measure::scenario::Scenario;

    #[test]
    fn contestant_names_are_unique_and_listed_in_order() {
        let mut names: Vec<String> = CONTESTANTS.iter().map(Contestant::name).collect();
        assert_eq!(names[4], STREAM_UNBOUNDED);
        assert_eq!(names[9], BLOCKING_UNBOUNDED);
        names.sort();
        names.dedup();
        assert_eq!(names.len(), CONTESTANTS.len());
        let infos = BackpressureScenario.contestants();
        assert_eq!(infos.len(), CONTESTANTS.len());
        assert!(infos.iter().all(|i| !i.description.is_empty()));
    }

    #[test]
    fn exactly_the_two_unbounded_contestants_are_unbounded() {
        let unbounded: Vec<String> = CONTESTANTS.iter().filter(|c| !c.bounded()).map(Contestant::name).collect();
        assert_eq!(unbounded, vec![STREAM_UNBOUNDED.to_string(), BLOCKING_UNBOUNDED.to_string()]);
        assert!(CONTESTANTS.iter().all(|c| c.timer() == Timer::Device));
        assert!(CONTESTANTS.iter().all(|c| !matches!(c, Contestant::Stream { free: true, .. })));
    }
}
