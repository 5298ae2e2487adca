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

/// The family questions compare the staged layout of every family at equal construction, per item and batched
/// apart, on time and on CPU per item.
#[test]
fn the_family_questions_name_the_staged_pipelines_per_item_and_batched_apart() {
    let questions = ChainScenario.questions();
    let family: Vec<_> = questions.iter().filter(|q| q.family).collect();
    let ids: Vec<&str> = family.iter().map(|q| q.id.as_ref()).collect();
    assert_eq!(ids, ["family-per-item", "family-per-item-cpu", "family-batched", "family-batched-cpu"]);
    let metrics: Vec<&str> = family.iter().map(|q| q.metric).collect();
    assert_eq!(metrics, ["ms_per_million", "cpu_ns_per_item", "ms_per_million", "cpu_ns_per_item"]);
    let named = |q: &measure::question::Question| match &q.alternatives {
        Alternatives::Named(names) => names.clone(),
        other => panic!("{other:?}"),
    };
    let per_item = ["blocking-crossbeam", "blocking-flume", "blocking-std", "stream-tokio-tasks", "coroutine-may"];
    assert_eq!(named(family[0]), per_item);
    assert_eq!(named(family[1]), per_item);
    let batched: Vec<String> = per_item.iter().map(|n| format!("{n}-batched")).collect();
    assert_eq!(named(family[2]), batched);
    assert_eq!(named(family[3]), batched);
    assert!(family.iter().all(|q| q.controls.is_empty()), "every level of the chain can answer");
}
