//! Every default the documentation states is read from the code: the options table and the `lab advise` table of
//! `docs/interface.md`, the README's "How a run measures" and advice paragraph, and the `[default: …]` of `lab
//! <scenario> --help` and `lab advise --help`, each against what the command line resolves to when the option is
//! left out (or, for "usually", against the lab's own repetitions, which a scenario may replace with its own).

#![allow(clippy::unwrap_used)]

use std::path::Path;

use measure::scenario::Repetitions;

use crate::action::{self, Action};
use crate::advise::Request;
use crate::options::RunOptions;
use crate::{cli, cpus};

/// A file of the workspace, read whole.
fn workspace_file(path: &str) -> String {
    let at = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path);
    std::fs::read_to_string(&at).unwrap_or_else(|e| panic!("{}: {e}", at.display()))
}

/// The last cell of the row whose first cell is `` `flag` ``, in the first table after the heading that starts
/// with `heading`.
fn table_default(doc: &str, heading: &str, flag: &str) -> String {
    let after = doc.lines().skip_while(|line| !line.starts_with(heading)).skip(1);
    let mut table = after.skip_while(|line| !line.starts_with('|')).take_while(|line| line.starts_with('|'));
    let first = format!("| `{flag}` |");
    let row = table.find(|line| line.starts_with(&first)).unwrap_or_else(|| panic!("no row {first} under {heading}"));
    row.trim_end().trim_end_matches('|').rsplit('|').next().unwrap_or_default().trim().to_string()
}

