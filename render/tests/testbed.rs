//! The testbed in every report: a run that recorded its testbed, default limits, pin and runtime sizes shows them
//! as tables (setting, value, where it came from) and its pin in the method; a run made before shows none of it.
#![allow(clippy::unwrap_used)]

mod common;

use measure::setup::{Pin, Setting, Testbed};

/// The common run with a testbed, a pin to CPU 0 and a network server row.
fn recorded() -> measure::summary::Summary {
    let mut summary = common::summary();
    summary.environment.limits.insert("vm.max_map_count".to_string(), "65530".to_string());
    summary.environment.testbed = Some(Testbed {
        smt: Setting::new("smt", "1", "/proc/cpuinfo: siblings 2 ÷ cpu cores 2"),
        virtualised: Setting::new("virtualised", "yes", "`hypervisor` flag in /proc/cpuinfo"),
        governor: Setting::new("governor", "not readable", "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        cpuset: Setting::new("cpuset", "0-1 (2 CPUs)", "sched_getaffinity(2) of the lab process"),
        cgroup: vec![Setting::new("cgroup.cpu_quota", "none", "/sys/fs/cgroup/cpu.max (`max 100000`)")],
        limits: vec![
            Setting::new("vm.max_map_count", "65530", "/proc/sys/vm/max_map_count"),
            Setting::new("tokio.max_blocking_threads", "512", "tokio's default"),
            Setting::new("some.future_limit", "7", "somewhere"),
        ],
    });
    summary.environment.pin = Some(Pin { cores: 1, cpus: vec![0] });
    summary.environment.runtimes = vec![
        Setting::new("tokio.worker_threads", "1", "tokio's default worker count"),
        Setting::new("network.server", "shares the client's 1 CPU(s), nothing pinned apart", "network/src/affinity.rs"),
    ];
    summary
}

/// `markdown` with every run of spaces one space: the table cells without their padding.
fn flat(markdown: &str) -> String {
    markdown.split(' ').filter(|s| !s.is_empty()).collect::<Vec<_>>().join(" ")
}

#[test]
fn a_run_that_recorded_its_testbed_lists_every_setting_with_where_it_came_from() {
    let summary = recorded();
    for markdown in [
        render::markdown::render_markdown(&common::input(&summary)),
        render::markdown::render_details(&common::input(&summary)),
    ] {
        let markdown = flat(&markdown);
        assert!(markdown.contains("| setting "), "{markdown}");
        assert!(markdown.contains("| where it came from |"), "{markdown}");
        assert!(markdown.contains("| SMT: hardware threads per core | 1 | /proc/cpuinfo: siblings 2 ÷ cpu cores 2 |"));
        assert!(markdown.contains("| virtual machine | yes |"), "{markdown}");
        assert!(markdown.contains("| CPU time its cgroup allows | none |"), "{markdown}");
        assert!(markdown.contains("| tokio's blocking pool, most threads | 512 | tokio's default |"), "{markdown}");
        assert!(markdown.contains("| `some.future_limit` | 7 | somewhere |"), "an unknown setting keeps its name");
        assert!(!markdown.contains("OS limit `vm.max_map_count`"), "the limit is listed once, with its source");
        assert!(markdown.contains("| inside each trial process "), "{markdown}");
        assert!(markdown.contains("| tokio worker threads (multi-thread runtime) | 1 |"), "{markdown}");
        assert!(markdown.contains("every one pinned to CPU 0 by `--cores 1`"), "{markdown}");
        assert!(
            markdown.contains(
                "- Pinned by `--cores 1`: every trial process, and every thread it starts, to CPU 0 with \
                 `sched_setaffinity`"
            ),
            "{markdown}"
        );
        assert!(markdown.contains("The loopback server: shares the client's 1 CPU(s), nothing pinned apart."));
    }
}

#[test]
fn a_run_made_before_the_testbed_was_recorded_renders_as_it_did() {
    let mut summary = common::summary();
    summary.environment.limits.insert("vm.max_map_count".to_string(), "65530".to_string());
    let markdown = render::markdown::render_markdown(&common::input(&summary));
    assert!(markdown.contains("OS limit `vm.max_map_count`"), "{markdown}");
    for absent in ["where it came from", "inside each trial process", "Pinned by", "--cores"] {
        assert!(!markdown.contains(absent), "`{absent}` in a report without a testbed: {markdown}");
    }
}

#[test]
fn runtimes_without_a_testbed_or_pin_still_show() {
    let mut summary = common::summary();
    summary.environment.runtimes = vec![Setting::new("may.carriers", "2", "fixed by the lab")];
    let markdown = flat(&render::markdown::render_markdown(&common::input(&summary)));
    assert!(markdown.contains("| `may` carrier threads | 2 | fixed by the lab |"), "{markdown}");
    assert!(!markdown.contains("| setting "), "{markdown}");
    assert!(!markdown.contains("Pinned by"), "{markdown}");
}

/// The floor a run cites: two figures, one with three process medians, one that could not run here.
fn cited_floor() -> measure::floor::FloorUse {
    let figure = |key: &str, medians: &[f64], not_applicable: Option<&str>| {
        let cpu: Vec<f64> = medians.iter().map(|m| m * 2.0).collect();
        measure::floor::FloorFigure {
            not_applicable: not_applicable.map(String::from),
            ..measure::floor::FloorFigure::of_processes(key, &format!("one {key}"), medians.to_vec(), &cpu)
        }
    };
    measure::floor::FloorUse {
        file: "reports/floor.json".to_string(),
        measured_utc: "2026-12-07T03:00:00Z".to_string(),
        git_rev: "abc1234".to_string(),
        git_dirty: false,
        quick: false,
        processes: 3,
        figures: vec![
            figure("wake_same_cpu", &[900.0, 1000.0, 1100.0], None),
            figure("wake_across_cpus", &[], Some("needs 2 CPUs; this process may use 1")),
        ],
        not_cited: None,
    }
}

#[test]
fn a_run_that_cites_its_floor_shows_each_figure_with_its_process_medians() {
    let mut summary = recorded();
    summary.environment.floor = Some(cited_floor());
    for markdown in [
        render::markdown::render_markdown(&common::input(&summary)),
        render::markdown::render_details(&common::input(&summary)),
    ] {
        let markdown = flat(&markdown);
        assert!(markdown.contains("The machine's floor of this sitting, measured by `lab floor` (reports/floor.json)"));
        assert!(markdown.contains("at revision `abc1234` from 2026-12-07T03:00:00Z"), "{markdown}");
        assert!(markdown.contains("| `wake_same_cpu` | one wake_same_cpu | 1,000 | 900–1,100 (900, 1,000, 1,100) |"));
        assert!(markdown.contains("| `wake_across_cpus` | one wake_across_cpus | not applicable: needs 2 CPUs"));
        assert!(!markdown.contains("No floor of this testbed"), "{markdown}");
    }
}

#[test]
fn a_run_that_cites_no_floor_says_why_and_how_to_measure_one() {
    let mut summary = recorded();
    summary.environment.floor = Some(measure::floor::FloorUse {
        file: "reports/floor.json".to_string(),
        not_cited: Some("reports/floor.json is a --quick floor and this is a full run".to_string()),
        ..Default::default()
    });
    let markdown = flat(&render::markdown::render_markdown(&common::input(&summary)));
    assert!(
        markdown.contains(
            "No floor of this testbed is cited: reports/floor.json is a --quick floor and this is a full run. \
             `just lab floor` measures"
        ),
        "{markdown}"
    );
    assert!(!markdown.contains("| mechanism |"), "{markdown}");
    // Without a testbed or runtimes, the reason still shows.
    let mut bare = common::summary();
    bare.environment.floor = Some(measure::floor::FloorUse::none());
    let markdown = render::markdown::render_markdown(&common::input(&bare));
    assert!(markdown.contains("No floor of this testbed is cited: --floor none: the run cited no floor."));
}

#[test]
fn a_run_made_before_runs_cited_a_floor_says_nothing_of_one() {
    let markdown = render::markdown::render_markdown(&common::input(&recorded()));
    for absent in ["The machine's floor", "No floor of this testbed"] {
        assert!(!markdown.contains(absent), "`{absent}` in a report made before runs cited a floor: {markdown}");
    }
}

#[test]
fn a_summary_with_its_floor_round_trips_through_json() {
    let mut summary = recorded();
    summary.environment.floor = Some(cited_floor());
    let text = serde_json::to_string(&summary).unwrap();
    let back: measure::summary::Summary = serde_json::from_str(&text).unwrap();
    assert_eq!(back.environment.floor, summary.environment.floor);
    // A summary written before runs cited a floor still parses, with none.
    let mut old: serde_json::Value = serde_json::from_str(&text).unwrap();
    old["environment"].as_object_mut().unwrap().remove("floor");
    let old: measure::summary::Summary = serde_json::from_value(old).unwrap();
    assert_eq!(old.environment.floor, None);
}
