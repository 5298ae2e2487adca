//! Builds the clap command. Scenario subcommands and their parameter flags come from the registry, so a new
//! scenario gets its `--help` for free. Turning matches into typed options is [`crate::options`]'s job.

use clap::{value_parser, Arg, ArgAction, Command};
use measure::scenario::Scenario;

use crate::child::{FLOOR_CHILD_SUBCOMMAND, SERVE_SUBCOMMAND, TRIAL_SUBCOMMAND};
use crate::registry;

const ABOUT: &str = "Runs the same pipelines as demand-driven async streams and as blocking threads behind \
bounded channels, checks every contestant does the same work, measures what each costs, and writes markdown \
reports.";

const AFTER_HELP: &str = "Exit status: 0 every contestant passed its checks, or failed exactly as its scenario \
declares it expected to (the cause is shown); 1 the run finished but a contestant failed unexpectedly, timed out, or \
passed where it was expected to fail (the report says so); 2 bad usage or unreadable input, an output folder another run is \
using, reports of the other run kind without --force, or summaries of different settings without --force \
(nothing written); 3 the lab could not write its output, such as a full disk (the message names the raw file and the \
trials it kept); 130 interrupted by Ctrl-C, SIGTERM or SIGHUP (finished trials kept, no report). The interface in \
full: docs/interface.md.";

