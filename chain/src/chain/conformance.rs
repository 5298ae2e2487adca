//! Conformance checks every chain contestant must pass before its timings mean anything: the shared kit's checks
//! ([`pipelines::conformance`]) on [`Checked`], the chain's view of a contestant: its sizes, the sum at work 0 and 3,
//! the items at work 3 (as a multiset for unordered contestants), and faults in each stage (`stage_error`,
//! `stage_panic`) at its first, 1,000th and last element (`map2` sees only the items the filter keeps).

use std::sync::Arc;

use measure::summary::Check;

use super::contestants::{ChainContestant, PreparedChain};
use crate::job::{ChainConfig, ChainError, Outcome, StageName};
use crate::ops::reference_items;
use pipelines::conformance::{self as kit, CheckedJob, Sizes, Words};

/// Every check, in order: `checksum`, `exactly_once`, `bounded_outstanding`, `early_stop`, then the faults
/// (`stage_error`, `stage_panic`, `clean_after_faults` on one prepared contestant), then `caller_cancel`.
pub fn all(contestant: &Arc<dyn ChainContestant>, config: &ChainConfig) -> Vec<Check> {
    kit::all(&checked(contestant, config))
}

/// `contestant` under `config`, as the kit checks it.
pub fn checked(contestant: &Arc<dyn ChainContestant>, config: &ChainConfig) -> Checked {
    Checked { contestant: Arc::clone(contestant), config: *config }
}

/// A chain contestant under a config, as the conformance kit checks it.
#[derive(Debug, Clone)]
pub struct Checked {
    contestant: Arc<dyn ChainContestant>,
    config: ChainConfig,
}

impl kit::Contestant for Checked {
    type Prepared = Box<PreparedChain>;
    type Input = Arc<[u64]>;
    type Site = StageName;
    type Error = ChainError;
    const SOURCE: StageName = StageName::Map1;
    // Early-stop and cancel runs are long enough that a pipeline that failed to stop visibly ran far ahead.
    const SIZES: Sizes = Sizes { items: 20_000, early_stop_items: 200_000, sum_works: &[0, 3], work: 3 };
    const WORDS: Words = Words {
        error_check: "stage_error",
        panic_check: "stage_panic",
        parties: "stages",
        counted: "map1 saw",
        point: "map1's element",
        stopped: "the source",
    };

    fn name(&self) -> String {
        self.contestant.info().name
    }

    fn bound(&self) -> Option<u64> {
        self.contestant.bound(&self.config)
    }

    fn ordered(&self) -> bool {
        self.contestant.ordered()
    }

    fn prepare(&self) -> Result<Self::Prepared, ChainError> {
        self.contestant.prepare(&self.config)
    }

    fn run(&self, prepared: &Self::Prepared, job: &CheckedJob<'_, Self>) -> Result<Outcome, ChainError> {
        prepared.run_metered(job, &mut || {})
    }

    fn is_injected(&self, err: &ChainError, fault: &kit::Fault<StageName>) -> bool {
        match (err, fault.action) {
            (ChainError::Stage(e), kit::FaultAction::Error) => e.stage == fault.site && e.at == fault.at,
            // Named after the thread or task that ran the stage: itself, or a fused `source+map1+filter`.
            (ChainError::Panicked { stage, message }, kit::FaultAction::Panic) => {
                message.contains("injected panic") && stage.split('+').any(|part| part == fault.site.as_str())
            }
            _ => false,
        }
    }

    fn fault_sites(&self, items: u64) -> Vec<(StageName, u64)> {
        let kept = self.expected(items, 0).len() as u64;
        StageName::ALL.into_iter().map(|stage| (stage, if stage == StageName::Map2 { kept } else { items })).collect()
    }

    fn expected(&self, items: u64, work: u32) -> Vec<u64> {
        reference_items(&(0..items).collect::<Vec<u64>>(), work)
    }
}
