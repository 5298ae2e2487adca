//! Whether a run ended as its scenarios expect, and the exit status that says so.
//!
//! A contestant whose registry entry declares it expected to fail (`expected_failure`, with its cause) does not
//! fail the run when it fails its checks; `--expect-failed NAME` adds names for ad hoc use. The run exits 1 when
//! any other contestant failed or timed out, when a declared one passed (or timed out: it is expected to fail its
//! checks, not to hang), or when a name `--expect-failed` gives failed nowhere; else 0. An expected failure is
//! never hidden: its report and summary still say `failed`, with the cause, and the lab says so on stderr.

use std::process::ExitCode;

use measure::record::Status;
use measure::summary::{ContestantSummary, Summary};

/// Why a contestant was expected to fail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Expected {
    /// Its scenario declares it, with this cause.
    Declared(String),
    /// `--expect-failed` names it.
    Named,
}

/// One contestant the exit status is about: its scenario, its name, and what it did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ended {
    /// The scenario it ran in (empty for a `--expect-failed` name no run has).
    pub scenario: String,
    /// Its name.
    pub name: String,
    /// Its status (`skipped` for a `--expect-failed` name that never ran).
    pub status: Status,
    /// Why it was expected to fail, when it was.
    pub expected: Option<Expected>,
}

/// How the contestants of one or more runs ended against what was expected of them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Outcome {
    /// Failed exactly as expected.
    pub as_expected: Vec<Ended>,
    /// Failed or timed out though nothing expected it to; or, declared expected to fail its checks, timed out.
    pub unexpected: Vec<Ended>,
    /// Expected to fail, and did not.
    pub did_not_fail: Vec<Ended>,
}

/// Judge every contestant of `summaries` against its declaration and `named` (`--expect-failed`'s names).
pub(crate) fn judge<'s>(summaries: impl IntoIterator<Item = &'s Summary>, named: &[String]) -> Outcome {
    let mut outcome = Outcome::default();
    let mut named_failed = vec![false; named.len()];
    for summary in summaries {
        for c in &summary.contestants {
            let is_named = named.iter().position(|n| *n == c.name);
            let failed = matches!(c.status, Status::Failed | Status::Timeout);
            if let (Some(i), true) = (is_named, failed) {
                named_failed[i] = true;
            }
            let expected = expected(c, is_named.is_some());
            let ended = Ended { scenario: summary.scenario.clone(), name: c.name.clone(), status: c.status, expected };
            match (c.status, &ended.expected) {
                (Status::Skipped, _) | (Status::Ok, None) => {}
                // A declared failure is a failed check; a `--expect-failed` name has always covered a timeout too.
                (Status::Failed, Some(_)) | (Status::Timeout, Some(Expected::Named)) => outcome.as_expected.push(ended),
                (Status::Failed | Status::Timeout, _) => outcome.unexpected.push(ended),
                (Status::Ok, Some(Expected::Declared(_))) => outcome.did_not_fail.push(ended),
                // A named one that passed here is judged by name below: it may have failed in another scenario.
                (Status::Ok, Some(Expected::Named)) => {}
            }
        }
    }
    for (name, _) in named.iter().zip(named_failed).filter(|(_, failed)| !failed) {
        if !outcome.did_not_fail.iter().any(|e| e.name == *name) {
            let ended = Ended {
                scenario: String::new(),
                name: name.clone(),
                status: Status::Ok,
                expected: Some(Expected::Named),
            };
            outcome.did_not_fail.push(ended);
        }
    }
    outcome
}

/// What was expected of `c`: its declaration first, else whether `--expect-failed` names it.
fn expected(c: &ContestantSummary, named: bool) -> Option<Expected> {
    match (&c.expected_failure, named) {
        (Some(cause), _) => Some(Expected::Declared(cause.clone())),
        (None, true) => Some(Expected::Named),
        (None, false) => None,
    }
}

impl Outcome {
    /// Whether every contestant ended as expected: passed, or failed exactly as expected.
    pub(crate) fn ok(&self) -> bool {
        self.unexpected.is_empty() && self.did_not_fail.is_empty()
    }

    /// One line per contestant that did not simply pass: each expected failure with its cause, then each
    /// contestant that did not end as expected (starting `error:`).
    pub(crate) fn lines(&self) -> Vec<String> {
        let mut lines: Vec<String> =
            self.as_expected.iter().map(|e| format!("{}: {}", who(e), as_expected(e))).collect();
        lines.extend(self.unexpected.iter().map(|e| format!("error: {}: {}", who(e), unexpected(e))));
        lines.extend(self.did_not_fail.iter().map(|e| format!("error: {}: {}", who(e), did_not_fail(e))));
        lines
    }

    /// Say [`Outcome::lines`] on stderr, then the exit status: 0 when [`Outcome::ok`], else 1.
    pub(crate) fn exit_status(&self) -> ExitCode {
        for line in self.lines() {
            eprintln!("{line}");
        }
        if self.ok() {
            return ExitCode::SUCCESS;
        }
        let n = self.unexpected.len() + self.did_not_fail.len();
        eprintln!("error: {n} contestant(s) did not end as expected: exit 1");
        ExitCode::from(1)
    }
}

