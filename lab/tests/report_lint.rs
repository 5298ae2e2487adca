//! Every sentence renders whole: every committed raw file in `reports/raw/` is rendered with the current code,
//! in this process, through the functions `lab report` uses (`raw::read`, `raw::newest_per_scenario`,
//! `registry::find`, `render::render`, `render::index::render_index`), and every report and the index must pass
//! `measure::template::lint`. `LAB_LINT_DIR=<folder>` lints the reports a run wrote there instead (`just test`
//! does it for the quick run's). Any finding fails.

mod committed;

use committed::{answers, environment, error, phase, raw, registry, rendering, summarize, table, term};

use std::collections::BTreeSet;

/// The findings of one report, each as `<report>: <finding>` with its line number left out.
fn findings(report: &str, markdown: &str) -> Vec<String> {
    measure::template::lint(markdown)
        .into_iter()
        .map(|f| {
            let finding =
                f.split_once(": ").filter(|(at, _)| at.starts_with("line ")).map_or(f.as_str(), |(_, rest)| rest);
            format!("{report}: {finding}")
        })
        .collect()
}

/// The links of `markdown` (`[text](target)`, images included) to a file that is neither among `own`, the files
/// its own render writes, nor a web address: each as `<report>: links <target>, which its render does not write`.
/// A report may land in a folder without any other report (`lab <scenario> --out DIR`, an advice's folder), so a
/// link to another scenario's report would be broken there.
fn links_outside(report: &str, markdown: &str, own: &BTreeSet<&str>) -> Vec<String> {
    markdown
        .split("](")
        .skip(1)
        .filter_map(|rest| rest.split_once(')').map(|(target, _)| target))
        .map(|target| target.split_once('#').map_or(target, |(file, _)| file))
        .filter(|file| !file.is_empty() && !file.contains("://") && !own.contains(file))
        .map(|file| format!("{report}: links {file}, which its render does not write"))
        .collect()
}

/// Fail on every finding, each named once.
fn check(found: &[String], what: &str) {
    let found: BTreeSet<&String> = found.iter().collect();
    assert!(
        found.is_empty(),
        "{what}: {} finding(s) where a sentence did not render whole:\n{}",
        found.len(),
        found.iter().map(|f| format!("  {f}")).collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn every_committed_report_renders_whole() {
    let paths = committed::raw_files("reports/raw");
    let runs: Vec<_> = paths.into_iter().map(|p| (p.clone(), raw::read(&p).expect("a readable raw file"))).collect();
    let (runs, _) = raw::newest_per_scenario(runs);
    assert!(!runs.is_empty(), "no raw file in reports/raw: nothing was checked");
    let mut found = Vec::new();
    let mut entries = Vec::new();
    let mut rendered_scenarios = Vec::new();
    // Each run rendered on its own thread (summarising a full run is most of this test's time), in the runs' order.
    let rendered: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = runs
            .iter()
            .filter_map(|(_, run)| registry::find(&run.header.scenario).map(|scenario| (run, scenario)))
            .map(|(run, scenario)| scope.spawn(move || (scenario, rendering::render(run, scenario, None))))
            .collect();
        handles.into_iter().map(|h| h.join().expect("rendering a committed run")).collect()
    });
    for (scenario, rendered) in rendered {
        // What the render writes, and the raw file `lab` copies beside it.
        let own: BTreeSet<&str> =
            rendered.files.files.iter().map(|f| f.path.as_str()).chain([rendered.summary.raw_file.as_str()]).collect();
        for file in rendered.files.files.iter().filter(|f| f.path.ends_with(".md")) {
            found.extend(findings(&file.path, &file.contents));
            found.extend(links_outside(&file.path, &file.contents, &own));
        }
        // Every finding the scenario declares is judged into its summary before rendering, each id once.
        let declared: Vec<String> =
            scenario.finding_table(&rendered.summary).iter().map(|f| f.id.to_string()).collect();
        let judged: Vec<&str> = rendered.summary.findings.iter().map(|f| f.id.as_str()).collect();
        assert_eq!(judged, declared, "{}: the summary's findings are not the declared rows", scenario.name());
        let unique: BTreeSet<&str> = judged.iter().copied().collect();
        assert_eq!(unique.len(), judged.len(), "{}: a finding id repeats", scenario.name());
        assert!(judged.iter().all(|id| !id.is_empty()), "{}: a finding without an id", scenario.name());
        entries.push(rendered.index_entry);
        rendered_scenarios.push(scenario.name());
    }
    // Every scenario the lab has was checked, from its committed run.
    for scenario in registry::scenarios() {
        assert!(rendered_scenarios.contains(&scenario.name()), "no committed raw file of `{}`", scenario.name());
    }
    found.extend(findings("index.md", &render::index::render_index(&entries)));
    check(&found, "committed reports");
}

#[test]
fn the_reports_of_a_run_read_whole_when_asked() {
    let Ok(dir) = std::env::var("LAB_LINT_DIR") else {
        eprintln!("not applicable: LAB_LINT_DIR is not set (`just test` sets it to the quick run's folder)");
        return;
    };
    let mut found = Vec::new();
    let mut read = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("LAB_LINT_DIR={dir}: {e}")) {
        let path = entry.expect("a folder entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
            found.extend(findings(&name, &std::fs::read_to_string(&path).expect("a readable report")));
            read += 1;
        }
    }
    assert!(read > 0, "LAB_LINT_DIR={dir} holds no report");
    check(&found, &dir);
}
