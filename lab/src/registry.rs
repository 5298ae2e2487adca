//! Every scenario the lab can run, in the order `lab list` and `lab all` use.

use measure::scenario::Scenario;

/// The scenarios, in running order.
pub(crate) fn scenarios() -> Vec<&'static dyn Scenario> {
    vec![
        &pipelines::chain::ChainScenario,
        &handoff::HandoffScenario,
        &overload::OverloadScenario,
        &device::DeviceScenario,
        &device::BackpressureScenario,
        &costs::MemoryScenario,
        &costs::PrimitivesScenario,
        &network::HttpScenario,
        &network::TcpScenario,
    ]
}

/// The scenario named `name`, if the lab has it.
pub(crate) fn find(name: &str) -> Option<&'static dyn Scenario> {
    scenarios().into_iter().find(|s| s.name() == name)
}
