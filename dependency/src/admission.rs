//! Admission: the dependency's slots, its FIFO queue and its capacity schedule, behind the one lock that
//! callers and timer threads share. Every decision to start service is made here, and only while
//! in-service is below the current capacity.

use std::collections::VecDeque;
use std::time::Instant;

use crate::call::Call;
use crate::completion::{CallError, Completer};
use crate::config::{CapacityChange, Config};
use crate::stats::{Recorder, Stats};
use crate::timer::{InService, Shard};

/// Which timer threads must be woken after an admission, once the lock is released.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Notify {
    /// None: the new deadlines are later than what every affected thread sleeps until.
    Nobody,
    /// The timer thread of this shard.
    One(usize),
    /// Every timer thread (several calls started at once, after a capacity increase).
    All,
}

/// What to do, once the lock is released, after issuing a call.
#[derive(Debug)]
pub(crate) struct Admission {
    /// Timer threads to wake (for this call, or for queued calls that a capacity increase started).
    pub(crate) notify: Notify,
    /// The call was not admitted: complete it with this error.
    pub(crate) refused: Option<(Completer, CallError)>,
}

/// The shared state of the dependency.
#[derive(Debug)]
pub(crate) struct Core {
    capacity: usize,
    queue: VecDeque<Call>,
    schedule: Vec<CapacityChange>,
    next_change: usize,
    queue_limit: Option<usize>,
    /// Shard that the next call started by a caller goes to (round robin).
    next_shard: usize,
    shut_down: bool,
    /// Counters and timeline; `recorder.stats.in_service` and `.queued` are the authoritative counts.
    pub(crate) recorder: Recorder,
}

impl Core {
    /// The state of a dependency that started at `start`.
    pub(crate) fn new(config: &Config, start: Instant) -> Core {
        Core {
            capacity: config.capacity,
            queue: VecDeque::new(),
            schedule: config.schedule.clone(),
            next_change: 0,
            queue_limit: config.queue_limit,
            next_shard: 0,
            shut_down: false,
            recorder: Recorder::new(start, config.window, config.capacity),
        }
    }

    /// The current capacity.
    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    /// The counters so far.
    pub(crate) fn stats(&self) -> Stats {
        self.recorder.stats
    }

    /// Issues a call made at `issued`: applies the schedule's changes due at its index, then starts it (if a
    /// slot is free and nobody queues before it), queues it, or refuses it (queue at its limit, or shut down).
    pub(crate) fn issue(
        &mut self,
        input: u64,
        issued: Instant,
        completer: Completer,
        config: &Config,
        shards: &[Shard],
    ) -> Admission {
        let seq = self.recorder.stats.issued;
        self.recorder.stats.issued += 1;
        self.recorder.window_at(issued).issued += 1;
        if self.shut_down {
            self.recorder.stats.cancelled += 1;
            return Admission { notify: Notify::Nobody, refused: Some((completer, CallError::ShutDown)) };
        }
        let now = Instant::now();
        let mut notify = self.apply_schedule(seq, now, shards);
        if !config.fail_inputs.is_empty() && config.fail_inputs.contains(&input) {
            self.recorder.stats.injected += 1;
            return Admission { notify, refused: Some((completer, CallError::Injected)) };
        }
        let call = Call { seq, input, issued, service: config.service_time(seq), completer };
        if self.queue.is_empty() && self.recorder.stats.in_service < self.capacity {
            let shard = self.next_shard;
            self.next_shard = (shard + 1) % shards.len();
            if self.start(call, now, &shards[shard]) {
                notify = match notify {
                    Notify::Nobody => Notify::One(shard),
                    Notify::One(other) if other == shard => Notify::One(shard),
                    _ => Notify::All,
                };
            }
        } else if self.queue_limit.is_some_and(|limit| self.queue.len() >= limit) {
            self.recorder.stats.rejected += 1;
            self.recorder.window_at(now).rejected += 1;
            return Admission { notify, refused: Some((call.completer, CallError::Overloaded)) };
        } else {
            self.queue.push_back(call);
            self.recorder.stats.queued += 1;
        }
        self.recorder.observe(now, self.capacity);
        Admission { notify, refused: None }
    }

