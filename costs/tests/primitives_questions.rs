//! The primitives' questions compare what a user would start or use for the same job: the spawn question leaves
//! out rayon's scope opened on its own pool's worker (a reference row), every question is a family question
//! with a CPU twin, and every oneshot contestant makes a channel per operation.

use std::collections::BTreeMap;

use costs::primitives::contestants::Contestant;
use costs::PrimitivesScenario;
use measure::question::{answer, Alternatives, Question};
use measure::scenario::Scenario;
use measure::summary::{Family, Role};
use testkit::fixture;

/// The scenario's question `id`.
fn question(id: &str) -> Question {
    PrimitivesScenario.questions().into_iter().find(|q| q.id == id).unwrap_or_else(|| panic!("no question {id}"))
}

/// A run where each contestant's ns and CPU per operation are `ns` (role and family from the registry).
fn run(ns: &[(&str, f64)]) -> measure::summary::Summary {
    let contestants = ns
        .iter()
        .map(|&(name, value)| {
            let info = Contestant::find(name).map(|c| c.info()).unwrap_or_else(|| panic!("{name}"));
            let metrics = BTreeMap::from([
                ("ns_per_op".to_string(), fixture::stats(value)),
                ("cpu_ns_per_item".to_string(), fixture::stats(value)),
            ]);
            let mut c = fixture::contestant(name, info.family, metrics);
            c.role = info.role;
            c
        })
        .collect();
    fixture::summary("primitives", contestants)
}

#[test]
fn rayons_scope_on_its_own_worker_is_a_reference_left_out_of_the_spawn_question() {
    assert_eq!(Contestant::RayonSpawnInside.info().role, Role::Reference);
    let summary = run(&[
        ("stream-tokio-spawn-join", 300.0),
        ("blocking-thread-spawn-join", 30_000.0),
        ("blocking-rayon-spawn-join", 13_000.0),
        ("blocking-rayon-spawn-join-inside", 85.0),
        ("coroutine-may-spawn-join", 28_000.0),
    ]);
    for id in ["spawn-join", "spawn-join-cpu"] {
        let q = question(id);
        let Alternatives::Named(names) = &q.alternatives else { panic!("{id}: named alternatives") };
        assert!(!names.iter().any(|n| n == "blocking-rayon-spawn-join-inside"), "{id}");
        let result = answer(&summary, &q);
        let pick = result.answers[0].pick.as_deref();
        assert_eq!(pick, Some("stream-tokio-spawn-join"), "{id}: the fastest unit a user starts, not the reference");
        let rival = result.answers[0].rival.as_ref().map(|r| r.name.as_str());
        assert_eq!(rival, Some("blocking-rayon-spawn-join"), "{id}: the best of another family");
    }
}

#[test]
fn every_question_is_a_family_question_on_time_and_on_cpu() {
    let questions = PrimitivesScenario.questions();
    for id in ["spawn-join", "permit", "oneshot"] {
        let (time, cpu) = (question(id), question(&format!("{id}-cpu")));
        assert!(time.family && cpu.family, "{id}");
        assert_eq!((time.metric, cpu.metric), ("ns_per_op", "cpu_ns_per_item"), "{id}");
        assert_eq!(time.alternatives, cpu.alternatives, "{id}: the same alternatives on both metrics");
        let Alternatives::Named(names) = &time.alternatives else { panic!("{id}: named alternatives") };
        let families: Vec<Family> = names.iter().filter_map(|n| Contestant::find(n)).map(|c| c.info().family).collect();
        for family in [Family::Stream, Family::Blocking, Family::Coroutine] {
            assert!(families.contains(&family), "{id}: {family:?} among {names:?}");
        }
    }
    assert_eq!(questions.len(), 6);
}

#[test]
fn the_oneshot_question_names_each_styles_relay() {
    let Alternatives::Named(names) = question("oneshot").alternatives else { panic!("named alternatives") };
    assert_eq!(names, ["stream-tokio-oneshot", "blocking-std-channel", "coroutine-may-oneshot"]);
}
