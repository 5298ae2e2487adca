//! The markdown report: a snapshot of a hand-built run, and byte-identical output on every render.
#![allow(clippy::unwrap_used)]

mod common;

#[test]
fn the_report_of_a_run_with_a_failed_contestant_matches_its_snapshot() {
    let summary = common::summary();
    let markdown = reports::markdown::render_markdown(&common::input(&summary));
    insta::assert_snapshot!("chain_report", markdown);
}

#[test]
fn rendering_twice_gives_identical_bytes() {
    let summary = common::summary();
    let first = reports::render(&common::input(&summary));
    let second = reports::render(&common::input(&summary));
    assert_eq!(first, second);
    let paths: Vec<&str> = first.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        ["chain.md", "chain.json", "img/chain-ms.svg", "img/chain-sweep.svg", "img/chain-outstanding.svg"]
    );
}

#[test]
fn the_report_embeds_every_chart_it_renders() {
    let summary = common::summary();
    let rendered = reports::render(&common::input(&summary));
    let markdown = &rendered.file("chain.md").unwrap().contents;
    for file in rendered.files.iter().filter(|f| f.path.ends_with(".svg")) {
        assert!(markdown.contains(&format!("]({})", file.path)), "{} is not embedded", file.path);
    }
}

#[test]
fn an_interrupted_quick_run_says_so_in_its_status_line() {
    let mut summary = common::summary();
    summary.finished_utc.clear();
    summary.method.quick = true;
    let markdown = reports::markdown::render_markdown(&common::input(&summary));
    let status = markdown.lines().find(|l| l.starts_with("**Status:**")).unwrap();
    assert!(status.contains("`blocking-crossbeam` failed"));
    assert!(status.contains("interrupted"));
    assert!(status.contains("numbers not for conclusions"));
}

#[test]
fn a_scenario_without_phases_uses_plain_metric_names() {
    let mut summary = common::summary();
    summary.phases.clear();
    for contestant in &mut summary.contestants {
        contestant.metrics = contestant
            .metrics
            .iter()
            .filter_map(|(k, v)| k.strip_prefix("work_0.").map(|k| (k.to_string(), v.clone())))
            .collect();
    }
    let markdown = reports::markdown::render_markdown(&common::input(&summary));
    assert!(markdown.contains("The best stream contestant `stream-map` takes **2.10×** the baseline `baseline-loop`"));
    assert!(!markdown.contains("### `work_0`"));
}
