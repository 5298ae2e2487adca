//! `limited_unordered` pulls only what the gate admits, follows a limit that moves underneath it, and yields
//! every item's output exactly once.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures::{stream, Stream, StreamExt};
use overload::limit::{Fixed, Gate, Outcome};
use overload::stream_ext::LimitedStreamExt;

mod common;
use common::Scripted;

/// A limit that alternates between 3 and 12 every 10 samples.
fn swinging() -> Box<Scripted> {
    Scripted::new(3, |samples, limit| match (samples % 10, limit) {
        (0, 3) => 12,
        (0, _) => 3,
        _ => limit,
    })
}

#[test]
fn a_moving_limit_is_never_exceeded_and_every_item_comes_out_once() {
    let gate = Arc::new(Gate::new(swinging()));
    let running = Arc::new(AtomicUsize::new(0));
    let rt = tokio::runtime::Builder::new_multi_thread().enable_time().build().expect("runtime");
    let mut out: Vec<u64> = rt.block_on(
        stream::iter(0..500u64)
            .limited_unordered(Arc::clone(&gate), |x, permit| {
                let running = Arc::clone(&running);
                async move {
                    running.fetch_add(1, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_micros(200 + (x % 7) * 100)).await;
                    running.fetch_sub(1, Ordering::SeqCst);
                    permit.release(Duration::from_millis(1), Outcome::Success);
                    x
                }
            })
            .collect(),
    );
    out.sort_unstable();
    assert_eq!(out, (0..500).collect::<Vec<u64>>());
    assert_eq!(gate.over_limit_admissions(), 0);
    assert!(gate.max_in_flight() <= 12, "max in flight {}", gate.max_in_flight());
    assert_eq!(gate.in_flight(), 0, "every permit came back");
}

#[test]
fn nothing_is_pulled_from_upstream_beyond_what_the_gate_admits() {
    let gate = Arc::new(Gate::new(Box::new(Fixed::new(4))));
    let pulled = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&pulled);
    let upstream = stream::iter(0..100u64).inspect(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    let mut limited = Box::pin(upstream.limited_unordered(Arc::clone(&gate), |x, permit| async move {
        // Never completes until the test drops the stream.
        futures::future::pending::<()>().await;
        drop(permit);
        x
    }));
    let waker = futures::task::noop_waker();
    let mut cx = std::task::Context::from_waker(&waker);
    assert!(limited.as_mut().poll_next(&mut cx).is_pending());
    assert_eq!(pulled.load(Ordering::SeqCst), 4, "pulls exactly the four admitted items");
    drop(limited);
    assert_eq!(gate.in_flight(), 0, "dropping the stream gives every permit back");
}
