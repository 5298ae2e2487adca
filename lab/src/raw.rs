//! Reading a raw `.jsonl` file back: the run's header, every finished trial, and the footer if the run ended.

use std::path::{Path, PathBuf};

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

/// The text of a raw file up to its last whole line: what a torn last line leaves whole.
pub(crate) fn whole_lines(text: &str) -> &str {
    text.rfind('\n').map_or("", |end| &text[..=end])
}

/// Raw runs of one scenario given together: the newest is rendered, the others are named and left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Superseded {
    /// The scenario.
    pub scenario: String,
    /// The raw file rendered: the latest `started_utc` (then the later path).
    pub newest: PathBuf,
    /// The raw files left out.
    pub older: Vec<PathBuf>,
}

/// Keep the newest raw run of each scenario among `runs` (the latest `started_utc`, then the later path), so
/// that two runs of one scenario are never both rendered, the later overwriting the earlier, nor counted twice
/// in an index; say which were left out. The runs kept come back in the order they were given.
pub(crate) fn newest_per_scenario(runs: Vec<(PathBuf, RawRun)>) -> (Vec<(PathBuf, RawRun)>, Vec<Superseded>) {
    let newer = |a: &(PathBuf, RawRun), b: &(PathBuf, RawRun)| {
        (&a.1.header.started_utc, &a.0) > (&b.1.header.started_utc, &b.0)
    };
    let mut kept: Vec<(PathBuf, RawRun)> = Vec::new();
    let mut superseded: Vec<Superseded> = Vec::new();
    for run in runs {
        let scenario = run.1.header.scenario.clone();
        match kept.iter_mut().find(|k| k.1.header.scenario == scenario) {
            None => kept.push(run),
            Some(existing) => {
                let older = if newer(&run, existing) { std::mem::replace(existing, run).0 } else { run.0 };
                let newest = existing.0.clone();
                match superseded.iter_mut().find(|s| s.scenario == scenario) {
                    Some(entry) => {
                        entry.newest = newest;
                        entry.older.push(older);
                    }
                    None => superseded.push(Superseded { scenario, newest, older: vec![older] }),
                }
            }
        }
    }
    (kept, superseded)
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

    fn run_of(scenario: &str, started: &str) -> RawRun {
        let mut run = parse(&format!("{HEADER}\n")).unwrap();
        run.header.scenario = scenario.to_string();
        run.header.started_utc = started.to_string();
        run
    }

    #[test]
    fn of_several_runs_of_one_scenario_only_the_newest_is_kept_and_the_others_named() {
        let runs = vec![
            (PathBuf::from("b.jsonl"), run_of("chain", "2026-11-30T10:00:05Z")),
            (PathBuf::from("h.jsonl"), run_of("handoff", "2026-11-30T09:00:00Z")),
            (PathBuf::from("a.jsonl"), run_of("chain", "2026-11-30T11:00:00Z")),
            (PathBuf::from("c.jsonl"), run_of("chain", "2026-11-30T10:00:00Z")),
        ];
        let (kept, superseded) = newest_per_scenario(runs);
        let kept: Vec<&str> = kept.iter().map(|(p, _)| p.to_str().unwrap()).collect();
        assert_eq!(kept, ["a.jsonl", "h.jsonl"]);
        assert_eq!(
            superseded,
            [Superseded {
                scenario: "chain".to_string(),
                newest: PathBuf::from("a.jsonl"),
                older: vec![PathBuf::from("b.jsonl"), PathBuf::from("c.jsonl")],
            }]
        );
    }

    #[test]
    fn whole_lines_end_at_the_last_newline() {
        assert_eq!(whole_lines("a\nb\npart"), "a\nb\n");
        assert_eq!(whole_lines("a\n"), "a\n");
        assert_eq!(whole_lines("part"), "");
    }

    #[test]
    fn empty_or_foreign_text_is_rejected() {
        assert!(parse("").is_err());
        assert!(parse("{\"hello\": 1}\n").is_err());
        assert!(parse("not json\n").is_err());
    }
}
