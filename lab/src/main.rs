//! The lab's command line: parse → validate → plan trials → run each in a fresh process → report.
//!
//! `main` only turns [`run`] into an exit status: 0 every contestant passed its checks or failed exactly as its
//! scenario declares it expected to ([`outcome`]), 1 the run finished but a contestant failed unexpectedly, timed
//! out or passed where it was expected to fail (its report says so), 2 bad usage or unreadable input (nothing written),
//! 3 the lab could not write its output (a full disk, a folder it may not write to; the message names what was
//! kept), 130 interrupted (finished trials kept, no report).

// First, so that its `print!`, `println!`, `eprint!` and `eprintln!` are the ones every module below uses.
#[macro_use]
mod pipe;

mod action;
mod advise;
mod answers;
mod calibrate;
mod child;
mod cli;
mod compare;
mod cpus;
#[cfg(test)]
mod documented_defaults;
mod environment;
mod error;
mod executor;
mod floor;
mod kind;
mod list;
mod options;
mod outcome;
mod phase;
mod plan;
mod progress;
mod raw;
mod registry;
mod rendering;
mod run;
mod sizing;
mod summarize;
mod table;
mod term;
mod testbed;
mod trial;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{Context, Result};
use render::output::OutputDir;
use render::{Rendered, RenderedFile};

use crate::error::UsageError;
use crate::executor::ProcessExecutor;
use measure::scenario::Scenario;
use measure::summary::Summary;

use crate::action::Action;
use crate::options::RunOptions;
use crate::run::RunOutcome;

/// Every allocation in the lab and its trial processes is counted, for `allocs_per_item`.
#[global_allocator]
static ALLOCATOR: measure::alloc::CountingAlloc = measure::alloc::CountingAlloc;

/// Width `lab list` fits when stdout is not a terminal and `COLUMNS` is not set.
const LIST_WIDTH: usize = 100;

/// Exit status when the lab could not write its output (or failed in itself rather than in a contestant).
const OUTPUT_FAILURE: u8 = 3;

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(err) => {
            if let Some(usage) = err.downcast_ref::<UsageError>() {
                eprintln!("error: {usage}");
                ExitCode::from(2)
            } else {
                // Status 1 is a contestant's failure, never the lab's own.
                eprintln!("error: {err:#}");
                ExitCode::from(OUTPUT_FAILURE)
            }
        }
    }
}

