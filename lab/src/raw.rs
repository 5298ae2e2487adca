//! Reading a raw `.jsonl` file back: the run's header, every finished trial, and the footer if the run ended.

use std::path::Path;

use measure::record::{RawLine, RunFooter, RunHeader, TrialRecord};

use crate::error::UsageError;

/// A run as its raw file records it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RawRun {
    /// The first line.
    pub header: RunHeader,
    /// Every finished trial, in the order they ended.
    pub trials: Vec<TrialRecord>,
    /// The last line; `None` when the run was interrupted.
    pub footer: Option<RunFooter>,
}

/// Read and check a raw file. Anything unreadable is a [`UsageError`] naming the file and line.
pub(crate) fn read(path: &Path) -> Result<RawRun, UsageError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError::new(format!("cannot read raw file {}: {e}", path.display())))?;
    parse(&text).map_err(|why| UsageError::new(format!("{}: {why}", path.display())))
}

/// Parse the text of a raw file.
pub(crate) fn parse(text: &str) -> Result<RawRun, String> {
    let mut header = None;
    let mut trials = Vec::new();
    let mut footer = None;
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let parsed: RawLine =
            serde_json::from_str(line).map_err(|e| format!("line {}: not a raw record: {e}", index + 1))?;
        match parsed {
            RawLine::Run(h) if header.is_none() => header = Some(h),
            RawLine::Run(_) => return Err(format!("line {}: a second run header", index + 1)),
            RawLine::Trial(_) | RawLine::End(_) if header.is_none() => {
                return Err(format!("line {}: a record before the run header", index + 1))
            }
            RawLine::Trial(t) => trials.push(t),
            RawLine::End(f) => footer = Some(f),
        }
    }
    let header = header.ok_or("no run header: this is not a raw file written by `lab`")?;
    Ok(RawRun { header, trials, footer })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_or_foreign_text_is_rejected() {
        assert!(parse("").is_err());
        assert!(parse("{\"hello\": 1}\n").is_err());
        assert!(parse("not json\n").is_err());
    }
}
