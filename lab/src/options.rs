//! Typed options from the parsed command line, with their defaults, and the cross-checks that clap cannot do.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use clap::ArgMatches;
use measure::record::RunParams;
use measure::scenario::{Repetitions, Scenario};

use measure::setup::{cpu_list, Pin};

use crate::cpus::allowed_cpus;
use crate::error::UsageError;

/// How to run: repetitions, selection, output and parameter overrides.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RunOptions {
    /// Small sizes, few repetitions.
    pub quick: bool,
    /// Output folder.
    pub out: PathBuf,
    /// Replace reports in the output folder of the other run kind (`--quick` over full, or the reverse).
    pub force: bool,
    /// Contestants to run (`None`: all).
    pub only: Option<Vec<String>>,
    /// `--paired A,B`: only these two, their processes alternating, answered as A against B; empty otherwise.
    pub paired: Vec<String>,
    /// `--expect-failed`: contestants expected to fail besides those their scenario declares ([`crate::outcome`]).
    pub expect_failed: Vec<String>,
    /// Fresh processes per contestant and phase (`None`: the scenario's default, see [`Scenario::repetitions`]).
    pub forks: Option<u32>,
    /// Warm-up iterations per process (`None`: the scenario's default).
    pub warmup: Option<u32>,
    /// Measured iterations per process (`None`: the scenario's default).
    pub iterations: Option<u32>,
    /// Accounting iterations per process (`None`: the scenario's default).
    pub accounting: Option<u32>,
    /// Seed for inputs and order.
    pub seed: u64,
    /// Relative difference under which results count as noise: the uncalibrated default, for every metric whose
    /// class the calibration does not give.
    pub noise_threshold: f64,
    /// The calibration the judge reads its thresholds from when it matches the run's testbed
    /// ([`crate::calibrate::judged_with`]); `None`: none (`--calibration none`).
    pub calibration: Option<PathBuf>,
    /// The machine's floor the run cites when it was measured on the run's testbed and build
    /// ([`crate::floor::cited`]); `None`: none (`--floor none`). By default `<out>/floor.json`.
    pub floor: Option<PathBuf>,
    /// Per-trial time budget.
    pub trial_timeout: Duration,
    /// Parameter values given on the command line, by parameter key.
    pub params: BTreeMap<String, Vec<u64>>,
    /// The CPUs every trial process is pinned to (`--cores N`: the first N the lab may use); `None`: unpinned.
    pub pin: Option<Pin>,
    /// `--cores A,B,...` with two or more counts: the whole run is made once per pin, each into `out/cores-N`,
    /// and the answers are then set side by side (`pin` is `None`); empty otherwise.
    pub cores_sweep: Vec<Pin>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            quick: false,
            out: PathBuf::from("reports"),
            force: false,
            only: None,
            paired: Vec::new(),
            expect_failed: Vec::new(),
            forks: None,
            warmup: None,
            iterations: None,
            accounting: None,
            seed: 1,
            noise_threshold: 0.2,
            calibration: Some(PathBuf::from(DEFAULT_CALIBRATION)),
            floor: Some(PathBuf::from("reports").join(FLOOR_FILE)),
            trial_timeout: Duration::from_secs(300),
            params: BTreeMap::new(),
            pin: None,
            cores_sweep: Vec::new(),
        }
    }
}

impl RunOptions {
    /// Repetitions for `scenario`: the command line's where given, else the scenario's defaults.
    pub(crate) fn repetitions(&self, scenario: &dyn Scenario) -> Repetitions {
        let defaults = scenario.repetitions(self.quick);
        Repetitions {
            forks: self.forks.unwrap_or(defaults.forks),
            warmup: self.warmup.unwrap_or(defaults.warmup),
            iterations: self.iterations.unwrap_or(defaults.iterations),
            accounting: self.accounting.unwrap_or(defaults.accounting),
        }
    }

    /// The defaults of a `--quick` run.
    fn quick() -> Self {
        RunOptions { quick: true, trial_timeout: Duration::from_secs(60), ..Self::default() }
    }
}

/// Where a run looks for its calibration unless `--calibration` says otherwise (relative to the working directory:
/// the committed one when the lab runs from the repository's root, as `just lab` does).
pub(crate) const DEFAULT_CALIBRATION: &str = "reports/calibration.json";