/// `scenario: name`, or the name alone when no run has it.
fn who(e: &Ended) -> String {
    if e.scenario.is_empty() {
        e.name.clone()
    } else {
        format!("{}: {}", e.scenario, e.name)
    }
}

/// The status in words: `failed its checks`, `timed out`.
fn did(status: Status) -> &'static str {
    match status {
        Status::Ok => "passed",
        Status::Failed => "failed its checks",
        Status::Timeout => "timed out",
        Status::Skipped => "was skipped",
    }
}

fn as_expected(e: &Ended) -> String {
    match &e.expected {
        Some(Expected::Declared(cause)) => {
            format!("{}, as its scenario declares it expected to: {cause}", did(e.status))
        }
        _ => format!("{}, as --expect-failed says it would", did(e.status)),
    }
}

fn unexpected(e: &Ended) -> String {
    match &e.expected {
        Some(Expected::Declared(cause)) => {
            format!("{}; its scenario expects it to fail its checks ({cause}), not to time out", did(e.status))
        }
        _ => format!("{}, which nothing expected", did(e.status)),
    }
}

fn did_not_fail(e: &Ended) -> String {
    match &e.expected {
        Some(Expected::Declared(cause)) => {
            format!("passed where its scenario declares it expected to fail ({cause}): is the cause gone?")
        }
        _ if e.scenario.is_empty() => "--expect-failed names it, but it failed in no run".to_string(),
        _ => "passed where --expect-failed says it would fail".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use measure::summary::Family;

    use super::*;

    const CAUSE: &str = "the crate admits above a limit it has just lowered";

    fn c(name: &str, status: Status, declared: bool) -> ContestantSummary {
        ContestantSummary {
            status,
            expected_failure: declared.then(|| CAUSE.to_string()),
            ..testkit::fixture::contestant(name, Family::Stream, Default::default())
        }
    }

    fn run(contestants: Vec<ContestantSummary>) -> Summary {
        testkit::fixture::summary("overload", contestants)
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn judged(contestants: Vec<ContestantSummary>, named: &[&str]) -> Outcome {
        judge(&[run(contestants)], &names(named))
    }

    #[test]
    fn a_declared_failure_ends_the_run_as_expected_and_says_its_cause() {
        let outcome = judged(vec![c("stream-fixed", Status::Ok, false), c("peer", Status::Failed, true)], &[]);
        assert!(outcome.ok(), "{outcome:?}");
        assert_eq!(outcome.as_expected.len(), 1);
        assert_eq!(
            outcome.lines(),
            [format!("overload: peer: failed its checks, as its scenario declares it expected to: {CAUSE}")]
        );
    }

    #[test]
    fn any_other_failure_or_timeout_fails_the_run() {
        let outcome = judged(vec![c("peer", Status::Failed, true), c("stream-fixed", Status::Timeout, false)], &[]);
        assert!(!outcome.ok());
        assert_eq!(outcome.unexpected.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(), ["stream-fixed"]);
        assert!(outcome.lines()[1].starts_with("error: overload: stream-fixed: timed out"), "{:?}", outcome.lines());
        let hung = judged(vec![c("peer", Status::Timeout, true)], &[]);
        assert!(!hung.ok(), "a declared failure is a failed check, not a hang");
    }

    #[test]
    fn a_declared_failure_that_passes_fails_the_run_and_one_skipped_does_not() {
        let outcome = judged(vec![c("peer", Status::Ok, true)], &[]);
        assert!(!outcome.ok());
        assert!(outcome.lines()[0].contains("passed where its scenario declares it expected to fail"), "{outcome:?}");
        assert!(judged(vec![c("peer", Status::Skipped, true)], &[]).ok());
    }

    #[test]
    fn expect_failed_adds_names_that_must_fail_somewhere() {
        let named =
            judged(vec![c("peer", Status::Failed, true), c("stream-aimd", Status::Failed, false)], &["stream-aimd"]);
        assert!(named.ok(), "{named:?}");
        assert!(named.lines()[1].ends_with("as --expect-failed says it would"), "{:?}", named.lines());
        assert!(!judged(vec![c("stream-aimd", Status::Ok, false)], &["stream-aimd"]).ok(), "named and passed");
        let absent = judged(vec![c("peer", Status::Failed, true)], &["stream-aimd"]);
        assert_eq!(absent.lines()[1], "error: stream-aimd: --expect-failed names it, but it failed in no run");
        // By name across runs, as before: failing in one scenario is what was expected of it.
        let across = judge(
            &[run(vec![c("blocking-x", Status::Failed, false)]), run(vec![c("blocking-x", Status::Ok, false)])],
            &names(&["blocking-x"]),
        );
        assert!(across.ok(), "{across:?}");
        // Naming a declared one changes nothing.
        assert!(judged(vec![c("peer", Status::Failed, true)], &["peer"]).ok());
        assert_eq!(judged(vec![c("peer", Status::Ok, true)], &["peer"]).did_not_fail.len(), 1, "said once");
    }
}
