//! `blocking-rtrb`: the floor of a cross-thread hand-off on this machine, a reference (role `reference`, never
//! the pick): a producer thread pushes each item into a bounded single-producer single-consumer ring (`rtrb`, of
//! the scenario's capacity) and the calling thread pops it. Nothing a channel adds is on the path: no lock, no
//! waiter list, no wake-up; a push and a pop are one slot written and one index published with release/acquire
//! atomics, and the cache lines they travel on are all that crosses the cores.
//!
//! **How it waits**, as rtrb's users run a bounded hand-off outside a real-time thread: an end that finds the ring
//! full (or empty) backs off with crossbeam's [`Backoff::snooze`], spinning with `spin_loop` hints in growing
//! rounds (1, 2, 4, … 64: about a cache-line transfer's worth in all) and then calling `yield_now` on every
//! further try. It never parks, for two reasons. rtrb is wait-free and keeps no waiters, so parking would need a
//! hand-written wake-up protocol (a "waiting" flag checked after every push and pop, behind a full fence, and an
//! `unpark`): that is what a channel is, the very cost this row is the floor of. And yielding keeps it correct on
//! any number of CPUs: on one CPU a waiting end gives the CPU to its peer at the first `yield_now` instead of
//! spinning out its time slice, so the run cannot hang. What it costs is CPU: while one end is descheduled the
//! other keeps yielding, which its `cpu_ns_per_item` and `cores_used` show.
//!
//! **Ends.** The producer stops when its push finds the ring full and the consumer gone
//! ([`rtrb::Producer::is_abandoned`]); the consumer ends when it finds the ring empty and the producer gone (it
//! pops once more after seeing that, since everything pushed before the producer dropped its end is visible to
//! it then). A producer that fails sends its error through the ring as every contestant does; one that panics
//! drops its end while unwinding, and the join reports the panic.

use std::thread;

use crossbeam_utils::Backoff;
use measure::meter::Meter;

use super::{shape_phrase, Kind, Run};
use crate::consume::{consume, Sink};
use crate::job::{HandoffError, Outcome, Packing};
use crate::pair::{join_producer, settle, spawn_producer};
use crate::produce::{produce, Closed, Producer, Shape};

/// Producer thread → `rtrb::RingBuffer` of `config.messages(..)` slots → calling thread, each end backing off
/// with [`Backoff::snooze`] (spin, then yield) on full and empty. The calling thread calls `go`, then spawns the
/// producer thread (in a `std::thread::scope`, counted in `job.live`), pops and consumes into the sink, drops its
/// end and joins the producer.
pub(crate) struct RtrbRing;

impl Kind for RtrbRing {
    const REFERENCE: bool = true;

    fn describe(packing: Packing) -> String {
        format!(
            "the floor of a cross-thread hand-off (a reference, never the pick): a producer thread (spawned in \
             std::thread::scope each run, once the clock runs) pushes into a bounded single-producer \
             single-consumer ring (`rtrb::RingBuffer`: no lock, no waiter list, no wake-up); the calling thread \
             pops, sums and checks order; an end that finds the ring full or empty spins, then yields \
             (`crossbeam_utils::Backoff::snooze`), and never parks; {}; in order",
            shape_phrase(packing)
        )
    }

    fn run<M: Meter, Sh: Shape, P: Producer, S: Sink>(run: Run<'_, '_, M, Sh, P, S>) -> Result<Outcome, HandoffError> {
        let Run { env, shape, job, go, producer, sink } = run;
        let slots = env.messages(shape).max(1);
        let (mut tx, mut rx) = rtrb::RingBuffer::<Result<Sh::Msg, P::Error>>::new(slots);
        let meter = &job.meter;
        let items = job.items();
        thread::scope(|scope| {
            go();
            let producer_thread = spawn_producer(scope, job.live, move || {
                produce(shape, &producer, items, meter, |m| push(&mut tx, m));
            })?;
            let consumed = consume(shape, std::iter::from_fn(move || pop(&mut rx)), meter, sink);
            settle(consumed, join_producer(producer_thread))
        })
    }
}

/// Push `value`, backing off while the ring is full; `Err(Closed)` once the consumer is gone.
fn push<T>(tx: &mut rtrb::Producer<T>, value: T) -> Result<(), Closed> {
    let mut value = value;
    let backoff = Backoff::new();
    loop {
        match tx.push(value) {
            Ok(()) => return Ok(()),
            Err(rtrb::PushError::Full(back)) => {
                if tx.is_abandoned() {
                    return Err(Closed);
                }
                value = back;
                backoff.snooze();
            }
        }
    }
}

/// Pop the next value, backing off while the ring is empty; `None` once it is empty and the producer is gone.
fn pop<T>(rx: &mut rtrb::Consumer<T>) -> Option<T> {
    let backoff = Backoff::new();
    loop {
        if let Ok(value) = rx.pop() {
            return Some(value);
        }
        if rx.is_abandoned() {
            // `is_abandoned` is an acquire load of the flag the producer's drop sets, so every push before it is
            // visible now: one more pop takes the last of them, if the first raced with it.
            return rx.pop().ok();
        }
        backoff.snooze();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_push_into_a_full_ring_whose_consumer_is_gone_is_closed() {
        let (mut tx, rx) = rtrb::RingBuffer::<u64>::new(1);
        assert!(push(&mut tx, 1).is_ok());
        drop(rx);
        assert!(push(&mut tx, 2).is_err());
    }

    #[test]
    fn a_pop_takes_what_was_pushed_before_the_producer_left_then_ends() {
        let (mut tx, mut rx) = rtrb::RingBuffer::<u64>::new(2);
        assert!(push(&mut tx, 7).is_ok() && push(&mut tx, 8).is_ok());
        drop(tx);
        assert_eq!((pop(&mut rx), pop(&mut rx), pop(&mut rx)), (Some(7), Some(8), None));
    }

    #[test]
    fn two_threads_hand_over_every_item_in_order_through_a_ring_of_one() {
        let (mut tx, mut rx) = rtrb::RingBuffer::<u64>::new(1);
        let producer = thread::spawn(move || {
            for i in 0..10_000 {
                assert!(push(&mut tx, i).is_ok());
            }
        });
        let got: Vec<u64> = std::iter::from_fn(|| pop(&mut rx)).collect();
        assert!(producer.join().is_ok());
        assert_eq!(got, (0..10_000).collect::<Vec<_>>());
    }
}