/// The whole command line.
pub(crate) fn command() -> Command {
    let mut cmd = Command::new("lab")
        .version(env!("CARGO_PKG_VERSION"))
        .about(ABOUT)
        .after_help(AFTER_HELP)
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommand(
            Command::new("list")
                .about("List scenarios, their contestants and parameters, fitted to the terminal")
                .arg(
                    switch("verbose")
                        .short('v')
                        .help("Give every contestant's and parameter's full description, wrapped, instead of one line"),
                )
                .arg(switch("json").help(
                    "Print the listing as JSON (with its `schema_version`): every scenario, contestant and parameter",
                )),
        )
        .subcommand(run_options(
            Command::new("all").about("Run every scenario, then write the index report (DIR/index.md)"),
            None,
        ))
        .subcommand(
            Command::new("report")
                .about("Re-render reports from raw records, running nothing; given several, also DIR/index.md")
                .arg(path_arg("raw", "RAW.jsonl").required(true).num_args(1..).help(
                    "Raw record files written by earlier runs (DIR/raw/<scenario>-<stamp>-<id>.jsonl); of \
                             several of one scenario, the newest is rendered",
                ))
                .arg(out_arg())
                .arg(force_arg("Replace reports in --out that are of the other run kind (--quick or full)"))
                .arg(expect_failed_arg())
                .arg(path_flag("floor", "FILE|none").help(
                    "The machine's floor (`lab floor`'s floor.json) cited by a run whose raw file recorded none (made \
                     before runs cited one), when it was measured on that run's testbed and build; a run that \
                     recorded its floor keeps it [default: OUT/floor.json]",
                ))
                .arg(path_flag("by-cores", "BY-CORES.json").help(
                    "The by-cores.json that `lab by-cores` or a `--cores A,B` run wrote: each report of a \
                             run it sets side by side (and the index) gains one line on whether its answers hold at \
                             the other core counts, linking by-cores.md beside it",
                )),
        )
        .subcommand(
            Command::new("compare")
                .about("Compare two summaries side by side, flagging changes beyond the noise threshold")
                .arg(path_arg("base", "BASE.json").required(true).help(
                    "The earlier run's summary, DIR/<scenario>.json as a run or `lab report` wrote it: the \
                             side changes are measured from",
                ))
                .arg(path_arg("new", "NEW.json").required(true).help(
                    "The later run's summary of the same scenario: each contestant's metrics are set beside \
                             BASE's, with the change and whether it is beyond the noise threshold",
                ))
                .arg(force_arg(
                    "Compare even when the two runs' parameters, method or phases differ, or their testbeds or \
                     builds do (they are listed; without --force the comparison is refused)",
                ))
                .arg(
                    value_arg("format", "FORMAT")
                        .value_parser(crate::compare::Format::NAMES)
                        .default_value("text")
                        .help(
                            "How to print the comparison: aligned text; json, one object with its `schema_version` \
                             and, for every metric, both runs' process medians, the ratio, p and the verdict; or \
                             markdown, a table a pull request can show",
                        ),
                )
                .arg(switch("json").conflicts_with("format").help("Same as --format json"))
                .arg(value_arg("fail-on", "PERCENT").value_parser(value_parser!(f64)).help(
                    "A gate for CI: exit 1 when a metric whose direction the scenario states (its headline, its \
                             questions' and trade-offs' metrics) got worse beyond noise and by more than PERCENT per \
                             cent. A PERCENT below a metric's noise threshold gates at that threshold, since a \
                             smaller change cannot be told from noise, and warns naming it. Exit 2 when the runs \
                             cannot be gated: fewer than 3 processes a side (any --quick run). Without it the exit \
                             status is 0 whatever changed",
                ))
                .after_help(
                    "Exit status: 0 compared (and with --fail-on, no regression); 1 a regression beyond --fail-on; 2 \
                     bad usage or unreadable input, runs set up differently without --force, or --fail-on given on \
                     runs it cannot gate (the message says why). The interface in full: docs/interface.md.",
                ),
        )
        .subcommand(
            Command::new("by-cores")
                .about(
                    "Set runs at different core counts side by side: each question's answer at every count, and where \
                     it changes (writes OUT/by-cores.md and OUT/by-cores.json, running nothing; `lab report \
                     --by-cores` then gives each run's report its one line on it)",
                )
                .arg(path_arg("summaries", "SUMMARY.json").num_args(2..).required(true).help(
                    "Summaries (DIR/<scenario>.json) of one or more scenarios, each at two or more core \
                             counts (its --cores pin, or every CPU the lab could use when it ran unpinned), all from \
                             one testbed and build",
                ))
                .arg(path_flag("out", "DIR").help(
                    "Folder for by-cores.md and by-cores.json; the page's links to each run's report are relative \
                         to it [default: reports]",
                )),
        )
        .subcommand(advise_command())
        .subcommand(calibrate_command())
        .subcommand(floor_command())
        .subcommand(
            Command::new(FLOOR_CHILD_SUBCOMMAND)
                .hide(true)
                .about("Measure every floor probe in this process, one JSON line each")
                .arg(value_arg("rotation", "N").value_parser(value_parser!(u32)))
                .arg(value_arg("samples", "N").value_parser(value_parser!(u32)))
                .arg(switch("quick")),
        )
        .subcommand(Command::new(TRIAL_SUBCOMMAND).hide(true).about("Run one trial (request on stdin)"))
        .subcommand(
            Command::new(SERVE_SUBCOMMAND)
                .hide(true)
                .about("Serve the network scenarios' loopback server (config on stdin)"),
        );
    for scenario in registry::scenarios() {
        let mut sub = run_options(Command::new(scenario.name()).about(scenario.title()), Some(scenario));
        for param in scenario.params() {
            let help = format!(
                "{} [default: {}; --quick: {}]{}",
                param.help,
                crate::term::comma_list(&param.default),
                crate::term::comma_list(&param.quick),
                if param.sweep { " (a comma-separated list sweeps, each value a phase)" } else { "" }
            );
            // `--items -5` is a value the range check refuses, not an unknown flag.
            let value = if param.sweep { "N[,N...]" } else { "N" };
            sub = sub.arg(value_arg(param.name, value).help(help).help_heading("Scenario parameters"));
        }
        cmd = cmd.subcommand(sub);
    }
    cmd
}

