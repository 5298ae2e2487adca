//! What the dependency served: running counters ([`Stats`]) and a per-window timeline ([`Timeline`]) of the
//! concurrency it actually served, its queue length, its capacity and its completions, for charts.
//!
//! Both are kept by a recorder inside the dependency's one lock, updated at every event (issue, start,
//! completion, capacity change), so they are exact, not sampled.

use std::time::{Duration, Instant};

/// Counters since [`crate::Dependency::start`]. Every issued call is in exactly one of: completed, rejected,
/// injected, cancelled, in service, queued — so
/// `completed + rejected + injected + cancelled + in_service + queued == issued`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    /// Calls issued ([`crate::Dependency::call`]s), including rejected ones and ones made after shutdown.
    pub issued: u64,
    /// Calls whose timer fired and that completed with a [`crate::Reply`].
    pub completed: u64,
    /// Calls rejected with [`crate::CallError::Overloaded`] because the queue was at its limit.
    pub rejected: u64,
    /// Calls failed at once with [`crate::CallError::Injected`] ([`crate::Config::fail_inputs`]).
    pub injected: u64,
    /// Calls resolved with [`crate::CallError::ShutDown`]: pending at shutdown, or issued after it.
    pub cancelled: u64,
    /// Calls in service now.
    pub in_service: usize,
    /// Calls waiting in the FIFO queue now.
    pub queued: usize,
    /// Most calls ever in service at once.
    pub max_in_service: usize,
    /// Longest the queue has been.
    pub max_queued: usize,
    /// Most calls ever outstanding at once (in service plus queued).
    pub max_outstanding: usize,
    /// Starts of service made while in-service was already at or above the current capacity. The dependency
    /// never does this; a non-zero value is a bug.
    pub over_capacity_starts: u64,
    /// When the first scheduled capacity change applied, if one has.
    pub capacity_changed_at: Option<Instant>,
}

/// Per-window records since [`crate::Dependency::start`]: window `i` covers `[start + i·window, start + (i+1)·window)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timeline {
    /// Width of each window ([`crate::Config::window`]).
    pub window: Duration,
    /// One record per window, from the start up to the window holding the moment the timeline was taken (or
    /// the dependency shut down).
    pub windows: Vec<Window>,
}

/// What happened in one timeline window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Window {
    /// Most calls in service at once during the window (including what was in service as it began).
    pub max_in_service: usize,
    /// Longest the queue was during the window (including its length as the window began).
    pub max_queued: usize,
    /// The capacity in force at the end of the window (or at the moment the timeline was taken).
    pub capacity: usize,
    /// Calls that completed (timer fired) in the window.
    pub completed: u64,
    /// Calls issued in the window.
    pub issued: u64,
    /// Calls rejected in the window.
    pub rejected: u64,
}

/// The counters and the timeline, updated under the dependency's lock.
#[derive(Debug)]
pub(crate) struct Recorder {
    /// When the dependency started; window 0 begins here.
    start: Instant,
    window: Duration,
    window_ns: u128,
    pub(crate) stats: Stats,
    windows: Vec<Window>,
    /// When the dependency shut down: the timeline stops there.
    ended: Option<Instant>,
    /// In service and queued as of the last [`Recorder::observe`]: the state that windows without events carry.
    carried: (usize, usize),
}

impl Recorder {
    /// An empty recorder whose window 0 begins at `start`, with `capacity` in force.
    pub(crate) fn new(start: Instant, window: Duration, capacity: usize) -> Recorder {
        let stats = Stats {
            issued: 0,
            completed: 0,
            rejected: 0,
            injected: 0,
            cancelled: 0,
            in_service: 0,
            queued: 0,
            max_in_service: 0,
            max_queued: 0,
            max_outstanding: 0,
            over_capacity_starts: 0,
            capacity_changed_at: None,
        };
        let first = Window { capacity, ..Window::default() };
        Recorder {
            start,
            window,
            window_ns: window.as_nanos().max(1),
            stats,
            windows: vec![first],
            ended: None,
            carried: (0, 0),
        }
    }

