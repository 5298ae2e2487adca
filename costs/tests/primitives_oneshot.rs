//! Every oneshot contestant makes its channel per operation: a run of many operations allocates at least once per
//! operation (the channel), where a channel made once and reused allocates nothing per operation. Counted by the
//! lab's counting allocator, installed in this test binary as the lab installs it.

use costs::primitives::contestants::Contestant;

#[global_allocator]
static ALLOC: measure::alloc::CountingAlloc = measure::alloc::CountingAlloc;

const OPS: u64 = 2_000;

fn allocations_per_op(contestant: Contestant) -> f64 {
    let primitive = contestant.prepare().unwrap_or_else(|e| panic!("{}: {e}", contestant.info().name));
    // One run first, so the runtime, the pool and `may`'s carriers have made what they keep.
    primitive.run(OPS).unwrap_or_else(|e| panic!("{}: {e}", contestant.info().name));
    let before = measure::alloc::snapshot();
    let sum = primitive.run(OPS).unwrap_or_else(|e| panic!("{}: {e}", contestant.info().name));
    let after = measure::alloc::snapshot().since(&before);
    assert_eq!(sum, (0..OPS).sum::<u64>(), "{}", contestant.info().name);
    after.allocs as f64 / OPS as f64
}

testkit::own_process! {
    #[test]
    fn a_tokio_oneshot_is_made_per_operation() {
        assert!(allocations_per_op(Contestant::TokioOneshot) >= 1.0);
    }

    #[test]
    fn a_std_channel_is_made_per_operation() {
        assert!(allocations_per_op(Contestant::StdChannel) >= 1.0);
    }

    #[test]
    fn a_may_channel_is_made_per_operation() {
        assert!(allocations_per_op(Contestant::MayOneshot) >= 1.0);
    }
}
