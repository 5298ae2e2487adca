//! What the user asked for: clap's matches turned into an [`Action`], with everything clap could not check
//! validated (above the options of a run and the advice request it builds, below `main`).

use std::path::PathBuf;

use clap::ArgMatches;
use measure::scenario::Scenario;

use crate::child::{FLOOR_CHILD_SUBCOMMAND, SERVE_SUBCOMMAND, TRIAL_SUBCOMMAND};
use crate::error::UsageError;
use crate::options::{expect_failed, out_dir, resolved_params, run_options, scenario_params, RunOptions};
use crate::registry;

/// What the user asked for.
#[derive(Debug)]
pub(crate) enum Action {
    /// `lab list`, with every description in full under `--verbose`.
    List {
        /// Whether `--verbose` was given.
        verbose: bool,
        /// Whether `--json` was given.
        json: bool,
    },
    /// `lab <scenario>` or `lab all`: run these scenarios.
    Run {
        /// Scenarios to run, in order.
        scenarios: Vec<&'static dyn Scenario>,
        /// How to run them.
        options: RunOptions,
        /// Whether to write `index.md` afterwards (`lab all`).
        index: bool,
    },
    /// `lab report`: re-render from raw records.
    Report {
        /// Raw files to render.
        raw: Vec<PathBuf>,
        /// Output folder.
        out: PathBuf,
        /// Replace reports of the other run kind (`--quick` or full).
        force: bool,
        /// Contestants known to fail: exit 0 when exactly these failed ([`crate::exit_status`]).
        expect_failed: Vec<String>,
        /// `by-cores.json`, whose line on the answers across core counts each report of its runs carries.
        by_cores: Option<PathBuf>,
        /// The floor cited by a run whose raw file recorded none (made before runs cited one); `None`: none.
        floor: Option<PathBuf>,
    },
    /// `lab compare`.
    Compare {
        /// The baseline summary.
        base: PathBuf,
        /// The summary to compare with it.
        new: PathBuf,
        /// Compare even when the runs' settings, testbeds or builds differ.
        force: bool,
        /// What to print: text, JSON or markdown.
        format: crate::compare::Format,
        /// Fail (exit 1) on a regression worse than this fraction.
        fail_on: Option<f64>,
    },
    /// `lab by-cores`: set summaries of runs at different core counts side by side.
    ByCores {
        /// The summaries, as given.
        summaries: Vec<PathBuf>,
        /// Where `by-cores.md` and `by-cores.json` go.
        out: PathBuf,
    },
    /// `lab calibrate`: A/A pairs, and the smallest detectable ratio per class of metric.
    Calibrate(crate::calibrate::Request),
    /// `lab floor`: the machine's own floor.
    Floor(crate::floor::Request),
    /// The hidden subcommand of one floor-measuring process.
    FloorChild(ArgMatches),
    /// `lab advise`: run the candidates of the scenarios a shape needs, then advise.
    Advise(Box<crate::advise::Request>),
    /// The hidden trial subcommand (request on stdin).
    Trial,
    /// The hidden serve subcommand: the network scenarios' loopback server (configuration on stdin).
    Serve,
}

/// Turn clap's matches into an [`Action`], validating everything clap could not.
pub(crate) fn from_matches(matches: &ArgMatches) -> Result<Action, UsageError> {
    let (name, sub) = matches.subcommand().ok_or_else(|| UsageError::new("a subcommand is required"))?;
    match name {
        "list" => Ok(Action::List { verbose: sub.get_flag("verbose"), json: sub.get_flag("json") }),
        "advise" => Ok(Action::Advise(Box::new(crate::advise::request(sub)?))),
        "calibrate" => Ok(Action::Calibrate(crate::calibrate::request(sub)?)),
        "floor" => Ok(Action::Floor(crate::floor::request(sub)?)),
        FLOOR_CHILD_SUBCOMMAND => Ok(Action::FloorChild(sub.clone())),
        TRIAL_SUBCOMMAND => Ok(Action::Trial),
        SERVE_SUBCOMMAND => Ok(Action::Serve),
        "report" => Ok(Action::Report {
            raw: sub.get_many::<PathBuf>("raw").map(|v| v.cloned().collect()).unwrap_or_default(),
            out: out_dir(sub),
            force: sub.get_flag("force"),
            expect_failed: expect_failed(sub, &registry::scenarios())?,
            by_cores: sub.get_one::<PathBuf>("by-cores").cloned(),
            floor: crate::options::floor(sub, &out_dir(sub)),
        }),
        "compare" => {
            let fail_on = match sub.get_one::<f64>("fail-on") {
                Some(&pct) if pct.is_finite() && pct >= 0.0 => Some(pct / 100.0),
                Some(&pct) => return Err(UsageError::new(format!("--fail-on must be a percentage ≥ 0, got {pct}"))),
                None => None,
            };
            Ok(Action::Compare {
                base: path(sub, "base")?,
                new: path(sub, "new")?,
                force: sub.get_flag("force"),
                format: compare_format(sub)?,
                fail_on,
            })
        }
        "by-cores" => Ok(Action::ByCores {
            summaries: sub.get_many::<PathBuf>("summaries").map(|v| v.cloned().collect()).unwrap_or_default(),
            out: out_dir(sub),
        }),
        "all" => {
            let scenarios = registry::scenarios();
            let options = run_options(sub, &scenarios)?;
            Ok(Action::Run { scenarios, options, index: true })
        }
        scenario_name => {
            let scenario = registry::find(scenario_name).ok_or_else(|| unknown_command(scenario_name))?;
            let mut options = run_options(sub, &[scenario])?;
            options.params = scenario_params(sub, scenario)?;
            scenario.check_params(&resolved_params(scenario, &options)).map_err(UsageError::new)?;
            Ok(Action::Run { scenarios: vec![scenario], options, index: false })
        }
    }
}

/// `lab compare`'s `--format`, or JSON for `--json`.
fn compare_format(sub: &ArgMatches) -> Result<crate::compare::Format, UsageError> {
    if sub.get_flag("json") {
        return Ok(crate::compare::Format::Json);
    }
    let name = sub.get_one::<String>("format").map_or("text", String::as_str);
    crate::compare::Format::named(name).ok_or_else(|| UsageError::new(format!("--format {name}: not a format")))
}

/// `lab <name>` for a name that is neither a command nor a scenario: say where the names are.
pub(crate) fn unknown_command(name: &str) -> UsageError {
    UsageError::new(format!(
        "`{name}` is neither a scenario nor a command: `just lab list` lists the scenarios, `just lab --help` the \
         commands"
    ))
}

fn path(sub: &ArgMatches, id: &str) -> Result<PathBuf, UsageError> {
    sub.get_one::<PathBuf>(id).cloned().ok_or_else(|| UsageError::new(format!("missing <{id}>")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_negative_value_is_a_value_and_the_range_check_refuses_it() {
        let matches = crate::cli::command().try_get_matches_from(["lab", "chain", "--items", "-5"]);
        let matches = matches.expect("a negative number is a value, not a flag");
        let err = from_matches(&matches).expect_err("out of range");
        assert!(err.to_string().contains("--items -5 is out of range"), "{err}");
    }
}