/// `lab calibrate`: A/A pairs on this testbed, and the smallest ratio the judge can tell per class of metric.
fn calibrate_command() -> Command {
    Command::new("calibrate")
        .about(
            "Measure the smallest ratio the judge can tell apart on this testbed, per class of metric: each \
             scenario's representative contestants in twice the lab's process count, each process with an \
             environment of its own size, split into A/A pairs (writes DIR/calibration.json and calibration.md; \
             the runs go to DIR/calibration-runs). Run it on a quiet machine",
        )
        .after_help(
            "Every later run on the same testbed and build, at the calibrated process count, reads \
             DIR/calibration.json (reports/calibration.json by default; --calibration FILE) and judges each metric \
             within its class's ratio; the reports state it beside the verdicts.",
        )
        .arg(out_arg())
        .arg(switch("quick").help(
            "Small sizes and 3 processes an arm (6 a pool): a smoke calibration, never read by a full run's judge",
        ))
        .arg(Arg::new("classes").long("classes").value_name("CLASS[,CLASS]").help(
            "Calibrate only these classes: per_item, calls_per_sec, cpu_per_call, latency_percentile, \
             bytes_per_unit, ns_per_op [default: every class]",
        ))
        .arg(count_arg(
            "forks",
            3..=100,
            "Processes per arm F, each pool 2F: the process count of the runs it will judge [default: 5; --quick: 3]"
                .to_string(),
        ))
        .arg(seed_arg("Seed of the environment sizes, any sampled pairs and the scenarios' inputs [default: 1]"))
        .arg(
            value_arg("trial-timeout", "SECONDS")
                .value_parser(value_parser!(f64))
                .help("Kill a trial process after this long and mark it `timeout` [default: 300; --quick: 60]"),
        )
        .arg(switch("dry-run").help("Print the plan and its estimated time, and run nothing"))
        .arg(force_arg("Replace runs of the other kind (--quick or full) in DIR/calibration-runs"))
}

/// `lab floor`: the machine's own floor, each figure with its process medians.
fn floor_command() -> Command {
    Command::new("floor")
        .about(
            "Measure this machine's floor: a cache line between two threads on one CPU and across two, a park → \
             unpark wake-up on one CPU and across, a tokio task wake-up on its worker and across workers, a \
             thread's spawn and join, an item through a single-producer single-consumer ring (rtrb) across CPUs, \
             and a loop's item; each in fresh processes (writes DIR/floor.json and floor.md, prints the table). \
             Every later run into DIR (or given --floor DIR/floor.json) on this testbed and build cites it in its \
             report's testbed. Under a minute; run it on a quiet machine",
        )
        .after_help(
            "A contestant's cost per item sits above these figures by its own protocol: how many wake-ups, \
             cache-line transfers and allocations it makes per item. Compare two machines' floors before reading \
             one machine's per-item answers as the other's.",
        )
        .arg(out_arg())
        .arg(switch("quick").help(
            "Short samples and 2 processes: a smoke measurement, not for conclusions, cited by --quick runs only",
        ))
        .arg(count_arg("processes", 1..=100, "Fresh processes [default: 5; --quick: 2]".to_string()))
        .arg(count_arg(
            "samples",
            1..=1000,
            "Timed samples of each probe per process, after one warm-up [default: 5; --quick: 3]".to_string(),
        ))
}

