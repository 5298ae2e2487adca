//! Which kind of run, full or `--quick`, a folder's report of a scenario is from, so that a smoke run never
//! silently replaces a full run's report (nor the reverse): writing the other kind needs `--force`.

use std::path::Path;

use crate::error::UsageError;

/// The kind of run: `true` for a `--quick` smoke run.
fn describe(quick: bool) -> &'static str {
    if quick {
        "a --quick smoke run"
    } else {
        "a full run"
    }
}

/// Refuse to write a report of `scenario` from a run of kind `quick` into `out` when the report there is of the
/// other kind, unless `force`. A folder without that report, or with one that does not read as a summary, is
/// free to write.
pub(crate) fn check(out: &Path, scenario: &str, quick: bool, force: bool) -> Result<(), UsageError> {
    if force {
        return Ok(());
    }
    let path = out.join(format!("{scenario}.json"));
    let Ok(text) = std::fs::read_to_string(&path) else { return Ok(()) };
    let Ok(summary) = serde_json::from_str::<serde_json::Value>(&text) else { return Ok(()) };
    let Some(existing) = summary.pointer("/method/quick").and_then(serde_json::Value::as_bool) else { return Ok(()) };
    if existing == quick {
        return Ok(());
    }
    Err(UsageError::new(format!(
        "{} is from {}; {} would replace it: choose another --out (a scratch folder such as \
         target/quick-reports), or pass --force to replace it",
        path.display(),
        describe(existing),
        if quick { "this --quick run" } else { "this full run" },
    )))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn folder_with(quick: bool) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("chain.json"), format!("{{\"method\":{{\"quick\":{quick}}}}}")).unwrap();
        dir
    }

    #[test]
    fn a_quick_run_over_a_full_report_is_refused_unless_forced() {
        let dir = folder_with(false);
        let error = check(dir.path(), "chain", true, false).unwrap_err().to_string();
        assert!(error.contains("is from a full run; this --quick run would replace it"), "{error}");
        assert!(error.contains("--force"), "{error}");
        assert!(check(dir.path(), "chain", true, true).is_ok());
    }

    #[test]
    fn a_full_run_over_a_quick_report_is_refused_too() {
        let error = check(folder_with(true).path(), "chain", false, false).unwrap_err().to_string();
        assert!(error.contains("is from a --quick smoke run; this full run"), "{error}");
    }

    #[test]
    fn the_same_kind_or_no_report_is_free_to_write() {
        assert!(check(folder_with(true).path(), "chain", true, false).is_ok());
        assert!(check(folder_with(false).path(), "handoff", true, false).is_ok());
    }
}
