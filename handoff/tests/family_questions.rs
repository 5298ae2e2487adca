//! The handoff's family questions at equal construction: per item and batched apart, each on wall time and on CPU
//! per item, naming library channels of every family in each packing; the batched ones (and the channel
//! question's "should I batch") take the capacities where a batch is one item as controls. Answered here on the
//! committed summary (`reports/handoff.json`), which predates them: the questions are computed from the records.

use std::path::Path;

use handoff::{HandoffScenario, BATCHED, PER_ITEM};
use measure::question::{answer_all, Alternatives};
use measure::scenario::Scenario;
use measure::summary::{Family, Role, Summary};

fn committed() -> Summary {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports/handoff.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn per_item_and_batched_name_every_family_s_library_channels_in_one_packing_each() {
    let listed = handoff::contestants();
    let family_of = |name: &str| {
        let info = listed.iter().map(|c| c.info()).find(|i| i.name == name);
        let info = info.unwrap_or_else(|| panic!("`{name}` is not in the registry"));
        assert_eq!(info.role, Role::Candidate, "`{name}` is a candidate a user could adopt");
        info.family
    };
    for (names, batched) in [(PER_ITEM, false), (BATCHED, true)] {
        let families: Vec<Family> = names.iter().map(|n| family_of(n)).collect();
        for family in [Family::Blocking, Family::Stream, Family::Coroutine] {
            assert!(families.contains(&family), "{family:?} has a construction in {names:?}");
        }
        assert!(names.iter().all(|n| n.ends_with("-batched") == batched), "{names:?}");
    }
    let questions = HandoffScenario.questions();
    let family: Vec<_> = questions.iter().filter(|q| q.family).collect();
    let asked: Vec<(&str, &str)> = family.iter().map(|q| (q.id.as_ref(), q.metric)).collect();
    assert_eq!(
        asked,
        [
            ("family-per-item", "ms_per_million"),
            ("family-per-item-cpu", "cpu_ns_per_item"),
            ("family-batched", "ms_per_million"),
            ("family-batched-cpu", "cpu_ns_per_item"),
        ]
    );
    for q in &family {
        let expected = if q.id.contains("batched") { BATCHED } else { PER_ITEM };
        assert_eq!(q.alternatives, Alternatives::named(expected), "`{}`", q.id);
    }
}

#[test]
fn the_committed_run_answers_them_with_a_rival_family_and_controls_where_a_batch_is_one_item() {
    let summary = committed();
    let answered = answer_all(&summary, &HandoffScenario.questions());
    for q in &answered {
        let controls: Vec<&str> =
            q.answers.iter().filter(|a| a.control.is_some()).filter_map(|a| a.phase.as_deref()).collect();
        let batch_matters = q.id == "channel" || q.id.starts_with("family-batched");
        let expected: &[&str] = if batch_matters { &["capacity_1", "capacity_16"] } else { &[] };
        assert_eq!(controls, expected, "`{}`", q.id);
        // The committed run is a batch of one item at capacities 1 and 16: the premise of those controls.
        for a in q.answers.iter().filter(|a| a.control.is_some()) {
            let phase = a.phase.as_deref().unwrap_or_default();
            let key = format!("{phase}.items_per_message");
            let per_message = summary.contestant("blocking-crossbeam-batched").and_then(|c| c.metrics.get(&key));
            assert_eq!(per_message.map(|s| s.median), Some(1.0), "at {phase}");
            assert!(a.pick.is_none(), "`{}` at {phase}: a control has no pick", q.id);
        }
        if !q.family {
            continue;
        }
        for a in q.answers.iter().filter(|a| a.control.is_none()) {
            let pick = a.pick.as_deref().unwrap_or_else(|| panic!("`{}` {:?} answered", q.id, a.phase));
            let rival = a.rival.as_ref().unwrap_or_else(|| panic!("`{}` {:?}: a rival family", q.id, a.phase));
            let pick_family = summary.contestant(pick).map(|c| c.family.as_str());
            assert_ne!(pick_family, Some(rival.family.as_str()), "`{}` {:?}", q.id, a.phase);
            assert!(q.alternatives.iter().any(|n| n == &rival.name), "the rival is one of the question's own");
        }
    }
}