/// `lab advise`: the user's shape of work in, a measured recommendation out.
fn advise_command() -> Command {
    let number = |id: &'static str, value: &'static str, default: &'static str, help: &'static str| {
        value_arg(id, value).help(format!("{help} [default: {default}]")).help_heading("Your shape")
    };
    let flag = |id: &'static str, help: &'static str| switch(id).help(help).help_heading("Your shape");
    Command::new("advise")
        .about(
            "Ask your own question: give the shape of your work, and the lab runs the candidates of the scenarios \
             that answer it at your parameters, then recommends one per family with the evidence",
        )
        .after_help(
            "Writes DIR/<shape>/advice.md (+ advice.json, each scenario's report, raw records and charts); `just lab \
             report DIR/<shape>/raw/advice-*.jsonl --out DIR/<shape>` re-renders it. Exit status 2 (nothing written) \
             for a bad shape: a size of zero or below, in-flight above what this machine allows, more cores than it \
             has, or a budget too short for the runs (the message says what fits).",
        )
        .arg(number(
            "cpu-us-per-item",
            "MICROSECONDS",
            "1",
            "CPU work per item, in µs (mapped onto the chain's mixing rounds by timing one round here)",
        ))
        .arg(number("items", "N", "10000", "Items in all"))
        .arg(number(
            "items-per-second",
            "N",
            "none",
            "Items arriving per second, instead of --items: one second's worth is run, and the advice says whether \
             the pick keeps up",
        ))
        .arg(number("io-calls-per-item", "N", "0", "I/O calls each item makes (0: none)"))
        .arg(number("io-latency-ms", "MILLISECONDS", "10", "Latency of one I/O call, in ms"))
        .arg(number("in-flight", "N", "1000", "I/O calls that may be in flight at once"))
        .arg(flag("ordered", "Results must come out in item order"))
        .arg(flag(
            "dependency-loses-capacity",
            "The dependency called can lose capacity mid-run (runs overload: its slots drop from --in-flight to \
             --capacity-after)",
        ))
        .arg(number("capacity-after", "N", "a fifth of --in-flight", "The dependency's slots once it lost capacity"))
        .arg(flag("batchable", "Items may be grouped into batches between stages"))
        .arg(number(
            "cores",
            "N",
            "every core this process may use",
            "Cores the trials run on, pinned with sched_setaffinity",
        ))
        .arg(
            value_arg("budget", "SECONDS")
                .help("Most time the runs may take, estimated before anything runs [default: 300]"),
        )
        .arg(count_arg("forks", 1..=100, "Fresh processes per contestant and phase [default: 5]".to_string()))
        .arg(seed_arg("Seed for scenarios with random inputs [default: 1]"))
        .arg(
            path_flag("out", "DIR")
                .default_value("reports/advice")
                .help("Folder the advice goes under, in a sub-folder named after the shape"),
        )
        .arg(force_arg("Replace an earlier advice of the same shape made by the other run kind"))
        .arg(
            switch("dry-run").help(
                "Print the plan (scenarios, contestants, parameters, calibration, estimated time) and run nothing",
            ),
        )
}

fn out_arg() -> Arg {
    path_flag("out", "DIR").default_value("reports").help("Folder the reports, summaries, charts and raw records go to")
}

fn expect_failed_arg() -> Arg {
    Arg::new("expect-failed").long("expect-failed").value_name("NAME[,NAME]").help(
        "More contestants expected to fail, for ad hoc use (those a scenario declares expected to fail, with their \
         cause, need no flag; their reports still say so): each must fail, else exit 1; any other failure still \
         exits 1",
    )
}

fn force_arg(help: &'static str) -> Arg {
    switch("force").help(help)
}

