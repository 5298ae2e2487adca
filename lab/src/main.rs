//! The lab's command line: parse → validate → plan trials → run each in a fresh process → report.
//!
//! `main` only turns [`run`] into an exit status: 0 every contestant passed its checks, 1 the run finished but
//! a contestant failed or timed out (its report says so), 2 bad usage or unreadable input (nothing written),
//! 3 the lab could not write its output (a full disk, a folder it may not write to; the message names what was
//! kept), 130 interrupted (finished trials kept, no report).

mod cli;
mod compare;
mod environment;
mod error;
mod executor;
mod list;
mod options;
mod plan;
mod progress;
mod raw;
mod registry;
mod render;
mod run;
mod summarize;
mod trial;

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{Context, Result};
use reports::output::OutputDir;
use reports::{Rendered, RenderedFile};

use crate::error::UsageError;
use crate::executor::ProcessExecutor;
use crate::options::Action;
use crate::run::RunOutcome;

/// Every allocation in the lab and its trial processes is counted, for `allocs_per_item`.
#[global_allocator]
static ALLOCATOR: measure::alloc::CountingAlloc = measure::alloc::CountingAlloc;

/// Exit status when the lab could not write its output (or failed in itself rather than in a contestant).
const OUTPUT_FAILURE: u8 = 3;

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(err) => {
            if let Some(usage) = err.downcast_ref::<UsageError>() {
                eprintln!("lab: {usage}");
                ExitCode::from(2)
            } else {
                // Status 1 is a contestant's failure, never the lab's own.
                eprintln!("lab: error: {err:#}");
                ExitCode::from(OUTPUT_FAILURE)
            }
        }
    }
}

fn run() -> Result<ExitCode> {
    let matches = cli::command().try_get_matches().unwrap_or_else(|e| e.exit());
    match options::from_matches(&matches)? {
        Action::List => {
            print!("{}", list::render());
            Ok(ExitCode::SUCCESS)
        }
        Action::Trial => {
            trial::run()?;
            Ok(ExitCode::SUCCESS)
        }
        Action::Compare { base, new } => {
            let base = compare::read_summary(&base)?;
            let new = compare::read_summary(&new)?;
            print!("{}", compare::render(&base, &new)?);
            Ok(ExitCode::SUCCESS)
        }
        Action::Report { raw, out } => report(&raw, OutputDir::new(out)),
        Action::Run { scenarios, options, index } => {
            let interrupted = Arc::new(AtomicBool::new(false));
            let flag = interrupted.clone();
            // Ctrl-C, SIGTERM and SIGHUP alike (ctrlc's `termination` feature): stop, keep what finished.
            ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst)).context("installing the signal handler")?;
            let out = OutputDir::new(options.out.clone());
            let _lock = lock(&out)?;
            let mut executor = ProcessExecutor::new(options.trial_timeout, Arc::clone(&interrupted));
            let mut all_ok = true;
            let mut entries = Vec::new();
            for scenario in scenarios {
                let plan = plan::plan(scenario, &options);
                if plan.contestants.is_empty() {
                    continue;
                }
                match run::run(&plan, options.only.as_deref(), &out, &mut executor, &interrupted)? {
                    RunOutcome::Finished { summary, report, index_entry } => {
                        all_ok &= run::all_passed(&summary);
                        eprintln!("{}: wrote {}", scenario.name(), report.display());
                        entries.push(*index_entry);
                    }
                    RunOutcome::Interrupted { raw, trials } => {
                        eprintln!(
                            "lab: interrupted; {trials} finished trial(s) kept in {}; no report written \
                             (render what finished with `lab report {}`)",
                            raw.display(),
                            raw.display()
                        );
                        return Ok(ExitCode::from(130));
                    }
                }
            }
            if index {
                write_index(&out, &entries)?;
            }
            Ok(if all_ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
    }
}

/// `lab report`: read every raw file first (any unreadable one stops everything before a byte is written),
/// then render each.
fn report(raw: &[std::path::PathBuf], out: OutputDir) -> Result<ExitCode> {
    let mut runs = Vec::new();
    for path in raw {
        let run = raw::read(path)?;
        if let Some(line) = run.torn_line {
            eprintln!(
                "lab: warning: {}: line {line} was cut short while it was written (a full disk or a killed run) \
                 and is left out; rendering the {} complete trial record(s) before it",
                path.display(),
                run.trials.len()
            );
        }
        let scenario = registry::find(&run.header.scenario).ok_or_else(|| {
            UsageError::new(format!("{}: unknown scenario `{}`", path.display(), run.header.scenario))
        })?;
        runs.push((run, scenario));
    }
    let _lock = lock(&out)?;
    // In the registry's order, as `lab all` writes them, whatever order the files were named in.
    let order = |name: &str| registry::scenarios().iter().position(|s| s.name() == name).unwrap_or(usize::MAX);
    runs.sort_by_key(|(_, scenario)| order(scenario.name()));
    let several = runs.len() > 1;
    let mut all_ok = true;
    let mut entries = Vec::new();
    for (run, scenario) in runs {
        let rendered = render::render(&run, scenario);
        out.write(&rendered.files).context("writing the report")?;
        all_ok &= run::all_passed(&rendered.summary);
        eprintln!("{}: wrote {}", scenario.name(), out.root().join(format!("{}.md", scenario.name())).display());
        entries.push(rendered.index_entry);
    }
    if several {
        write_index(&out, &entries)?;
    }
    Ok(if all_ok { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Take the output folder's lock for as long as the returned guard lives; a folder another run is writing to is
/// bad usage (exit 2), anything else an output failure.
fn lock(out: &OutputDir) -> Result<reports::OutputLock> {
    match out.lock() {
        Ok(lock) => Ok(lock),
        Err(locked @ reports::OutputError::Locked { .. }) => Err(UsageError::new(locked.to_string()).into()),
        Err(other) => Err(anyhow::Error::new(other).context("locking the output folder")),
    }
}

/// Write `index.md` linking every report of `entries`, in their order.
fn write_index(out: &OutputDir, entries: &[reports::IndexEntry]) -> Result<()> {
    let contents = reports::index::render_index(entries);
    out.write(&Rendered { files: vec![RenderedFile { path: "index.md".to_string(), contents }] })
        .context("writing index.md")?;
    eprintln!("wrote {}", out.root().join("index.md").display());
    Ok(())
}
