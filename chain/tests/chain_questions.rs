//! The chain's two questions name their alternatives from the registry: pinned here, so that a registry change
//! that would move a contestant from one question to the other is seen.

use chain::ChainScenario;
use measure::question::Alternatives;
use measure::scenario::Scenario;

#[test]
fn the_questions_name_the_whole_collection_styles_and_the_staged_pipelines_in_registry_order() {
    let questions = ChainScenario.questions();
    let named = |i: usize| match &questions[i].alternatives {
        Alternatives::Named(names) => names.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        named(0),
        [
            "baseline-loop",
            "baseline-iterator",
            "blocking-rayon",
            "stream-futures-adapters",
            "stream-tokio-iter",
            "stream-tokio-stream-adapters",
            "stream-async-stream",
        ]
    );
    assert_eq!(
        named(1),
        [
            "blocking-crossbeam",
            "blocking-crossbeam-batched",
            "blocking-crossbeam-fused",
            "blocking-crossbeam-fused-batched",
            "blocking-flume",
            "blocking-flume-batched",
            "blocking-std",
            "blocking-std-batched",
            "stream-tokio-tasks",
            "stream-tokio-tasks-batched",
            "stream-tokio-tasks-fused",
            "stream-tokio-tasks-fused-batched",
            "coroutine-may",
            "coroutine-may-batched",
        ]
    );
}
