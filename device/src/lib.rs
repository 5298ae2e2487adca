//! The device and backpressure scenarios: every item makes one simulated I/O call, and the question is how
//! many calls each style can keep in flight, at what cost, and whether its bound holds.
//!
//! Each scenario is a folder of the one scenario shape ([`device`], [`backpressure`]: `mod.rs`, `contestants/`,
//! `conformance.rs`, `claims.rs`, `routine.rs`, `report.rs`, `templates/`). The building blocks both
//! share sit at the crate's root, each below the scenarios that use it (none imports a scenario):
//!
//! - [`call`]: how one call is made (the shared device, or the contestant's own timer), and the conformance
//!   checks' failing call and ledgers.
//! - [`job`]: what a run is asked to do, the counters it reports through, and the meters it counts with.
//! - [`contestants`]: the registry of stream, blocking and coroutine shapes both scenarios pick from.
//! - [`checks`]: the conformance checks every contestant passes before it is measured (a scenario's
//!   `conformance.rs` says which it runs).
//! - [`trial`]: one trial in its own process (checks, idle call, the harness's timed and accounting loop), which
//!   each scenario's `routine.rs` runs with its own parameters.
//! - [`threads`]: per-thread CPU and context switches, read in accounting iterations.
#![warn(missing_docs)]

/// The [`measure::scenario::Scenario`] methods both scenarios answer the same way from their folder's files
/// (written inside each `impl Scenario`): the registry's contestants (`contestants/`), one trial
/// (`routine.rs`), the claim table (`claims.rs`) and the report's discussion and headline notes (`report.rs`).
macro_rules! scenario_files {
    () => {
        fn contestants(&self) -> Vec<measure::summary::ContestantInfo> {
            CONTESTANTS.iter().map(crate::contestants::Contestant::info).collect()
        }

        fn run_trial(
            &self,
            request: &measure::record::TrialRequest,
            sink: &mut dyn measure::scenario::TrialSink,
        ) -> Result<(), measure::scenario::TrialError> {
            routine::run(request, sink)
        }

        fn claim_table(&self, summary: &measure::summary::Summary) -> Vec<measure::judge::ClaimSpec> {
            claims::table(summary)
        }

        fn discussion(&self, summary: &measure::summary::Summary) -> String {
            report::discussion(summary)
        }

        fn headline_notes(&self, summary: &measure::summary::Summary) -> Vec<String> {
            report::headline_notes(summary)
        }
    };
}

pub mod backpressure;
pub mod call;
pub mod checks;
pub mod contestants;
pub mod device;
mod figures;
pub mod job;
pub mod threads;
pub mod trial;

pub use backpressure::BackpressureScenario;
pub use device::DeviceScenario;
