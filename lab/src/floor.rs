//! `lab floor`: the machine's own floor ([`pipelines::floor`]), each probe timed in `--processes` fresh processes
//! (the process is the unit of evidence, as in every run), written to `DIR/floor.json` and `DIR/floor.md` and
//! printed. Each process runs every probe in its own rotation of the order: one warm-up, then `--samples` timed
//! samples of about [`SAMPLE_TARGET`] each; its median per probe is one process median.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::ArgMatches;
use measure::floor::{Floor, FloorFigure, FloorUse, ProbeSamples, FLOOR_SCHEMA};
use pipelines::floor::Probe;
use render::{OutputDir, Rendered, RenderedFile};

use crate::child::FLOOR_CHILD_SUBCOMMAND;
use crate::error::UsageError;
use crate::{cpus, environment, testbed};

/// How long one timed sample of a probe lasts, about: long enough that a clock read is nothing against it, short
/// enough that every probe in five processes fits in under a minute.
const SAMPLE_TARGET: Duration = Duration::from_millis(60);

/// The same with `--quick`.
const QUICK_SAMPLE_TARGET: Duration = Duration::from_millis(10);

/// The longest a measuring process may take before it is killed and the run fails.
const PROCESS_TIMEOUT: Duration = Duration::from_secs(120);

/// What `lab floor` was asked.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    /// Where `floor.json` and `floor.md` go.
    pub(crate) out: std::path::PathBuf,
    /// Fresh processes.
    pub(crate) processes: u32,
    /// Timed samples per probe in each process.
    pub(crate) samples: u32,
    /// A smoke measurement: shorter samples, fewer processes.
    pub(crate) quick: bool,
}

/// The request in `sub`.
pub(crate) fn request(sub: &ArgMatches) -> Result<Request, UsageError> {
    let quick = sub.get_flag("quick");
    let out = sub.get_one::<std::path::PathBuf>("out").cloned().unwrap_or_else(|| "reports".into());
    let processes = sub.get_one::<u32>("processes").copied().unwrap_or(if quick { 2 } else { 5 });
    let samples = sub.get_one::<u32>("samples").copied().unwrap_or(if quick { 3 } else { 5 });
    Ok(Request { out, processes, samples, quick })
}