/// `--calibration FILE|none` of `sub`: the file, `None` for `none`, the default when not given.
pub(crate) fn calibration(sub: &ArgMatches) -> Option<PathBuf> {
    match sub.get_one::<PathBuf>("calibration") {
        Some(path) if path.as_os_str() == "none" => None,
        Some(path) => Some(path.clone()),
        None => Some(PathBuf::from(DEFAULT_CALIBRATION)),
    }
}

/// The file `lab floor` writes into its `--out` folder, where a run looks for the floor of its sitting.
pub(crate) const FLOOR_FILE: &str = "floor.json";

/// `--floor FILE|none` of `sub`: the file, `None` for `none`, `out/floor.json` when not given.
pub(crate) fn floor(sub: &ArgMatches, out: &std::path::Path) -> Option<PathBuf> {
    match sub.get_one::<PathBuf>("floor") {
        Some(path) if path.as_os_str() == "none" => None,
        Some(path) => Some(path.clone()),
        None => Some(out.join(FLOOR_FILE)),
    }
}

/// `--out` of `sub`, or `reports`.
pub(crate) fn out_dir(sub: &ArgMatches) -> PathBuf {
    sub.get_one::<PathBuf>("out").cloned().unwrap_or_else(|| PathBuf::from("reports"))
}