    /// Applies every scheduled change due by call `seq`; if capacity grew, starts queued calls into the free
    /// slots.
    fn apply_schedule(&mut self, seq: u64, now: Instant, shards: &[Shard]) -> Notify {
        let mut changed = false;
        while let Some(change) = self.schedule.get(self.next_change).filter(|change| change.at_call <= seq) {
            self.capacity = change.capacity;
            self.next_change += 1;
            changed = true;
            self.recorder.stats.capacity_changed_at.get_or_insert(now);
        }
        if !changed {
            return Notify::Nobody;
        }
        self.start_queued(now, shards)
    }

    /// Sets the capacity to `capacity` now, whatever the schedule says (the schedule's later changes still
    /// apply at their calls), records the first change's time as a scheduled change does, and starts queued
    /// calls into any slots it freed. Ignored after shutdown.
    pub(crate) fn set_capacity(&mut self, capacity: usize, now: Instant, shards: &[Shard]) -> Notify {
        if self.shut_down {
            return Notify::Nobody;
        }
        self.capacity = capacity;
        self.recorder.stats.capacity_changed_at.get_or_insert(now);
        self.start_queued(now, shards)
    }

    /// Starts queued calls while slots are free (after a change of capacity); returns whom to notify.
    fn start_queued(&mut self, now: Instant, shards: &[Shard]) -> Notify {
        let mut notify = Notify::Nobody;
        while self.recorder.stats.in_service < self.capacity {
            let Some(call) = self.queue.pop_front() else { break };
            self.recorder.stats.queued -= 1;
            let shard = self.next_shard;
            self.next_shard = (shard + 1) % shards.len();
            if self.start(call, now, &shards[shard]) {
                notify = Notify::All;
            }
        }
        self.recorder.observe(now, self.capacity);
        notify
    }

    /// Frees the slots of `finished` calls whose timers fired at `fired`, counts them completed, and starts
    /// queued calls while slots are free, into `shard` (the caller's own shard, whose thread is awake).
    pub(crate) fn release(&mut self, finished: usize, fired: Instant, shard: &Shard) {
        let stats = &mut self.recorder.stats;
        stats.in_service -= finished;
        stats.completed += finished as u64;
        self.recorder.window_at(fired).completed += finished as u64;
        if !self.queue.is_empty() && self.recorder.stats.in_service < self.capacity {
            // Sampled under the lock, so later than the issue of every queued call.
            let now = Instant::now();
            while self.recorder.stats.in_service < self.capacity {
                let Some(call) = self.queue.pop_front() else { break };
                self.recorder.stats.queued -= 1;
                // The shard's own thread runs this: it is awake and needs no notification.
                let _ = self.start(call, now, shard);
            }
            self.recorder.observe(now, self.capacity);
        } else {
            self.recorder.observe(fired, self.capacity);
        }
    }

    /// Starts service of `call` at `now` into `shard`. Returns whether the shard's thread must be notified.
    fn start(&mut self, call: Call, now: Instant, shard: &Shard) -> bool {
        let stats = &mut self.recorder.stats;
        if stats.in_service >= self.capacity {
            stats.over_capacity_starts += 1;
        }
        stats.in_service += 1;
        let deadline = now + call.service;
        shard.push(InService { deadline, started: now, call })
    }

    /// Shuts down admission at `now`: returns every queued call and every call still pending in `shards`, to
    /// be completed with [`CallError::ShutDown`]. Idempotent (later calls return nothing).
    pub(crate) fn shut_down(&mut self, now: Instant, shards: &[Shard]) -> Vec<Completer> {
        if self.shut_down {
            return Vec::new();
        }
        self.shut_down = true;
        self.recorder.end(now);
        let mut cancelled: Vec<Completer> = self.queue.drain(..).map(|call| call.completer).collect();
        let queued = cancelled.len();
        let stats = &mut self.recorder.stats;
        stats.queued -= queued;
        for shard in shards {
            let pending = shard.close();
            stats.in_service -= pending.len();
            cancelled.extend(pending.into_iter().map(|entry| entry.call.completer));
        }
        stats.cancelled += cancelled.len() as u64;
        self.recorder.observe(now, self.capacity);
        cancelled
    }
}

