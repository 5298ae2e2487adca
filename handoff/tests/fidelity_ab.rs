//! The per-cause A/B variants of the bare pairs (contestants on request) pass the conformance the bare pairs
//! pass, under the same sizings as every listed contestant; the checks that need a meter or a fault are not
//! applicable to them and say so. No test looks at a clock except the checks' own hang watchdog.

mod common;

use common::configs;
use handoff::{conformance, contestants};
use measure::scenario::Scenario;
use measure::summary::Role;

#[test]
fn every_variant_passes_every_check_that_applies_to_a_bare_pair() {
    let variants = contestants::on_request();
    assert!(!variants.is_empty());
    let mut failures = Vec::new();
    for config in configs() {
        for variant in &variants {
            let name = variant.info().name;
            for check in conformance::all(variant, &config) {
                if check.failed() {
                    failures.push(format!("{name} at {config:?}: {} — {}", check.name, check.detail));
                }
                let applies = matches!(check.name.as_str(), "checksum" | "exactly_once");
                assert_eq!(applies, !check.not_applicable, "{name}: {} — {}", check.name, check.detail);
            }
        }
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn variants_are_references_the_scenario_offers_only_on_request() {
    let scenario = handoff::HandoffScenario;
    let listed: Vec<String> = scenario.contestants().into_iter().map(|c| c.name).collect();
    let on_request = scenario.contestants_on_request();
    assert_eq!(on_request.len(), contestants::on_request().len());
    for info in on_request {
        assert_eq!(info.role, Role::Reference, "{}", info.name);
        assert!(!listed.contains(&info.name), "{} would lengthen the default run", info.name);
        let pair = handoff::bare_pairs().into_iter().find(|(_, bare)| info.name.starts_with(&format!("{bare}-")));
        assert!(pair.is_some(), "{} names the bare pair it varies", info.name);
    }
}