/// Options every run takes; `scenario`'s own repetitions are the defaults its help gives (`lab all` runs each
/// scenario with its own).
fn run_options(cmd: Command, scenario: Option<&dyn Scenario>) -> Command {
    let reps = scenario.map(|s| (s.repetitions(false), s.repetitions(true)));
    let own = "each scenario's own, as `lab list` gives them";
    let default = |pick: fn(&measure::scenario::Repetitions) -> u32| match reps {
        Some((full, quick)) => format!("[default: {}; --quick: {}]", pick(&full), pick(&quick)),
        None => format!("[default: {own}]"),
    };
    let quick = reps.map_or_else(
        || own.to_string(),
        |(_, q)| format!("{} fork(s) of {} warm-up + {} measured iterations", q.forks, q.warmup, q.iterations),
    );
    let quick_help = format!("Small sizes and few repetitions ({quick}): a smoke run, not for conclusions");
    cmd.arg(switch("quick").help(quick_help))
        .arg(out_arg())
        .arg(force_arg(
            "Replace reports in --out that are of the other run kind: a --quick run over a full run's, or the reverse",
        ))
        .arg(
            Arg::new("only").long("only").value_name("NAME[,NAME]").help("Run only these contestants (see `lab list`)"),
        )
        .arg(Arg::new("paired").long("paired").value_name("A,B").help(
            "Run only contestants A and B, their processes alternating (A B, B A, …), in twice the scenario's \
             processes unless --forks says otherwise, and answer A against B: the ratio of their medians with its \
             95% interval, and the smallest ratio this pairing can tell apart, from its own A/A pairs",
        ))
        .arg(value_arg("cores", "N[,N...]").help(
            "Pin every trial process (and every thread it starts) to N of the CPUs the lab may use, the first N, with \
             sched_setaffinity: what the contestants do on N cores. Runtimes sized by the cores they may use (tokio's \
             workers, rayon, `may`'s carriers) follow; sizes fixed in the lab's code (device's named carrier counts, \
             the network client's one core) do not; the report lists both. http and tcp keep their server on its own \
             core from 2 CPUs; with --cores 1 the server shares the client's one CPU. A list (--cores 1,2) makes the \
             whole run once per count, each into OUT/cores-N, then writes OUT/by-cores.md: each question's answer at \
             every count side by side, and where it changes [default: every CPU the lab may use, unpinned]",
        ))
        .arg(expect_failed_arg())
        .arg(count_arg("forks", 1..=100, format!("Fresh processes per contestant and phase {}", default(|r| r.forks))))
        .arg(count_arg("warmup", 0..=1000, format!("Warm-up iterations per process, discarded {}", default(|r| r.warmup))))
        .arg(count_arg("iterations", 1..=10_000, format!("Measured iterations per process {}", default(|r| r.iterations))))
        .arg(count_arg(
            "accounting",
            1..=1000,
            format!(
                "Accounting iterations per process, after the measured ones: untimed, with the outstanding gauge, the 1 \
                 ms sampler and allocation counting on {}",
                default(|r| r.accounting)
            ),
        ))
        .arg(seed_arg("Seed for scenarios with random inputs, recorded with the results [default: 1]"))
        .arg(
            value_arg("noise-threshold", "FRACTION")
                .value_parser(value_parser!(f64))
                .help(
                    "The uncalibrated default: relative difference under which two results count as noise, for \
                     every metric whose class no calibration of this testbed gives [default: 0.2]",
                ),
        )
        .arg(calibration_arg())
        .arg(floor_arg())
        .arg(
            value_arg("trial-timeout", "SECONDS")
                .value_parser(value_parser!(f64))
                .help("Kill a trial process after this long and mark it `timeout` [default: 300; --quick: 60]"),
        )
}

/// `--floor FILE|none`: the machine's floor a run's report cites.
fn floor_arg() -> Arg {
    path_flag("floor", "FILE|none").help(
        "The machine's floor (`lab floor`'s floor.json) the report's testbed cites, each figure with its process \
         medians, when it was measured on this testbed and build (a --quick floor only by a --quick run); otherwise, \
         or with `none`, the report says it cites none and why [default: OUT/floor.json]",
    )
}

/// `--calibration FILE|none`: where the judge reads each metric class's smallest detectable ratio.
fn calibration_arg() -> Arg {
    path_flag("calibration", "FILE|none").help(
        "The calibration (`lab calibrate`'s calibration.json) the judge reads each metric class's smallest detectable \
         ratio from, used when it was made on this testbed and build at this run's process count; otherwise, or \
         with `none`, every metric is judged with the uncalibrated default (--noise-threshold), and the reports say \
         so and why [default: reports/calibration.json]",
    )
}

/// `--ID VALUE`, where a negative number is a value the checks refuse, not an unknown flag.
fn value_arg(id: &'static str, value_name: &'static str) -> Arg {
    Arg::new(id).long(id).value_name(value_name).allow_negative_numbers(true)
}

/// `--ID N`, a count within `range`.
fn count_arg(id: &'static str, range: std::ops::RangeInclusive<i64>, help: String) -> Arg {
    value_arg(id, "N").value_parser(value_parser!(u32).range(range)).help(help)
}

/// `--seed N`.
fn seed_arg(help: &'static str) -> Arg {
    value_arg("seed", "N").value_parser(value_parser!(u64)).help(help)
}

/// A path argument: positional `VALUE_NAME`.
fn path_arg(id: &'static str, value_name: &'static str) -> Arg {
    Arg::new(id).value_name(value_name).value_parser(value_parser!(std::path::PathBuf))
}

/// A path option: `--ID VALUE_NAME`.
fn path_flag(id: &'static str, value_name: &'static str) -> Arg {
    path_arg(id, value_name).long(id)
}

/// `--ID`, a switch that is on when given.
fn switch(id: &'static str) -> Arg {
    Arg::new(id).long(id).action(ArgAction::SetTrue)
}
