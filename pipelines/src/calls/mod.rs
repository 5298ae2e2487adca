//! The calls kit: what the conformance checks of every *calls* scenario (n calls under an in-flight bound: device,
//! backpressure, http, tcp, overload) judge the same way, written once. Each scenario's kit makes its runs its
//! own way (its job, its fault injection, its record of answers) and judges them with these pieces, so the same
//! check says the same thing in every scenario:
//!
//! - [`Problems`]: what a run did wrong, one phrase each; a check passes when nothing was.
//! - [`verdict`]: a check from a verdict (its detail, or what went wrong).
//! - [`guarded`]: the checks one piece of work makes, under the watchdog; when the work cannot finish (it failed,
//!   panicked or hung) every one of them fails with the reason.
//! - [`clean_after`]: a clean run after the faults, on the same prepared contestant.
//! - [`FaultAt`]: where in a run a call fails on purpose: the first (before any answer), the middle (with the
//!   window full), the last (while the run drains).
//! - [`CANCEL_WITHIN`] and [`late`]: how promptly a run returns after the caller's cancel (or its deadline).
//! - [`over_bound`] and [`tasks_left`]: the bound broken over a run, and the tasks a run left alive.
//! - [`Held`] and [`Leftovers`]: the threads and sockets a run could leave behind, and the wait for them to
//!   come back down.
//! - [`OnceLedger`]: the ledger of calls made, or answered, exactly once: which inputs were noted, and the notes
//!   that repeated one or named none.
//!
//! None of it is ever on a timed path: a check judges a run after it returned.

mod held;
mod ledger;

use std::time::Duration;

use measure::summary::Check;

pub use held::{Held, Leftovers};
pub use ledger::{Noted, OnceLedger};

/// The most a run cancelled by the caller may take to return after the cancel: generous against the one call
/// each slot finishes before it sees the cancel (a millisecond timer, a 10 ms server call).
pub const CANCEL_WITHIN: Duration = Duration::from_secs(2);

/// What a check found wrong with a run, one phrase each, in order: the check passes when nothing was.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Problems(Vec<String>);

impl Problems {
    /// No problem found yet.
    pub fn new() -> Problems {
        Problems::default()
    }

    /// Note `what` went wrong, if `wrong`.
    pub fn when(&mut self, wrong: bool, what: impl FnOnce() -> String) {
        if wrong {
            self.0.push(what());
        }
    }

    /// Note `problem`, if there is one.
    pub fn note(&mut self, problem: Option<String>) {
        self.0.extend(problem);
    }

    /// The problems found, in order.
    pub fn found(&self) -> &[String] {
        &self.0
    }

    /// The verdict: `passed`'s detail when nothing was wrong, else every problem found.
    pub fn verdict(self, passed: impl FnOnce() -> String) -> Result<String, Vec<String>> {
        if self.0.is_empty() {
            Ok(passed())
        } else {
            Err(self.0)
        }
    }

    /// Check `name`: passed, saying `passed`, or failed, saying `failed`, a colon and each problem.
    pub fn check(self, name: &str, failed: impl FnOnce() -> String, passed: impl FnOnce() -> String) -> Check {
        match self.verdict(passed) {
            Ok(detail) => Check::new(name, true, detail),
            Err(found) => Check::new(name, false, format!("{}: {}", failed(), found.join("; "))),
        }
    }
}

impl FromIterator<Option<String>> for Problems {
    /// The problems of a table of what can go wrong: each entry `Some` phrase where its condition held.
    fn from_iter<I: IntoIterator<Item = Option<String>>>(table: I) -> Problems {
        Problems(table.into_iter().flatten().collect())
    }
}

/// The checks named `names` that `work` makes, under the watchdog ([`measure::watchdog::guarded`], its thread
/// named for the first name, `timeout` long); when `work` cannot make them (it failed, panicked or hung), every
/// name fails with the reason.
pub fn guarded(
    names: &[&'static str],
    timeout: Duration,
    work: impl FnOnce() -> Result<Vec<Check>, String> + Send + 'static,
) -> Vec<Check> {
    let first = names.first().copied().unwrap_or("check");
    measure::watchdog::guarded(first, timeout, work)
        .unwrap_or_else(|reason| names.iter().map(|name| Check::new(*name, false, reason.clone())).collect())
}

/// Check `name` from a verdict: its detail passes, its problem fails (with the problem as its detail).
pub fn verdict(name: &str, verdict: Result<String, impl std::fmt::Display>) -> Check {
    match verdict {
        Ok(detail) => Check::new(name, true, detail),
        Err(problem) => Check::new(name, false, problem.to_string()),
    }
}

/// Check `name` (`clean_after_failures`, say): after the faults (`after` says which), a clean run on the same
/// prepared contestant (whatever runtime or pool it keeps between runs) made the checks `clean`; it passes when
/// one of them passed and none failed.
pub fn clean_after(name: &str, after: &str, clean: &[Check]) -> Check {
    let passed = clean.iter().any(|c| c.passed) && !clean.iter().any(Check::failed);
    let details: Vec<String> = clean.iter().map(|c| format!("{}: {}", c.name, c.detail)).collect();
    Check::new(name, passed, format!("{after}, a clean run again: {}", details.join("; ")))
}

/// `returned <ms> ms after <after> (at most <ms> ms)`, when `took` (from the cancel or deadline to the return)
/// is over `within`.
pub fn late(took: Duration, within: Duration, after: &str) -> Option<String> {
    (took > within).then(|| {
        format!("returned {:.0} ms after {after} (at most {} ms)", took.as_secs_f64() * 1e3, within.as_millis())
    })
}

/// `at most <most> <what>, against the bound of <bound>`, when `most` (the high-water mark of calls in flight
/// over a run, or over its failures) is over `bound`.
pub fn over_bound(most: u64, bound: u64, what: &str) -> Option<String> {
    (most > bound).then(|| format!("at most {most} {what}, against the bound of {bound}"))
}

/// `<tasks> tasks still alive <when>`, when the run left any alive (`None`: a contestant without tasks).
pub fn tasks_left(alive: Option<usize>, when: &str) -> Option<String> {
    alive.filter(|&tasks| tasks > 0).map(|tasks| format!("{tasks} tasks still alive {when}"))
}

/// Where in a run a call fails on purpose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultAt {
    /// The first call: before any answer reached the caller.
    First,
    /// The middle of the run, with the window full.
    Middle,
    /// The last call, while the run drains.
    Last,
}

