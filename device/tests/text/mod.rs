//! Assertions on a rendered report: which sentences it holds and which it leaves out.

/// Asserts `text` holds every one of `wanted`.
#[track_caller]
pub(crate) fn holds(text: &str, wanted: &[&str]) {
    for w in wanted {
        assert!(text.contains(w), "missing {w:?}: {text}");
    }
}

/// Asserts `text` holds none of `unwanted`.
#[track_caller]
pub(crate) fn lacks(text: &str, unwanted: &[&str]) {
    for u in unwanted {
        assert!(!text.contains(u), "unwanted {u:?}: {text}");
    }
}

/// Sets every judged claim and finding of `summary` to inconclusive, as a run too short to settle any would.
pub(crate) fn inconclusive(summary: &mut measure::summary::Summary) {
    for claim in summary.claims.iter_mut().chain(&mut summary.findings) {
        claim.verdict = measure::summary::Verdict::Inconclusive;
    }
}
