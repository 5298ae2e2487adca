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
    /// The number of the last line when it was cut short (a write that did not finish: a full disk, a killed
    /// lab) and left out; `None` when every line is whole.
    pub torn_line: Option<usize>,
}

/// Read and check a raw file. Anything unreadable is a [`UsageError`] naming the file and line.
pub(crate) fn read(path: &Path) -> Result<RawRun, UsageError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError::new(format!("cannot read raw file {}: {e}", path.display())))?;
    parse(&text).map_err(|why| UsageError::new(format!("{}: {why}", path.display())))
}

/// Parse the text of a raw file. A last line without its newline that is not a whole record was cut short
/// while it was written: it is left out and reported in [`RawRun::torn_line`]. Any other line that is not a
/// record is an error.
pub(crate) fn parse(text: &str) -> Result<RawRun, String> {
    let mut header = None;
    let mut trials = Vec::new();
    let mut footer = None;
    let mut torn_line = None;
    let line_count = text.lines().count();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let parsed: RawLine = match serde_json::from_str(line) {
            Ok(parsed) => parsed,
            Err(_) if index + 1 == line_count && !text.ends_with('\n') && header.is_some() => {
                torn_line = Some(index + 1);
                break;
            }
            Err(e) => return Err(format!("line {}: not a raw record: {e}", index + 1)),
        };
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
    Ok(RawRun { header, trials, footer, torn_line })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    const HEADER: &str = r#"{"record":"run","scenario":"chain","lab_version":"0.1.0","git_rev":"x","git_dirty":false,"started_utc":"2026-11-30T10:00:00Z","environment":{"cpu_model":"","cores":2,"memory_gib":1,"os":"","kernel":"","rustc":"","crates":{}},"method":{"quick":true,"forks":1,"warmup":0,"iterations":1,"noise_threshold":0.2},"params":{},"contestants":[],"command":"lab chain","raw_file":"raw/chain.jsonl"}"#;
    const TRIAL: &str = r#"{"record":"trial","contestant":"a","phase":null,"fork":0,"order":0,"status":"ok","checks":[],"iterations":[],"metrics":{}}"#;

    #[test]
    fn a_last_line_cut_short_is_left_out_and_reported() {
        let text = format!("{HEADER}\n{TRIAL}\n{}", &TRIAL[..40]);
        let run = parse(&text).unwrap();
        assert_eq!(run.trials.len(), 1);
        assert_eq!(run.torn_line, Some(3));
        assert!(run.footer.is_none());
    }

    #[test]
    fn a_broken_line_that_is_not_the_last_or_ends_with_a_newline_is_rejected() {
        assert!(parse(&format!("{HEADER}\n{}\n{TRIAL}\n", &TRIAL[..40])).unwrap_err().contains("line 2"));
        assert!(parse(&format!("{HEADER}\n{}\n", &TRIAL[..40])).unwrap_err().contains("line 2"));
        assert_eq!(parse(&format!("{HEADER}\n{TRIAL}\n")).unwrap().torn_line, None);
    }

    #[test]
    fn empty_or_foreign_text_is_rejected() {
        assert!(parse("").is_err());
        assert!(parse("{\"hello\": 1}\n").is_err());
        assert!(parse("not json\n").is_err());
    }
}
