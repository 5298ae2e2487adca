//! The checks every memory contestant passes before it is measured: units hand back exactly their payloads,
//! every unit is waiting when `hold` returns, nothing is left running after `release`, and a count the OS
//! cannot hold is refused with its reason rather than attempted.

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use measure::summary::Check;
use measure::watchdog::guarded_check;

use super::contestants::{self, Contestant, HoldError};
use crate::payload::expected_total;

/// Units and payload bytes of the small runs the checks make.
const UNITS: u64 = 200;
const BYTES: usize = 48;
/// How long one check may take before it fails as a hang.
const LIMIT: Duration = Duration::from_secs(30);

/// Serialises the checks of one process: units report their start through one process-wide counter.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Every check, in order.
pub fn all(contestant: Contestant) -> Vec<Check> {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    vec![
        guarded_check("exact_payloads", LIMIT, move || exact_payloads(contestant)),
        guarded_check("all_waiting", LIMIT, move || all_waiting(contestant)),
        guarded_check("refuses_what_the_os_cannot_hold", LIMIT, move || refuses(contestant)),
    ]
}

fn exact_payloads(contestant: Contestant) -> Result<String, String> {
    let units = contestant.prepare().map_err(|e| e.to_string())?;
    let total = units.hold(UNITS, BYTES).and_then(|held| held.release()).map_err(|e| e.to_string())?;
    let expected = expected_total(UNITS, BYTES);
    let detail = format!("{UNITS} units of {BYTES} bytes handed back {total}, expected {expected}");
    if total == expected {
        Ok(detail)
    } else {
        Err(detail)
    }
}

fn all_waiting(contestant: Contestant) -> Result<String, String> {
    let units = contestant.prepare().map_err(|e| e.to_string())?;
    let held = units.hold(UNITS, 0).map_err(|e| e.to_string())?;
    let started = contestants::started();
    let released = held.release().map_err(|e| e.to_string())?;
    let detail = format!(
        "{started} of {UNITS} units had reached their wait when `hold` returned, and all {UNITS} were released \
         (sum {released})"
    );
    if started == UNITS {
        Ok(detail)
    } else {
        Err(detail)
    }
}

fn refuses(contestant: Contestant) -> Result<String, String> {
    if !matches!(contestant, Contestant::Thread | Contestant::Thread64k) {
        return Ok("not applicable: tasks, futures and generators use no OS thread each".to_string());
    }
    let units = contestant.prepare().map_err(|e| e.to_string())?;
    let outcome = match units.hold(50_000_000, 0) {
        Err(HoldError::Refused(reason)) => Ok(format!("50,000,000 threads refused before any started: {reason}")),
        Err(e) => Err(format!("50,000,000 threads: {e}")),
        Ok(held) => {
            let _ = held.release();
            Err("50,000,000 threads were held: the OS's limits were not checked".to_string())
        }
    };
    outcome
}