#[cfg(test)]
mod tests {
    //! Admission driven by hand: shards without timer threads, and deadlines "fired" at chosen instants.

    use super::*;
    use crate::completion::Completion;
    use std::time::Duration;

    /// A core, its config and two thread-less shards.
    struct Bench {
        core: Core,
        config: Config,
        shards: Vec<Shard>,
    }

    impl Bench {
        fn new(config: Config) -> Bench {
            let shards = (0..2).map(|_| Shard::default()).collect();
            Bench { core: Core::new(&config, Instant::now()), config, shards }
        }

        /// Issues a call; returns its completion and whether it was refused.
        fn issue(&mut self, input: u64) -> (Completion, Option<CallError>) {
            let (completer, completion) = Completion::pending();
            let admission = self.core.issue(input, Instant::now(), completer, &self.config, &self.shards);
            let refused = admission.refused.map(|(completer, error)| {
                completer.complete(Err(error));
                error
            });
            (completion, refused)
        }

        /// Fires every deadline of shard `index` (all of them: "now" is an hour ahead); returns their indices.
        fn fire(&mut self, index: usize) -> Vec<u64> {
            let fired = Instant::now() + Duration::from_secs(3600);
            let batch = self.shards[index].take_due(fired);
            self.core.release(batch.len(), fired, &self.shards[index]);
            batch.into_iter().map(|entry| entry.call.seq).collect()
        }

        fn fire_all(&mut self) -> Vec<u64> {
            let mut fired: Vec<u64> = (0..self.shards.len()).flat_map(|index| self.fire(index)).collect();
            fired.sort_unstable();
            fired
        }

        fn in_service(&self) -> usize {
            self.shards.iter().map(Shard::len).sum()
        }
    }

    fn config(capacity: usize) -> Config {
        Config { capacity, service: Duration::from_millis(10), ..Config::default() }
    }

    #[test]
    fn calls_beyond_capacity_queue_and_start_in_fifo_order() {
        let mut bench = Bench::new(config(2));
        let _completions: Vec<_> = (0..5).map(|i| bench.issue(i)).collect();
        assert_eq!((bench.core.stats().in_service, bench.core.stats().queued), (2, 3));
        assert_eq!(bench.in_service(), 2);
        assert_eq!(bench.fire_all(), vec![0, 1]);
        assert_eq!(bench.fire_all(), vec![2, 3]);
        assert_eq!(bench.fire_all(), vec![4]);
        let stats = bench.core.stats();
        assert_eq!((stats.completed, stats.in_service, stats.queued, stats.max_queued), (5, 0, 0, 3));
        assert_eq!(stats.over_capacity_starts, 0);
    }

    #[test]
    fn a_capacity_drop_applies_at_its_call_and_lets_in_service_drain() {
        let schedule = vec![CapacityChange { at_call: 6, capacity: 1 }];
        let mut bench = Bench::new(Config { schedule, ..config(4) });
        let _before: Vec<_> = (0..6).map(|i| bench.issue(i)).collect();
        assert_eq!(bench.core.capacity(), 4);
        assert!(bench.core.stats().capacity_changed_at.is_none());
        let _at = bench.issue(6);
        assert_eq!(bench.core.capacity(), 1);
        assert!(bench.core.stats().capacity_changed_at.is_some());
        assert_eq!((bench.core.stats().in_service, bench.core.stats().queued), (4, 3));
        // Calls 0 and 2 went to shard 0, 1 and 3 to shard 1: firing shard 0 leaves 2 in service, over capacity.
        assert_eq!(bench.fire(0), vec![0, 2]);
        assert_eq!((bench.core.stats().in_service, bench.core.stats().queued), (2, 3));
        assert_eq!(bench.fire(1), vec![1, 3]);
        assert_eq!((bench.core.stats().in_service, bench.core.stats().queued), (1, 2));
        assert_eq!(bench.fire_all(), vec![4]);
        assert_eq!(bench.fire_all(), vec![5]);
        assert_eq!(bench.fire_all(), vec![6]);
        assert_eq!(bench.core.stats().over_capacity_starts, 0);
    }