    /// The window holding `at`, adding windows up to it; new windows carry the state of the last one
    /// (in service, queued and capacity do not change between events).
    pub(crate) fn window_at(&mut self, at: Instant) -> &mut Window {
        let index =
            usize::try_from(at.saturating_duration_since(self.start).as_nanos() / self.window_ns).unwrap_or(usize::MAX);
        extend(&mut self.windows, index, self.carried);
        let last = self.windows.len() - 1;
        &mut self.windows[last.min(index)]
    }

    /// Brings the maxima of the counters and of the window holding `at` up to date after an event that changed
    /// in service, queued or `capacity`.
    pub(crate) fn observe(&mut self, at: Instant, capacity: usize) {
        let stats = &mut self.stats;
        stats.max_in_service = stats.max_in_service.max(stats.in_service);
        stats.max_queued = stats.max_queued.max(stats.queued);
        stats.max_outstanding = stats.max_outstanding.max(stats.in_service + stats.queued);
        let (in_service, queued) = (stats.in_service, stats.queued);
        let window = self.window_at(at);
        window.max_in_service = window.max_in_service.max(in_service);
        window.max_queued = window.max_queued.max(queued);
        window.capacity = capacity;
        self.carried = (in_service, queued);
    }

    /// Marks the end of the timeline.
    pub(crate) fn end(&mut self, at: Instant) {
        self.ended.get_or_insert(at);
    }

    /// The timeline up to `now` (or to the end, if the dependency shut down), with `capacity` in force now.
    pub(crate) fn timeline(&self, now: Instant) -> Timeline {
        let until = self.ended.unwrap_or(now);
        let index = usize::try_from(until.saturating_duration_since(self.start).as_nanos() / self.window_ns)
            .unwrap_or(usize::MAX);
        let mut windows = self.windows.clone();
        extend(&mut windows, index, self.carried);
        Timeline { window: self.window, windows }
    }
}

/// Appends windows up to `index`, each carrying the state of the last one.
fn extend(windows: &mut Vec<Window>, index: usize, (in_service, queued): (usize, usize)) {
    if index < windows.len() {
        return;
    }
    let capacity = windows.last().map_or(0, |w| w.capacity);
    let carried =
        Window { max_in_service: in_service, max_queued: queued, capacity, completed: 0, issued: 0, rejected: 0 };
    windows.resize(index + 1, carried);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_carry_state_across_quiet_gaps() {
        let start = Instant::now();
        let ms = Duration::from_millis;
        let mut recorder = Recorder::new(start, ms(10), 4);
        recorder.stats.in_service = 3;
        recorder.stats.queued = 2;
        recorder.observe(start + ms(1), 4);
        recorder.window_at(start + ms(25)).completed += 1;
        recorder.stats.in_service = 2;
        recorder.observe(start + ms(25), 1);
        let timeline = recorder.timeline(start + ms(41));
        assert_eq!(timeline.windows.len(), 5);
        let w = &timeline.windows;
        assert_eq!((w[0].max_in_service, w[0].max_queued, w[0].capacity), (3, 2, 4));
        assert_eq!((w[1].max_in_service, w[1].max_queued, w[1].capacity, w[1].completed), (3, 2, 4, 0));
        assert_eq!((w[2].max_in_service, w[2].capacity, w[2].completed), (3, 1, 1));
        assert_eq!((w[4].max_in_service, w[4].max_queued, w[4].capacity), (2, 2, 1));
        assert_eq!((recorder.stats.max_in_service, recorder.stats.max_outstanding), (3, 5));
    }

    #[test]
    fn the_timeline_stops_at_the_end() {
        let start = Instant::now();
        let mut recorder = Recorder::new(start, Duration::from_millis(10), 1);
        recorder.end(start + Duration::from_millis(15));
        assert_eq!(recorder.timeline(start + Duration::from_secs(1)).windows.len(), 2);
    }
}
