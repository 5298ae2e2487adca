//! Criterion benches of every chain contestant at 100 000 items and work 0, group `chain`, so that
//! `cargo bench -p chain -- <name>` iterates on one contestant. The `hand-written-*` entries
//! (loop, iterator `fold`, futures stream `fold`) are the same formulas without stage objects or sinks, to show
//! what the contestants' `Clean` hooks and shared consumer cost: compare them with `baseline-loop`,
//! `baseline-iterator` and `stream-futures-adapters`. Unlike the lab's timed iterations, each criterion iteration here
//! includes spawning the stage threads or tasks (the `go` callback is ignored).

use std::hint::black_box;
use std::sync::Arc;

use chain::{contestants, ops, Behaviour, ChainConfig, Consumer, Job, Outcome};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use measure::meter::NoMeter;
use pipelines::LiveStages;

const ITEMS: u64 = 100_000;

fn chain(c: &mut Criterion) {
    let input: Arc<[u64]> = black_box((0..ITEMS).collect::<Vec<u64>>()).into();
    let work = 0;
    let reference = ops::reference_checksum(&input, work);
    let config = ChainConfig::default();
    let live = Arc::new(LiveStages::new());
    let behaviour = Behaviour::Clean;
    let mut group = c.benchmark_group("chain");
    group.throughput(Throughput::Elements(ITEMS));

    group.bench_function("hand-written-loop", |b| {
        b.iter(|| {
            let work = black_box(work);
            let mut sum = 0_u64;
            for &x in black_box(&input[..]) {
                let y = ops::map1(x, work);
                if ops::keep(y) {
                    sum = sum.wrapping_add(ops::map2(y));
                }
            }
            black_box(sum)
        })
    });

    group.bench_function("hand-written-iterator", |b| {
        b.iter(|| {
            let work = black_box(work);
            let items = black_box(&input[..]).iter().map(|&x| ops::map1(x, work)).filter(|&y| ops::keep(y));
            black_box(items.map(ops::map2).fold(0_u64, u64::wrapping_add))
        })
    });

    group.bench_function("hand-written-futures-fold", |b| {
        use futures::StreamExt;
        b.iter(|| {
            let work = black_box(work);
            futures::executor::block_on(
                futures::stream::iter(black_box(&input[..]))
                    .map(|&x| ops::map1(x, work))
                    .filter(|&y| std::future::ready(ops::keep(y)))
                    .map(ops::map2)
                    .fold(0_u64, |acc, z| std::future::ready(acc.wrapping_add(z))),
            )
        })
    });

    for contestant in contestants() {
        let name = contestant.info().name;
        let prepared = match contestant.prepare(&config) {
            Ok(prepared) => prepared,
            Err(err) => {
                eprintln!("skipping {name}: {err}");
                continue;
            }
        };
        let job = Job {
            input: &input,
            work: black_box(work),
            behaviour: &behaviour,
            consumer: Consumer::Sum,
            meter: NoMeter,
            live: &live,
        };
        match prepared.run(&job, &mut || {}) {
            Ok(Outcome::Sum { sum, .. }) if sum == reference => {}
            other => panic!("{name} is wrong: {other:?}, reference {reference}"),
        }
        group.bench_function(name, |b| b.iter(|| black_box(prepared.run(black_box(&job), &mut || {}))));
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_millis(500)).measurement_time(std::time::Duration::from_secs(2));
    targets = chain
}
criterion_main!(benches);
