//! The device scenario's questions: the thread-per-core contestants are candidates, and the throughput question
//! weighs them beside the work-stealing runtime's shapes.

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
    for name in ["stream-thread-per-core", "stream-thread-per-core-unconstrained", "stream-buffer-unordered-per-worker"]
    {
        let info = infos.iter().find(|c| c.name == name).unwrap_or_else(|| panic!("{name} is registered"));
        assert_eq!(info.role, Role::Candidate, "{name}");
        assert!(alternatives.iter().any(|a| a == name), "{name} among {alternatives:?}");
    }
}
