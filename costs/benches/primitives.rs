//! Criterion benches of every primitive, one operation per criterion iteration (`cargo bench -p costs`), to set
//! beside the lab's `primitives` scenario, which times many operations per iteration in fresh processes.

use costs::primitives::contestants::Contestant;
use criterion::{criterion_group, criterion_main, Criterion};

fn primitives(c: &mut Criterion) {
    let mut group = c.benchmark_group("primitives");
    for contestant in Contestant::ALL {
        let name = contestant.info().name;
        let primitive = match contestant.prepare() {
            Ok(primitive) => primitive,
            Err(e) => {
                eprintln!("skipping {name}: {e}");
                continue;
            }
        };
        group.bench_function(name, |b| b.iter(|| primitive.run(1)));
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_millis(300)).measurement_time(std::time::Duration::from_secs(1));
    targets = primitives
}
criterion_main!(benches);