/// The run options of `sub` (`lab <scenario>` or `lab all` over `scenarios`), validated.
pub(crate) fn run_options(sub: &ArgMatches, scenarios: &[&'static dyn Scenario]) -> Result<RunOptions, UsageError> {
    let quick = sub.get_flag("quick");
    let base = if quick { RunOptions::quick() } else { RunOptions::default() };
    let noise_threshold = sub.get_one::<f64>("noise-threshold").copied().unwrap_or(base.noise_threshold);
    if !(0.0..10.0).contains(&noise_threshold) {
        return Err(UsageError::new(format!("--noise-threshold must be in [0, 10), got {noise_threshold}")));
    }
    let trial_timeout = match sub.get_one::<f64>("trial-timeout") {
        Some(&s) if s.is_finite() && s > 0.0 && s <= 86_400.0 => Duration::from_secs_f64(s),
        Some(&s) => return Err(UsageError::new(format!("--trial-timeout must be in (0, 86400] seconds, got {s}"))),
        None => base.trial_timeout,
    };
    let mut only = match sub.get_one::<String>("only") {
        None => None,
        Some(list) => Some(validate_names("--only", list, scenarios)?),
    };
    let paired = match sub.get_one::<String>("paired") {
        None => Vec::new(),
        Some(list) => paired(list, only.is_some(), scenarios)?,
    };
    if !paired.is_empty() {
        only = Some(paired.clone());
    }
    let pins = match sub.get_one::<String>("cores") {
        Some(raw) => pins(raw, &allowed_cpus())?,
        None => Vec::new(),
    };
    let out = out_dir(sub);
    Ok(RunOptions {
        quick,
        floor: floor(sub, &out),
        out,
        force: sub.get_flag("force"),
        only,
        expect_failed: expect_failed(sub, scenarios)?,
        // A pairing runs twice the scenario's processes unless told: its own A/A pairs then have arms of the
        // lab's process count.
        forks: sub.get_one::<u32>("forks").copied().or_else(|| {
            (!paired.is_empty() && scenarios.len() == 1).then(|| 2 * scenarios[0].repetitions(quick).forks)
        }),
        paired,
        warmup: sub.get_one::<u32>("warmup").copied(),
        iterations: sub.get_one::<u32>("iterations").copied(),
        accounting: sub.get_one::<u32>("accounting").copied(),
        seed: sub.get_one::<u64>("seed").copied().unwrap_or(base.seed),
        noise_threshold,
        calibration: calibration(sub),
        trial_timeout,
        params: BTreeMap::new(),
        pin: if pins.len() == 1 { pins.first().cloned() } else { None },
        cores_sweep: if pins.len() > 1 { pins } else { Vec::new() },
    })
}

/// `--paired A,B`: two different contestants of the one scenario run, and no `--only` beside it.
fn paired(list: &str, only: bool, scenarios: &[&'static dyn Scenario]) -> Result<Vec<String>, UsageError> {
    if scenarios.len() != 1 {
        return Err(UsageError::new("--paired pairs two contestants of one scenario: give it to `lab <scenario>`"));
    }
    if only {
        return Err(UsageError::new("--paired names the two contestants it runs: leave --only out"));
    }
    let names = validate_names("--paired", list, scenarios)?;
    if names.len() != 2 || names[0] == names[1] {
        return Err(UsageError::new(format!("--paired takes two different contestants, A,B; got `{list}`")));
    }
    Ok(names)
}

/// The CPUs the lab may use, in words, for a refusal.
fn allowed_words(allowed: &[usize]) -> String {
    if allowed.is_empty() {
        "the CPUs the lab may use could not be read".to_string()
    } else {
        format!("the lab may use {} CPU(s): {}", allowed.len(), cpu_list(allowed))
    }
}

/// The pins `--cores RAW` asks for: one per comma-separated count ([`pin`]), in the order given; a count given
/// twice is bad usage.
pub(crate) fn pins(raw: &str, allowed: &[usize]) -> Result<Vec<Pin>, UsageError> {
    let mut pins: Vec<Pin> = Vec::new();
    for one in raw.split(',') {
        let p = pin(one, allowed)?;
        if pins.iter().any(|q| q.cores == p.cores) {
            let why = format!("--cores {}: {} is given twice ({})", raw.trim(), p.cores, allowed_words(allowed));
            return Err(UsageError::new(why));
        }
        pins.push(p);
    }
    Ok(pins)
}

/// The pin one count of `--cores` asks for among `allowed` (the CPUs the lab may use, in order): the first N of
/// them. Zero, a non-number or more than `allowed` holds is bad usage, each message naming the allowed CPUs.
pub(crate) fn pin(raw: &str, allowed: &[usize]) -> Result<Pin, UsageError> {
    let allowed_words = allowed_words(allowed);
    let raw = raw.trim();
    let cores: i128 = raw
        .replace('_', "")
        .parse()
        .map_err(|_| UsageError::new(format!("--cores: `{raw}` is not a whole number ({allowed_words})")))?;
    if cores < 1 {
        return Err(UsageError::new(format!("--cores must be at least 1, got {cores} ({allowed_words})")));
    }
    if allowed.is_empty() || cores > allowed.len() as i128 {
        return Err(UsageError::new(format!("--cores {cores} is too many: {allowed_words}")));
    }
    let cpus: Vec<usize> = allowed.iter().copied().take(cores as usize).collect();
    Ok(Pin { cores: cores as u32, cpus })
}

/// Every parameter of `scenario` with the value the run will use: the command line's, else the default (or the
/// `--quick` default).
pub(crate) fn resolved_params(scenario: &dyn Scenario, options: &RunOptions) -> RunParams {
    scenario
        .params()
        .iter()
        .map(|spec| {
            let values = options.params.get(&spec.key()).cloned().unwrap_or_else(|| {
                if options.quick {
                    spec.quick.clone()
                } else {
                    spec.default.clone()
                }
            });
            (spec.key(), values)
        })
        .collect()
}

/// `--expect-failed`'s names, each a contestant of `scenarios` (listed, or on request; empty when not given).
pub(crate) fn expect_failed(sub: &ArgMatches, scenarios: &[&'static dyn Scenario]) -> Result<Vec<String>, UsageError> {
    match sub.get_one::<String>("expect-failed") {
        None => Ok(Vec::new()),
        Some(list) => validate_names("--expect-failed", list, scenarios),
    }
}

/// The comma-separated contestant names of `flag`, each a contestant of `scenarios`.
fn validate_names(flag: &str, list: &str, scenarios: &[&'static dyn Scenario]) -> Result<Vec<String>, UsageError> {
    let names: Vec<String> = list.split(',').map(str::trim).filter(|s| !s.is_empty()).map(String::from).collect();
    if names.is_empty() {
        return Err(UsageError::new(format!("{flag} needs at least one contestant name")));
    }
    let known: Vec<String> = scenarios
        .iter()
        .flat_map(|s| s.contestants().into_iter().chain(s.contestants_on_request()))
        .map(|c| c.name)
        .collect::<Vec<_>>();
    for name in &names {
        if !known.contains(name) {
            return Err(UsageError::new(format!("{flag}: unknown contestant `{name}` (known: {})", known.join(", "))));
        }
    }
    Ok(names)
}

/// The scenario's own parameters given on the command line (`--items 500000`, `--work 0,16,64`), parsed as
/// `N[,N...]` and checked against the scenario's ranges.
pub(crate) fn scenario_params(
    sub: &ArgMatches,
    scenario: &dyn Scenario,
) -> Result<BTreeMap<String, Vec<u64>>, UsageError> {
    let mut params = BTreeMap::new();
    for spec in scenario.params() {
        let Some(raw) = sub.get_one::<String>(spec.name) else { continue };
        let values = parse_values(raw).map_err(|why| UsageError::new(format!("--{}: {why}", spec.name)))?;
        if !spec.sweep && values.len() > 1 {
            return Err(UsageError::new(format!("--{} takes one value, got {}", spec.name, values.len())));
        }
        let mut checked = Vec::with_capacity(values.len());
        for &v in &values {
            match u64::try_from(v) {
                Ok(value) if (spec.min..=spec.max).contains(&value) => checked.push(value),
                _ => {
                    return Err(UsageError::new(format!(
                        "--{} {v} is out of range ({}..={})",
                        spec.name, spec.min, spec.max
                    )))
                }
            }
        }
        params.insert(spec.key(), checked);
    }
    Ok(params)
}

/// Parse `N[,N...]` (underscores allowed as digit separators), rejecting empty lists and duplicates. A negative
/// number parses, so that the range check refuses it by its range rather than as garbage.
pub(crate) fn parse_values(raw: &str) -> Result<Vec<i128>, String> {
    let mut values = Vec::new();
    for part in raw.split(',') {
        let digits = part.trim().replace('_', "");
        let value: i128 = digits.parse().map_err(|_| format!("`{}` is not a whole number", part.trim()))?;
        if values.contains(&value) {
            return Err(format!("{value} is given twice"));
        }
        values.push(value);
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_parse_with_separators() {
        assert_eq!(parse_values("1_000,64"), Ok(vec![1000, 64]));
    }

    #[test]
    fn values_reject_garbage_and_duplicates() {
        assert!(parse_values("ten").is_err());
        assert!(parse_values("").is_err());
        assert!(parse_values("1,1").is_err());
        assert!(parse_values("1.5").is_err());
    }

    #[test]
    fn cores_pin_the_first_allowed_cpus() {
        assert_eq!(pin("1", &[2, 3]), Ok(Pin { cores: 1, cpus: vec![2] }));
        assert_eq!(pin(" 2 ", &[0, 1]), Ok(Pin { cores: 2, cpus: vec![0, 1] }));
    }

    #[test]
    fn bad_cores_are_refused_naming_the_allowed_cpus() {
        let refused = |raw: &str| pin(raw, &[0, 1]).expect_err(raw).to_string();
        assert_eq!(refused("0"), "--cores must be at least 1, got 0 (the lab may use 2 CPU(s): 0-1)");
        assert_eq!(refused("-1"), "--cores must be at least 1, got -1 (the lab may use 2 CPU(s): 0-1)");
        assert_eq!(refused("x"), "--cores: `x` is not a whole number (the lab may use 2 CPU(s): 0-1)");
        assert_eq!(refused("3"), "--cores 3 is too many: the lab may use 2 CPU(s): 0-1");
        assert_eq!(pins("1,2", &[0, 1]).map(|p| p.len()), Ok(2), "a list sweeps the core counts");
        assert_eq!(pins("2, 1", &[0, 1]).map(|p| p.iter().map(|p| p.cores).collect::<Vec<_>>()), Ok(vec![2, 1]));
        assert_eq!(
            pins("1,1", &[0, 1]).expect_err("twice").to_string(),
            "--cores 1,1: 1 is given twice (the lab may use 2 CPU(s): 0-1)"
        );
        assert!(pins("1,3", &[0, 1]).expect_err("too many").to_string().starts_with("--cores 3 is too many"));
        assert!(pin("1", &[]).is_err(), "nothing to pin to");
    }

    #[test]
    fn a_negative_value_parses() {
        assert_eq!(parse_values("-3"), Ok(vec![-3]));
    }
}