fn run() -> Result<ExitCode> {
    let matches = match cli::command().try_get_matches() {
        Ok(matches) => matches,
        Err(e) if e.kind() == clap::error::ErrorKind::InvalidSubcommand => {
            let name = e.get(clap::error::ContextKind::InvalidSubcommand).map(ToString::to_string).unwrap_or_default();
            return Err(action::unknown_command(&name).into());
        }
        Err(e) => e.exit(),
    };
    match action::from_matches(&matches)? {
        Action::List { verbose, json } => {
            if json {
                println!("{}", serde_json::to_string_pretty(&list::json()).context("writing the listing as JSON")?);
            } else {
                print!("{}", list::render(term::stdout_width(LIST_WIDTH), verbose));
            }
            Ok(ExitCode::SUCCESS)
        }
        Action::Trial => {
            trial::run()?;
            Ok(ExitCode::SUCCESS)
        }
        Action::Serve => {
            network::serve_stdio().context("serving the network scenarios' loopback server")?;
            Ok(ExitCode::SUCCESS)
        }
        Action::Compare { base, new, force, format, fail_on } => {
            let base = compare::read_summary(&base)?;
            let new = compare::read_summary(&new)?;
            let comparison = compare::comparison(&base, &new, force, fail_on)?;
            match format {
                compare::Format::Json => {
                    println!("{}", serde_json::to_string_pretty(&comparison).context("writing the comparison as JSON")?)
                }
                compare::Format::Markdown => print!("{}", compare::markdown(&comparison)),
                compare::Format::Text => print!("{}", compare::text(&comparison)),
            }
            for warning in &comparison.warnings {
                eprintln!("warning: {warning}");
            }
            if fail_on.is_some() {
                if let Some(why) = &comparison.cannot_gate_reason {
                    eprintln!("error: --fail-on cannot gate these runs: {why}");
                    return Ok(ExitCode::from(2));
                }
                if comparison.regressions > 0 {
                    eprintln!("{} regression(s) beyond --fail-on: exit 1", comparison.regressions);
                    return Ok(ExitCode::from(1));
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Action::Report { raw, out, force, expect_failed, by_cores, floor } => {
            if let Some(advice) = raw.iter().find(|p| advise::is_advice_file(p)) {
                let refused =
                    if raw.len() > 1 { "render it on its own" } else { "--by-cores applies to scenario runs" };
                if raw.len() > 1 || by_cores.is_some() {
                    return Err(UsageError::new(format!("{} is an advice run: {refused}", advice.display())).into());
                }
                let _lock = lock(&OutputDir::new(out.clone()))?;
                return advise::report(advice, &OutputDir::new(out), force);
            }
            let by_cores = by_cores.as_deref().map(read_by_cores).transpose()?;
            let reading = Reading { by_cores: by_cores.as_ref(), floor: floor.as_deref(), tables: Tables::Print };
            let outcome = report(&raw, OutputDir::new(out), force, &expect_failed, reading)?;
            Ok(outcome.exit_status())
        }
        Action::ByCores { summaries, out } => {
            let mut runs = Vec::new();
            for path in &summaries {
                runs.push((compare::read_summary(path)?, folder_of(path)));
            }
            for (summary, _) in &runs {
                let count = runs.iter().filter(|(s, _)| s.scenario == summary.scenario).count();
                if count < 2 {
                    let why =
                        format!("`{}` has one run: give its summaries at two or more core counts", summary.scenario);
                    return Err(UsageError::new(why).into());
                }
            }
            let out = OutputDir::new(out);
            write_by_cores(&out, by_cores_page(out.root(), &registry::scenarios(), &runs)?)?;
            let folders: BTreeSet<&Path> = runs.iter().map(|(_, folder)| folder.as_path()).collect();
            for folder in folders {
                eprintln!(
                    "to give each report in {} its line on these answers: lab report {}/raw/*.jsonl --out {} \
                     --by-cores {}",
                    folder.display(),
                    folder.display(),
                    folder.display(),
                    out.root().join(BY_CORES_JSON).display()
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Action::Calibrate(request) if request.dry_run => {
            print!("{}", calibrate::plan_text(&request)?);
            Ok(ExitCode::SUCCESS)
        }
        Action::Calibrate(request) => {
            let interrupted = interrupt_flag()?;
            let out = OutputDir::new(request.out.clone());
            let _lock = lock(&out)?;
            calibrate::run(&request, &out, &interrupted)
        }
        Action::Floor(request) => {
            let interrupted = interrupt_flag()?;
            let out = OutputDir::new(request.out.clone());
            let _lock = lock(&out)?;
            floor::run(&request, &out, &interrupted)
        }
        Action::FloorChild(sub) => {
            floor::child_main(&sub)?;
            Ok(ExitCode::SUCCESS)
        }
        Action::Advise(request) if request.dry_run => {
            print!("{}", advise::plan_text(&request));
            Ok(ExitCode::SUCCESS)
        }
        Action::Advise(request) => {
            let interrupted = interrupt_flag()?;
            let out = OutputDir::new(request.folder());
            let _lock = lock(&out)?;
            advise::run(&request, &out, &interrupted)
        }
        Action::Run { scenarios, options, index } => {
            let interrupted = interrupt_flag()?;
            if !options.cores_sweep.is_empty() {
                return run_cores_sweep(&scenarios, &options, index, &interrupted);
            }
            Ok(match run_pass(&scenarios, &options, index, &interrupted)? {
                Some(pass) => outcome::judge(&pass.summaries, &options.expect_failed).exit_status(),
                None => ExitCode::from(130),
            })
        }
    }
}

/// The flag Ctrl-C, SIGTERM and SIGHUP alike (ctrlc's `termination` feature) set: stop, keep what finished.
fn interrupt_flag() -> Result<Arc<AtomicBool>> {
    let interrupted = Arc::new(AtomicBool::new(false));
    let flag = interrupted.clone();
    ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst)).context("installing the signal handler")?;
    Ok(interrupted)
}

/// What one pass over the scenarios left: each finished run's summary.
#[derive(Debug)]
struct Pass {
    summaries: Vec<Summary>,
}

/// Run `scenarios` with `options` into its folder (and its index when `index`); `None` when interrupted, after
/// saying what was kept.
fn run_pass(
    scenarios: &[&'static dyn Scenario],
    options: &RunOptions,
    index: bool,
    interrupted: &Arc<AtomicBool>,
) -> Result<Option<Pass>> {
    let out = OutputDir::new(options.out.clone());
    let _lock = lock(&out)?;
    let plans: Vec<_> =
        scenarios.iter().map(|s| plan::plan(*s, options)).filter(|p| !p.contestants.is_empty()).collect();
    for plan in &plans {
        kind::check(out.root(), plan.scenario.name(), options.quick, options.force)?;
    }
    if !options.quick {
        warn_if_busy();
    }
    let mut executor = ProcessExecutor::new(options.trial_timeout, Arc::clone(interrupted));
    if let Some(pin) = &options.pin {
        let cpus = if pin.cores == 1 { "CPU" } else { "CPUs" };
        eprintln!("pinned by --cores {}: every trial process to {cpus} {}", pin.cores, pin.cpu_list());
        executor = executor.pinned_to(pin.cpus.clone());
    }
    let mut pass = Pass { summaries: Vec::new() };
    let mut entries = Vec::new();
    for plan in plans {
        let scenario = plan.scenario;
        match run::run(&plan, options.only.as_deref(), &out, &mut executor, interrupted)? {
            RunOutcome::Finished { rendered, report } => {
                eprintln!("{}: wrote {}", scenario.name(), report.display());
                print_table(&rendered);
                if let Some(note) = render::disturbed_note(&rendered.summary) {
                    eprintln!("{}: warning: {}", scenario.name(), note.trim_start_matches("⚠️ "));
                }
                entries.push(rendered.index_entry.clone());
                pass.summaries.push(rendered.summary.clone());
            }
            RunOutcome::Interrupted { raw, trials } => {
                eprintln!(
                    "error: interrupted; {trials} finished trial(s) kept in {}; no report written \
                     (render what finished with `{}`)",
                    raw.display(),
                    run::report_command(&raw)
                );
                return Ok(None);
            }
        }
    }
    if index {
        write_index(&out, &entries)?;
    }
    Ok(Some(pass))
}

/// `--cores A,B,...`: the whole run once per core count, each into `OUT/cores-N` with its own reports (and index
/// for `lab all`), then `OUT/by-cores.md`, each question's answer at every count side by side.
fn run_cores_sweep(
    scenarios: &[&'static dyn Scenario],
    options: &RunOptions,
    index: bool,
    interrupted: &Arc<AtomicBool>,
) -> Result<ExitCode> {
    let top = OutputDir::new(options.out.clone());
    let mut runs: Vec<(Summary, PathBuf)> = Vec::new();
    for (i, pin) in options.cores_sweep.iter().enumerate() {
        let folder = options.out.join(render::by_cores::folder(pin.cores));
        eprintln!(
            "--cores {}: core count {} of {}, into {}",
            pin.cores,
            i + 1,
            options.cores_sweep.len(),
            folder.display()
        );
        let pass_options =
            RunOptions { pin: Some(pin.clone()), cores_sweep: Vec::new(), out: folder.clone(), ..options.clone() };
        let Some(pass) = run_pass(scenarios, &pass_options, index, interrupted)? else {
            return Ok(ExitCode::from(130));
        };
        runs.extend(pass.summaries.into_iter().map(|s| (s, folder.clone())));
    }
    write_by_cores(&top, by_cores_page(top.root(), scenarios, &runs)?)?;
    // Each run's reports again, from the raw files just written, now with their line on the answers across core
    // counts: exactly what `lab report --by-cores` gives, so the two never differ.
    let by_cores = read_by_cores(&top.root().join(BY_CORES_JSON))?;
    let mut folders: Vec<(PathBuf, Vec<PathBuf>)> = Vec::new();
    for (summary, folder) in &runs {
        let raw = folder.join(&summary.raw_file);
        match folders.iter_mut().find(|(f, _)| f == folder) {
            Some((_, raws)) => raws.push(raw),
            None => folders.push((folder.clone(), vec![raw])),
        }
    }
    for (folder, raws) in folders {
        let reading = Reading { by_cores: Some(&by_cores), floor: None, tables: Tables::Quiet };
        report(&raws, OutputDir::new(folder), true, &[], reading)?;
    }
    Ok(outcome::judge(runs.iter().map(|(s, _)| s), &options.expect_failed).exit_status())
}

/// The name of the file holding the answers across core counts beside `by-cores.md`.
const BY_CORES_JSON: &str = "by-cores.json";

/// A `by-cores.json` as `lab report --by-cores` reads it: the answers across core counts, and the folder it is in
/// (where `by-cores.md` is, which each report's line links).
#[derive(Debug)]
struct ByCoresFile {
    answers: measure::cores::ByCores,
    folder: PathBuf,
}

/// Read `path` as a `by-cores.json`; an unreadable or foreign file is bad usage, before anything is written.
fn read_by_cores(path: &Path) -> Result<ByCoresFile> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError::new(format!("cannot read --by-cores {}: {e}", path.display())))?;
    let answers: measure::cores::ByCores = serde_json::from_str(&text).map_err(|e| {
        UsageError::new(format!("{} is not a by-cores.json written by `lab by-cores`: {e}", path.display()))
    })?;
    if answers.schema_version != measure::cores::BY_CORES_SCHEMA {
        let why = format!(
            "{} has schema version {}, this lab reads {}: write it again with `lab by-cores`",
            path.display(),
            answers.schema_version,
            measure::cores::BY_CORES_SCHEMA
        );
        return Err(UsageError::new(why).into());
    }
    Ok(ByCoresFile { answers, folder: folder_of(path) })
}

/// The folder holding the file at `path` (`.` for a bare file name).
fn folder_of(path: &Path) -> PathBuf {
    path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf()
}

/// The page `by-cores.md` in `out`: per scenario of `scenarios` (in that order) that `runs` holds at two or more
/// core counts, each run's answers beside the others'. A run is its summary and the folder holding its report;
/// runs that cannot be set side by side (one core count twice, another testbed) are bad usage.
fn by_cores_page(
    out: &Path,
    scenarios: &[&'static dyn Scenario],
    runs: &[(Summary, PathBuf)],
) -> Result<(String, measure::cores::ByCores)> {
    let mut pages = Vec::new();
    let mut folders = std::collections::BTreeMap::new();
    for scenario in scenarios {
        let of_scenario: Vec<&(Summary, PathBuf)> =
            runs.iter().filter(|(s, _)| s.scenario == scenario.name()).collect();
        if of_scenario.len() < 2 {
            continue;
        }
        let summaries: Vec<&Summary> = of_scenario.iter().map(|(s, _)| s).collect();
        let across = measure::cores::across(&summaries).map_err(|e| UsageError::new(e.to_string()))?;
        for (summary, folder) in of_scenario {
            let link = relative_folder(out, folder);
            folders.insert((summary.scenario.clone(), measure::cores::cores_of(summary)), link);
        }
        pages.push(across);
    }
    let testbed = runs.first().map_or_else(String::new, |(s, _)| {
        format!("{}, {} CPUs, {}", s.environment.cpu_model, s.environment.cores, s.environment.rustc)
    });
    let folder_of =
        |scenario: &str, cores: u32| folders.get(&(scenario.to_string(), cores)).cloned().unwrap_or_default();
    let page = render::by_cores::render_by_cores(&pages, &testbed, &folder_of);
    Ok((page, measure::cores::ByCores::new(pages)))
}

/// Write the page as `by-cores.md` and its answers as `by-cores.json` in `out`, holding its lock.
fn write_by_cores(out: &OutputDir, (page, answers): (String, measure::cores::ByCores)) -> Result<()> {
    let _lock = lock(out)?;
    let json = serde_json::to_string_pretty(&answers).context("encoding by-cores.json")? + "\n";
    let files = vec![
        RenderedFile { path: "by-cores.md".to_string(), contents: page },
        RenderedFile { path: BY_CORES_JSON.to_string(), contents: json },
    ];
    out.write(&Rendered { files }).context("writing by-cores.md")?;
    eprintln!("wrote {} and {BY_CORES_JSON}", out.root().join("by-cores.md").display());
    Ok(())
}

/// `folder` as a link prefix relative to `base` (`""` when they are the same folder, `cores-1/` below it,
/// `../x/` beside it), both taken as absolute paths from the working directory (neither need exist yet).
fn relative_folder(base: &Path, folder: &Path) -> String {
    let resolve = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let (base, folder) = (resolve(base), resolve(folder));
    let base: Vec<_> = base.components().collect();
    let folder: Vec<_> = folder.components().collect();
    let common = base.iter().zip(&folder).take_while(|(a, b)| a == b).count();
    let mut link = "../".repeat(base.len() - common);
    for part in &folder[common..] {
        link.push_str(&part.as_os_str().to_string_lossy());
        link.push('/');
    }
    link
}

/// Whether `lab report` prints each run's summary table (not when a `--cores` list re-renders what it just ran).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tables {
    Print,
    Quiet,
}

/// What `lab report` reads besides the raw files, and whether it prints the tables.
#[derive(Debug, Clone, Copy)]
struct Reading<'a> {
    /// The by-cores file whose line on the answers across core counts each report of its runs carries.
    by_cores: Option<&'a ByCoresFile>,
    /// The floor a run cites when its raw file recorded none (a run made before runs cited one); `None`: none.
    floor: Option<&'a Path>,
    /// Whether to print each run's summary table.
    tables: Tables,
}

/// `lab report`: read every raw file first (any unreadable one stops everything before a byte is written),
/// then render each, with its line on the answers across core counts when `by_cores` sets its run side by side
/// and the floor its raw file recorded (else the one `floor` names, when it applies);
/// how its contestants ended against what `expect_failed` and their scenarios expect.
fn report(
    raw: &[PathBuf],
    out: OutputDir,
    force: bool,
    expect_failed: &[String],
    reading: Reading<'_>,
) -> Result<outcome::Outcome> {
    let Reading { by_cores, floor, tables } = reading;
    let mut runs = Vec::new();
    for path in raw {
        let mut run = raw::read(path)?;
        // A run cites the floor it recorded, so its re-render is its own report byte for byte; one made before
        // runs recorded it cites the floor of this folder when that was measured on its testbed and build.
        if let (None, Some(file)) = (&run.header.environment.floor, floor) {
            let header = &run.header;
            run.header.environment.floor = Some(floor::cited(Some(file), &header.environment, header.method.quick));
        }
        if let Some(line) = run.torn_line {
            eprintln!(
                "warning: {}: line {line} was cut short while it was written (a full disk or a killed run) \
                 and is left out; rendering the {} complete trial record(s) before it",
                path.display(),
                run.trials.len()
            );
        }
        if registry::find(&run.header.scenario).is_none() {
            let why = format!("{}: unknown scenario `{}`", path.display(), run.header.scenario);
            return Err(UsageError::new(why).into());
        }
        runs.push((path.clone(), run));
    }
    let (runs, superseded) = raw::newest_per_scenario(runs);
    for s in &superseded {
        let older: Vec<String> = s.older.iter().map(|p| p.display().to_string()).collect();
        eprintln!(
            "warning: {} raw files of `{}` given; rendering the newest, {}, and leaving out {}",
            s.older.len() + 1,
            s.scenario,
            s.newest.display(),
            older.join(", ")
        );
    }
    let mut runs: Vec<_> = runs
        .into_iter()
        .filter_map(|(path, run)| registry::find(&run.header.scenario).map(|scenario| (path, run, scenario)))
        .collect();
    let _lock = lock(&out)?;
    for (_, run, scenario) in &runs {
        kind::check(out.root(), scenario.name(), run.header.method.quick, force)?;
    }
    // In the registry's order, as `lab all` writes them, whatever order the files were named in.
    let order = |name: &str| registry::scenarios().iter().position(|s| s.name() == name).unwrap_or(usize::MAX);
    runs.sort_by_key(|(_, _, scenario)| order(scenario.name()));
    let several = runs.len() > 1;
    let mut summaries = Vec::new();
    let mut entries = Vec::new();
    let mut lines = 0;
    for (path, run, scenario) in runs {
        let across = by_cores.and_then(|file| {
            let cores = measure::cores::cores_in(&run.header.environment);
            let answers = file.answers.of_run(scenario.name(), &run.header.raw_file, cores)?;
            let link = format!("{}by-cores.md#{}", relative_folder(out.root(), &file.folder), scenario.name());
            Some(render::by_cores::report_line(answers, cores, &link))
        });
        lines += usize::from(across.is_some());
        let rendered = write_run(&path, &run, scenario, across, &out, "writing the report")?;
        eprintln!("{}: wrote {}", scenario.name(), out.root().join(format!("{}.md", scenario.name())).display());
        if tables == Tables::Print {
            print_table(&rendered);
        }
        entries.push(rendered.index_entry);
        summaries.push(rendered.summary);
    }
    if let (Some(file), 0) = (by_cores, lines) {
        eprintln!(
            "warning: {} sets none of these runs side by side (it names other runs): no report carries its line",
            file.folder.join(BY_CORES_JSON).display()
        );
    }
    if several {
        write_index(&out, &entries)?;
    }
    Ok(outcome::judge(&summaries, expect_failed))
}

/// Render `run` of `scenario` (read from `path`) into `out`, with a copy of its raw file where the report links
/// it ([`raw_copy`]); `writing` names the step should the write fail.
pub(crate) fn write_run(
    path: &Path,
    run: &raw::RawRun,
    scenario: &'static dyn Scenario,
    across: Option<String>,
    out: &OutputDir,
    writing: &'static str,
) -> Result<rendering::RenderedRun> {
    let mut rendered = rendering::render(run, scenario, across);
    rendered.files.files.extend(raw_copy(path, &run.header.raw_file, "raw file", out)?);
    out.write(&rendered.files).context(writing)?;
    Ok(rendered)
}

/// The raw file at `path` (a run's, or an advice header, `what` says which) as its report links to it,
/// `<out>/<rel>`, when `out` does not hold it already: its whole lines, so that the copy re-renders the same.
pub(crate) fn raw_copy(path: &Path, rel: &str, what: &str, out: &OutputDir) -> Result<Option<RenderedFile>> {
    let linked = out.root().join(rel);
    if matches!((path.canonicalize(), linked.canonicalize()), (Ok(a), Ok(b)) if a == b) {
        return Ok(None);
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError::new(format!("cannot read {what} {}: {e}", path.display())))?;
    Ok(Some(RenderedFile { path: rel.to_string(), contents: raw::whole_lines(&text).to_string() }))
}

/// Warn on stderr, before a full run, when the 1-minute load average says other work is keeping the machine busy
/// ([`measure::busy::busy_warning`]).
fn warn_if_busy() {
    let cores = std::thread::available_parallelism().map_or(1, |n| u32::try_from(n.get()).unwrap_or(u32::MAX));
    if let Some(warning) = measure::busy::load_average().and_then(|load| measure::busy::busy_warning(load, cores)) {
        eprintln!("warning: {warning}");
    }
}

/// Print a run's summary table on stdout (after a blank line), fitted to the terminal up to 120 columns and
/// coloured only on a terminal.
pub(crate) fn print_table(rendered: &rendering::RenderedRun) {
    let table = rendered.table(term::stdout_width(table::MAX_WIDTH), term::stdout_colour());
    print!("\n{table}");
}

/// Take the output folder's lock for as long as the returned guard lives; a folder another run is writing to is
/// bad usage (exit 2), anything else an output failure.
fn lock(out: &OutputDir) -> Result<render::OutputLock> {
    match out.lock() {
        Ok(lock) => Ok(lock),
        Err(locked @ render::OutputError::Locked { .. }) => Err(UsageError::new(locked.to_string()).into()),
        Err(other) => Err(anyhow::Error::new(other).context("locking the output folder")),
    }
}

/// Write `index.md` linking every report of `entries`, in their order.
fn write_index(out: &OutputDir, entries: &[render::IndexEntry]) -> Result<()> {
    let others = other_core_counts(out.root(), entries);
    let contents = render::index::render_index_across(entries, &others);
    out.write(&Rendered { files: vec![RenderedFile { path: "index.md".to_string(), contents }] })
        .context("writing index.md")?;
    eprintln!("wrote {}", out.root().join("index.md").display());
    Ok(())
}

/// The family answers of the runs of `entries`' scenarios at other core counts, read from the summaries in
/// `folder/cores-N/` (`lab <scenario> --cores N --out folder/cores-N`), for the index's family matrix: every core
/// count but the entries' own. A summary that cannot be read is left out with a warning.
fn other_core_counts(folder: &Path, entries: &[render::IndexEntry]) -> Vec<render::matrix::FamilyRun> {
    let own: BTreeSet<u32> = entries.iter().map(|e| e.families.cores).collect();
    let counts: BTreeSet<u32> = std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_prefix("cores-")?.parse().ok())
        .filter(|cores: &u32| !own.contains(cores))
        .collect();
    let mut runs = Vec::new();
    for cores in counts {
        let sub = folder.join(render::by_cores::folder(cores));
        if !sub.is_dir() {
            continue;
        }
        for entry in entries {
            let path = sub.join(format!("{}.json", entry.scenario));
            if !path.is_file() {
                continue;
            }
            match compare::read_summary(&path) {
                Ok(summary) => runs.push(render::matrix::FamilyRun::of(&summary)),
                Err(e) => eprintln!("warning: the family matrix leaves out {}: {e}", path.display()),
            }
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::relative_folder;

    #[test]
    fn a_report_folder_is_linked_relative_to_the_page() {
        let base = Path::new("/r/reports");
        assert_eq!(relative_folder(base, Path::new("/r/reports")), "");
        assert_eq!(relative_folder(base, Path::new("/r/reports/cores-1")), "cores-1/");
        assert_eq!(relative_folder(base, Path::new("/r/other/cores-2")), "../other/cores-2/");
    }
}