/// Measure, write and print the floor.
pub(crate) fn run(request: &Request, out: &OutputDir, interrupted: &Arc<AtomicBool>) -> Result<ExitCode> {
    let started_utc = environment::utc_now();
    let started = Instant::now();
    let mut per_process: Vec<Vec<ProbeSamples>> = Vec::new();
    for process in 0..request.processes {
        if interrupted.load(Ordering::SeqCst) {
            eprintln!("floor: interrupted; nothing written");
            return Ok(ExitCode::from(130));
        }
        eprintln!(
            "floor: process {} of {} ({:.0} s so far)",
            process + 1,
            request.processes,
            started.elapsed().as_secs_f64()
        );
        per_process.push(child(process, request)?);
    }
    let figures = Probe::ALL.iter().map(|probe| figure(*probe, &per_process)).collect();
    let mut environment = environment::capture();
    environment.testbed = Some(testbed::capture());
    let floor = Floor {
        schema_version: FLOOR_SCHEMA,
        provenance: environment::provenance(started_utc),
        quick: request.quick,
        processes: request.processes,
        samples: request.samples,
        environment,
        figures,
    };
    let json = serde_json::to_string_pretty(&floor).context("writing floor.json")? + "\n";
    let files = vec![
        RenderedFile { path: "floor.json".to_string(), contents: json },
        RenderedFile { path: "floor.md".to_string(), contents: render::floor::render(&floor) },
    ];
    out.write(&Rendered { files }).context("writing floor.json and floor.md")?;
    print!("{}", render::floor::terminal(&floor));
    println!(
        "floor: {} processes in {:.0} s; wrote {} and {}",
        request.processes,
        started.elapsed().as_secs_f64(),
        out.root().join("floor.md").display(),
        out.root().join("floor.json").display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The floor a run on `environment` (a `quick` run or not) cites from `file` ([`measure::floor::use_for`]: the
/// floor of its testbed and build, else why none); `None`: the run was told to cite none (`--floor none`).
pub(crate) fn cited(
    file: Option<&std::path::Path>,
    environment: &measure::setup::Environment,
    quick: bool,
) -> FloorUse {
    match file {
        None => FloorUse::none(),
        Some(path) => {
            let read = Floor::read(path);
            measure::floor::use_for(
                &path.display().to_string(),
                read.as_ref().map_err(Clone::clone),
                environment,
                quick,
            )
        }
    }
}

/// One probe's figure over every process.
fn figure(probe: Probe, per_process: &[Vec<ProbeSamples>]) -> FloorFigure {
    let mine: Vec<&ProbeSamples> = per_process.iter().filter_map(|p| p.iter().find(|s| s.key == probe.key())).collect();
    let medians = |pick: fn(&ProbeSamples) -> &Vec<f64>| -> Vec<f64> {
        mine.iter().filter_map(|s| measure::stats::median(pick(s))).collect()
    };
    let process_medians = medians(|s| &s.ns_per_op);
    let cpu = medians(|s| &s.cpu_ns_per_op);
    FloorFigure {
        not_applicable: mine.iter().find_map(|s| s.not_applicable.clone()),
        ..FloorFigure::of_processes(probe.key(), probe.what(), process_medians, &cpu)
    }
}

/// Run one measuring process (`process`: its place in the rotation) and read its lines.
fn child(process: u32, request: &Request) -> Result<Vec<ProbeSamples>> {
    let exe = std::env::current_exe().context("finding the lab's own binary")?;
    let mut cmd = Command::new(exe);
    cmd.arg(FLOOR_CHILD_SUBCOMMAND)
        .arg("--rotation")
        .arg(process.to_string())
        .arg("--samples")
        .arg(request.samples.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    if request.quick {
        cmd.arg("--quick");
    }
    let mut spawned = cmd.spawn().context("starting a floor process")?;
    let stdout = spawned.stdout.take().context("a floor process's output")?;
    let reader = std::thread::spawn(move || {
        BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .map(|line| serde_json::from_str::<ProbeSamples>(&line).map_err(|e| format!("{e}: {line}")))
            .collect::<Vec<_>>()
    });
    let status = match wait_timeout::ChildExt::wait_timeout(&mut spawned, PROCESS_TIMEOUT)? {
        Some(status) => status,
        None => {
            let _ = spawned.kill();
            let _ = spawned.wait();
            anyhow::bail!("a floor process took over {} s and was killed", PROCESS_TIMEOUT.as_secs());
        }
    };
    let lines = reader.join().map_err(|_| anyhow::anyhow!("the floor process reader panicked"))?;
    anyhow::ensure!(status.success(), "a floor process failed: {status}");
    lines.into_iter().map(|l| l.map_err(|e| anyhow::anyhow!("a floor process printed {e}"))).collect()
}

/// The measuring process: every probe in the rotation `rotation` gives, one JSON line each on stdout.
pub(crate) fn child_main(sub: &ArgMatches) -> Result<()> {
    let _uncounted = measure::alloc::pause();
    let rotation = sub.get_one::<u32>("rotation").copied().unwrap_or(0) as usize;
    let samples = sub.get_one::<u32>("samples").copied().unwrap_or(5);
    let target = if sub.get_flag("quick") { QUICK_SAMPLE_TARGET } else { SAMPLE_TARGET };
    let allowed = cpus::allowed_cpus();
    let mut order = Probe::ALL.to_vec();
    let len = order.len();
    order.rotate_left(rotation % len);
    let mut stdout = std::io::stdout().lock();
    for probe in order {
        let line = samples_of(probe, &allowed, samples, target);
        writeln!(stdout, "{}", serde_json::to_string(&line)?)?;
        stdout.flush()?;
    }
    Ok(())
}

/// One probe in this process: sized so a sample lasts about `target`, one warm-up, then `samples` samples.
fn samples_of(probe: Probe, cpus: &[usize], samples: u32, target: Duration) -> ProbeSamples {
    let mut line = ProbeSamples {
        key: probe.key().to_string(),
        ns_per_op: Vec::new(),
        cpu_ns_per_op: Vec::new(),
        not_applicable: None,
    };
    // Grow the operation count until one run lasts a tenth of the target, then scale to the target.
    let mut ops = 16u64;
    let sized = loop {
        match probe.run(ops, cpus) {
            Err(why) => {
                line.not_applicable = Some(why);
                return line;
            }
            Ok(t) if t.wall >= target / 10 || ops >= 1 << 32 => break t,
            Ok(_) => ops *= 4,
        }
    };
    let ops = ((ops as f64) * target.as_secs_f64() / sized.wall.as_secs_f64().max(1e-9)).ceil().max(1.0) as u64;
    for i in 0..=samples {
        match probe.run(ops, cpus) {
            Ok(t) if i > 0 => {
                line.ns_per_op.push(t.ns_per_op());
                line.cpu_ns_per_op.push(t.cpu_ns_per_op());
            }
            Ok(_) => {}
            Err(why) => {
                line.not_applicable = Some(why);
                return line;
            }
        }
    }
    line
}
