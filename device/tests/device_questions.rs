//! The device scenario's questions: the thread-per-core contestants are candidates, and the throughput question
//! weighs them beside the work-stealing runtime's shapes; its alternatives follow the report's own advice (no driver
//! of many futures under tokio's cooperative budget), and the family questions compare families at equal
//! cooperative-budget stance, on throughput and on CPU per call.

mod device_common;

use device::DeviceScenario;
use device_common::{summary_with, trapped};
use measure::question::answer;
use measure::scenario::Scenario;
use measure::summary::Role;

#[test]
fn the_throughput_question_weighs_thread_per_core_as_a_candidate() {
    let infos = DeviceScenario.contestants();
    let mut summary = summary_with(trapped);
    for (contestant, info) in summary.contestants.iter_mut().zip(&infos) {
        contestant.role = info.role;
    }
    let throughput =
        DeviceScenario.questions().into_iter().find(|q| q.id == "throughput").expect("a throughput question");
    let alternatives = answer(&summary, &throughput).alternatives;
    for name in ["stream-thread-per-core-unconstrained", "stream-buffer-unordered-per-worker-unconstrained"] {
        let info = infos.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("{name} is registered"));
        assert_eq!(info.role, Role::Candidate, "{name}");
        assert!(alternatives.iter().any(|a| a == name), "{name} among {alternatives:?}");
    }
    for name in ["stream-thread-per-core", "stream-buffer-unordered-per-worker", "stream-buffer-unordered"] {
        assert!(!alternatives.iter().any(|a| a == name), "the report advises against {name}: {alternatives:?}");
    }
}

#[test]
fn the_family_questions_compare_families_at_equal_cooperative_budget_stance_on_both_metrics() {
    let infos = DeviceScenario.contestants();
    let questions = DeviceScenario.questions();
    let family: Vec<_> = questions.iter().filter(|q| q.family).collect();
    let metrics: Vec<&str> = family.iter().map(|q| q.metric).collect();
    assert_eq!(metrics, ["ops_per_sec", "cpu_us_per_call"]);
    for q in family {
        let measure::question::Alternatives::Named(names) = &q.alternatives else { panic!("{} names them", q.id) };
        for name in names {
            let info = infos.iter().find(|c| &c.name == name).unwrap_or_else(|| panic!("{name} is registered"));
            assert_eq!(info.role, Role::Candidate, "{name}");
            if info.family == measure::summary::Family::Stream {
                assert!(name.ends_with("-unconstrained"), "{name}: every stream outside the budget, as the others");
            }
        }
        for family in ["stream", "blocking", "coroutine"] {
            assert!(names.iter().any(|n| n.starts_with(family)), "{}: {family} among {names:?}", q.id);
        }
    }
}