/// `text` with every run of white space (line breaks included) made one space, for phrases that may wrap.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What `lab <args>` resolves to.
fn action(args: &[&str]) -> Action {
    let matches = cli::command().try_get_matches_from(args).unwrap_or_else(|e| panic!("{args:?}: {e}"));
    action::from_matches(&matches).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

/// The options of `lab <args>`, a run.
fn run_options(args: &[&str]) -> RunOptions {
    match action(args) {
        Action::Run { options, .. } => options,
        _ => panic!("{args:?} is not a run"),
    }
}

/// The request of `lab <args>`, an advice.
fn advice(args: &[&str]) -> Request {
    match action(args) {
        Action::Advise(request) => *request,
        _ => panic!("{args:?} is not an advice"),
    }
}

/// The help text of `lab <sub>`, on one line.
fn help(sub: &str) -> String {
    let mut command = cli::command();
    let sub = command.find_subcommand_mut(sub).unwrap_or_else(|| panic!("no subcommand {sub}"));
    flat(&sub.render_long_help().to_string())
}

/// "the scenario's, usually N; `--quick`: M": the lab's own repetitions, which a scenario may replace.
fn scenario_default(pick: fn(&Repetitions) -> u32) -> String {
    format!("the scenario's, usually {}; `--quick`: {}", pick(&Repetitions::STANDARD), pick(&Repetitions::QUICK))
}

#[test]
fn the_run_options_table_states_the_code_s_defaults() {
    let doc = workspace_file("docs/interface.md");
    let cell = |flag: &str| table_default(&doc, "### Options every run takes", flag);
    assert_eq!(cell("--forks N"), scenario_default(|r| r.forks));
    assert_eq!(cell("--warmup N"), scenario_default(|r| r.warmup));
    assert_eq!(cell("--iterations N"), scenario_default(|r| r.iterations));
    assert_eq!(cell("--accounting N"), scenario_default(|r| r.accounting));

    // `chain` keeps the lab's own repetitions: what "usually" means.
    let (full, quick) = (run_options(&["lab", "chain"]), run_options(&["lab", "chain", "--quick"]));
    let chain = crate::registry::find("chain").unwrap();
    assert_eq!(full.repetitions(chain), Repetitions::STANDARD);
    assert_eq!(quick.repetitions(chain), Repetitions::QUICK);

    assert_eq!(cell("--out DIR"), format!("`{}/`", full.out.display()));
    assert_eq!(cell("--seed N"), full.seed.to_string());
    assert_eq!(cell("--noise-threshold FRACTION"), full.noise_threshold.to_string());
    let timeout = |o: &RunOptions| o.trial_timeout.as_secs_f64().to_string();
    assert_eq!(cell("--trial-timeout SECONDS"), format!("{}; `--quick`: {}", timeout(&full), timeout(&quick)));
    assert!(!full.quick && !full.force && full.only.is_none() && full.expect_failed.is_empty());
    assert_eq!(
        (cell("--quick"), cell("--force"), cell("--only NAME[,NAME]")),
        ("off".into(), "off".into(), "all".into())
    );
    assert_eq!(cell("--expect-failed NAME[,NAME]"), "none");
    assert!(full.pin.is_none() && full.cores_sweep.is_empty());
    assert_eq!(cell("--cores N[,N...]"), "every CPU the lab may use, unpinned");
    // The floor is looked for in the run's own folder, unless `--floor` names one or none.
    assert_eq!(cell("--floor FILE\\|none"), "`OUT/floor.json`");
    assert_eq!(full.floor, Some(full.out.join("floor.json")));
    assert_eq!(run_options(&["lab", "chain", "--out", "x"]).floor, Some(Path::new("x").join("floor.json")));
    assert_eq!(run_options(&["lab", "chain", "--floor", "f.json"]).floor, Some(Path::new("f.json").to_path_buf()));
    assert_eq!(run_options(&["lab", "all", "--floor", "none"]).floor, None);
    assert!(help("chain").contains("[default: OUT/floor.json]"));

    // `lab chain --help` says the same.
    let text = help("chain");
    let (s, q) = (Repetitions::STANDARD, Repetitions::QUICK);
    for (what, full, quick) in [
        ("Fresh processes per contestant and phase", s.forks, q.forks),
        ("Warm-up iterations per process, discarded", s.warmup, q.warmup),
        ("Measured iterations per process", s.iterations, q.iterations),
    ] {
        assert!(text.contains(&format!("{what} [default: {full}; --quick: {quick}]")), "{what}: {text}");
    }
    assert!(text.contains(&format!("[default: {}; --quick: {}]", s.accounting, q.accounting)), "{text}");
    assert!(text.contains(&format!("recorded with the results [default: {}]", full.seed)), "{text}");
    assert!(
        text.contains(&format!(
            "every metric whose class no calibration of this testbed gives [default: {}]",
            full.noise_threshold
        )),
        "{text}"
    );
    assert!(text.contains(&format!("[default: {}; --quick: {}]", timeout(&full), timeout(&quick))), "{text}");
    assert!(text.contains(&format!("[default: {}]", full.out.display())), "{text}");
}

#[test]
fn the_readme_states_the_code_s_repetitions() {
    let readme = flat(&workspace_file("README.md"));
    let s = Repetitions::STANDARD;
    let stated = format!("default {} × ({} + {} + {})", s.forks, s.warmup, s.iterations, s.accounting);
    assert!(readme.contains(&stated), "the README does not say `{stated}`");
}

#[test]
fn the_advise_table_and_the_readme_state_the_code_s_defaults() {
    let doc = workspace_file("docs/interface.md");
    let cell = |flag: &str| table_default(&doc, "### `lab advise", flag);
    let request = advice(&["lab", "advise", "--dry-run"]);
    let shape = &request.shape;
    assert_eq!(cell("--cpu-us-per-item µs"), shape.cpu_us_per_item.to_string());
    assert_eq!(cell("--items N"), shape.items.to_string());
    assert_eq!((cell("--items-per-second N"), shape.items_per_second), ("none".to_string(), None));
    assert_eq!(cell("--io-calls-per-item N"), shape.io_calls_per_item.to_string());
    assert_eq!(cell("--io-latency-ms ms"), shape.io_latency_ms.to_string());
    assert_eq!(cell("--in-flight N"), shape.in_flight.to_string());
    assert!(!shape.ordered && !shape.loses_capacity && !shape.batchable);
    for flag in ["--ordered", "--dependency-loses-capacity", "--batchable", "--dry-run"] {
        assert_eq!(cell(flag), "off", "{flag}");
    }
    assert_eq!(
        (cell("--capacity-after N"), shape.capacity_after),
        ("a fifth of `--in-flight`".into(), shape.in_flight / 5)
    );
    assert_eq!(
        (cell("--cores N"), shape.cores as usize),
        ("every core the lab may use".into(), cpus::allowed_cpus().len())
    );
    assert_eq!(cell("--budget SECONDS"), request.budget_s.to_string());
    assert_eq!(cell("--forks N"), request.forks.to_string());
    assert_eq!(cell("--out DIR"), format!("`{}`", request.out.display()));

    let readme = flat(&workspace_file("README.md"));
    for stated in
        [format!("in {} fresh processes each", request.forks), format!("(`--budget`, {} s;", request.budget_s)]
    {
        assert!(readme.contains(&stated), "the README does not say `{stated}`");
    }

    // `lab advise --help` says the same.
    let text = help("advise");
    for stated in [
        format!(
            "in µs (mapped onto the chain's mixing rounds by timing one round here) [default: {}]",
            shape.cpu_us_per_item
        ),
        format!("Items in all [default: {}]", shape.items),
        format!("(0: none) [default: {}]", shape.io_calls_per_item),
        format!("Latency of one I/O call, in ms [default: {}]", shape.io_latency_ms),
        format!("may be in flight at once [default: {}]", shape.in_flight),
        format!("[default: {}]", request.budget_s),
        format!("Fresh processes per contestant and phase [default: {}]", request.forks),
        format!("[default: {}]", request.seed),
        format!("[default: {}]", request.out.display()),
    ] {
        assert!(text.contains(&stated), "`lab advise --help` does not say `{stated}`: {text}");
    }
}