impl FaultAt {
    /// The three places, in the order the checks run.
    pub const ALL: [FaultAt; 3] = [FaultAt::First, FaultAt::Middle, FaultAt::Last];

    /// The call failed in a run of `calls` calls (`0..calls`).
    pub fn call(self, calls: u64) -> u64 {
        match self {
            FaultAt::First => 0,
            FaultAt::Middle => calls / 2,
            FaultAt::Last => calls.saturating_sub(1),
        }
    }

    /// Its name in a check's detail: `first`, `middle`, `last`.
    pub fn place(self) -> &'static str {
        match self {
            FaultAt::First => "first",
            FaultAt::Middle => "middle",
            FaultAt::Last => "last",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_passes_only_when_no_problem_was_found() {
        let mut problems = Problems::new();
        problems.when(false, || "never".to_string());
        problems.note(None);
        assert!(problems.clone().check("c", || "ran".into(), || "fine".into()).passed);
        problems.when(true, || "one".to_string());
        problems.note(Some("two".to_string()));
        let failed = problems.check("c", || "ran".into(), || "fine".into());
        assert!(!failed.passed);
        assert_eq!(failed.detail, "ran: one; two");
        let table: Problems = [None, Some("three".to_string())].into_iter().collect();
        assert_eq!(table.verdict(String::new), Err(vec!["three".to_string()]));
        let (held, broke) = (verdict("v", Ok::<_, String>("fine".into())), verdict("v", Err("lost")));
        assert!(held.passed && held.detail == "fine" && !broke.passed && broke.detail == "lost");
    }

    #[test]
    fn guarded_work_that_cannot_finish_fails_every_check_it_would_make() {
        let checks = guarded(&["a", "b"], Duration::from_secs(5), || Err("no run".to_string()));
        let names: Vec<(&str, bool, &str)> =
            checks.iter().map(|c| (c.name.as_str(), c.passed, c.detail.as_str())).collect();
        assert_eq!(names, [("a", false, "no run"), ("b", false, "no run")]);
        let panicked = guarded(&["p"], Duration::from_secs(5), || panic!("boom"));
        assert!(!panicked[0].passed && panicked[0].detail.contains("boom"), "{:?}", panicked[0]);
    }

    #[test]
    fn a_clean_run_after_the_faults_passes_when_none_of_its_checks_failed() {
        let exact = Check::new("sum_exact", true, "exact");
        let unbounded = Check::not_applicable("small_run_bound", "unbounded");
        let clean = clean_after("clean_after_failures", "after the failures", &[exact.clone(), unbounded.clone()]);
        assert!(clean.passed, "{clean:?}");
        assert_eq!(clean.detail, "after the failures, a clean run again: sum_exact: exact; small_run_bound: unbounded");
        let lost = Check::new("sum_exact", false, "2 calls lost");
        assert!(!clean_after("c", "after", &[lost, unbounded.clone()]).passed);
        assert!(!clean_after("c", "after", &[unbounded]).passed, "nothing checked");
        assert!(!clean_after("c", "after", &[]).passed);
    }

    #[test]
    fn the_fault_places_are_the_first_the_middle_and_the_last_call() {
        let calls: Vec<u64> = FaultAt::ALL.iter().map(|at| at.call(200)).collect();
        assert_eq!(calls, [0, 100, 199]);
        assert_eq!(FaultAt::Last.call(0), 0);
        assert_eq!(over_bound(16, 16, "in flight"), None);
        assert_eq!(over_bound(17, 16, "in flight").as_deref(), Some("at most 17 in flight, against the bound of 16"));
        assert_eq!(tasks_left(Some(0), "now").or(tasks_left(None, "now")), None);
        assert_eq!(tasks_left(Some(2), "now").as_deref(), Some("2 tasks still alive now"));
        assert_eq!(late(Duration::from_millis(10), CANCEL_WITHIN, "the cancel"), None);
        let slow = late(Duration::from_millis(2_500), CANCEL_WITHIN, "the cancel");
        assert_eq!(slow.as_deref(), Some("returned 2500 ms after the cancel (at most 2000 ms)"));
    }
}