    #[test]
    fn a_capacity_increase_starts_queued_calls_before_the_new_one() {
        let schedule = vec![CapacityChange { at_call: 3, capacity: 3 }];
        let mut bench = Bench::new(Config { schedule, ..config(1) });
        let _before: Vec<_> = (0..3).map(|i| bench.issue(i)).collect();
        assert_eq!((bench.core.stats().in_service, bench.core.stats().queued), (1, 2));
        let _at = bench.issue(3);
        assert_eq!((bench.core.stats().in_service, bench.core.stats().queued), (3, 1));
        assert_eq!(bench.fire_all(), vec![0, 1, 2]);
        assert_eq!(bench.fire_all(), vec![3]);
    }

    #[test]
    fn a_full_queue_rejects_at_once_and_counts_it() {
        let mut bench = Bench::new(Config { queue_limit: Some(2), ..config(1) });
        let results: Vec<_> = (0..5).map(|i| bench.issue(i)).collect();
        let refused: Vec<_> = results.iter().map(|(_, refused)| *refused).collect();
        assert_eq!(refused, vec![None, None, None, Some(CallError::Overloaded), Some(CallError::Overloaded)]);
        assert!(results[3].0.is_complete());
        let stats = bench.core.stats();
        assert_eq!((stats.issued, stats.rejected, stats.in_service, stats.queued), (5, 2, 1, 2));
        assert_eq!(bench.core.recorder.timeline(Instant::now()).windows[0].rejected, 2);
    }

    #[test]
    fn a_capacity_set_by_hand_applies_to_the_next_call_and_records_its_time() {
        let mut bench = Bench::new(config(1));
        let _before: Vec<_> = (0..3).map(|i| bench.issue(i)).collect();
        assert!(bench.core.stats().capacity_changed_at.is_none());
        let _ = bench.core.set_capacity(3, Instant::now(), &bench.shards);
        // Queued calls started into the new slots.
        assert_eq!((bench.core.capacity(), bench.core.stats().in_service, bench.core.stats().queued), (3, 3, 0));
        let first = bench.core.stats().capacity_changed_at;
        assert!(first.is_some());
        assert_eq!(bench.core.set_capacity(1, Instant::now(), &bench.shards), Notify::Nobody);
        assert_eq!(bench.core.stats().capacity_changed_at, first, "the first change's time is kept");
        assert_eq!(bench.issue(3).1, None);
        assert_eq!((bench.core.stats().in_service, bench.core.stats().queued), (3, 1));
    }

    #[test]
    fn unlimited_capacity_never_queues() {
        let mut bench = Bench::new(config(usize::MAX));
        let _completions: Vec<_> = (0..1000).map(|i| bench.issue(i)).collect();
        assert_eq!((bench.core.stats().in_service, bench.core.stats().queued), (1000, 0));
    }

    #[test]
    fn shutting_down_hands_back_everything_pending_once() {
        let mut bench = Bench::new(config(2));
        let completions: Vec<_> = (0..5).map(|i| bench.issue(i).0).collect();
        let cancelled = bench.core.shut_down(Instant::now(), &bench.shards);
        assert_eq!(cancelled.len(), 5);
        cancelled.into_iter().for_each(|completer| completer.complete(Err(CallError::ShutDown)));
        assert!(completions.into_iter().all(|c| c.wait() == Err(CallError::ShutDown)));
        assert!(bench.core.shut_down(Instant::now(), &bench.shards).is_empty());
        assert_eq!(bench.issue(9).1, Some(CallError::ShutDown));
        let stats = bench.core.stats();
        assert_eq!((stats.issued, stats.cancelled, stats.in_service, stats.queued), (6, 6, 0, 0));
    }
}
