//! Conformance checks every chain contestant must pass before its timings mean anything: the shared kit's checks
//! ([`pipelines::conformance`]) on each registered contestant as it is, under the chain's [`Chain`] declaration:
//! its sizes, the sum at work 0 and 3, the items at work 3 (as a multiset for unordered contestants), and faults
//! in each stage (`stage_error`, `stage_panic`) at its first, 1,000th and last element (`map2` sees only the items
//! the filter keeps).

use std::sync::Arc;

use measure::summary::Check;

use crate::job::{ChainConfig, ChainError, StageName};
use crate::ops::reference_items;
use pipelines::conformance::{self as kit, Sizes, Words};

/// Every check of `contestant` under `config`, in order: `checksum`, `exactly_once`, `bounded_outstanding`,
/// `early_stop`, then the faults (`stage_error`, `stage_panic`, `clean_after_faults` on one prepared contestant),
/// then `caller_cancel`.
pub fn all<C: ?Sized + kit::Contestant<Chain> + 'static>(contestant: &Arc<C>, config: &ChainConfig) -> Vec<Check> {
    kit::all(&kit::Checked::<Chain, C>::new(contestant, config))
}

/// The chain as the conformance kit checks it: the items as a shared slice, faults in its stages.
#[derive(Debug, Clone, Copy)]
pub struct Chain;

impl kit::Declaration for Chain {
    type Config = ChainConfig;
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

    fn is_injected(err: &ChainError, fault: &kit::Fault<StageName>) -> bool {
        match (err, fault.action) {
            (ChainError::Stage(e), kit::FaultAction::Error) => e.stage == fault.site && e.at == fault.at,
            // Named after the thread or task that ran the stage: itself, or a fused `source+map1+filter`.
            (ChainError::Panicked { stage, message }, kit::FaultAction::Panic) => {
                message.contains("injected panic") && stage.split('+').any(|part| part == fault.site.as_str())
            }
            _ => false,
        }
    }

    fn fault_sites(items: u64) -> Vec<(StageName, u64)> {
        let kept = Self::expected(items, 0).len() as u64;
        StageName::ALL.into_iter().map(|stage| (stage, if stage == StageName::Map2 { kept } else { items })).collect()
    }

    fn expected(items: u64, work: u32) -> Vec<u64> {
        reference_items(&(0..items).collect::<Vec<u64>>(), work)
    }
}
