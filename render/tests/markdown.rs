//! The markdown report: a snapshot of a hand-built run, and byte-identical output on every render.
#![allow(clippy::unwrap_used)]

mod common;

#[test]
fn the_report_of_a_run_with_a_failed_contestant_matches_its_snapshot() {
    let summary = common::summary();
    let markdown = render::markdown::render_markdown(&common::input(&summary));
    insta::assert_snapshot!("chain_report", markdown);
}

#[test]
fn rendering_twice_gives_identical_bytes() {
    let summary = common::summary();
    let first = render::render(&common::input(&summary));
    let second = render::render(&common::input(&summary));
    assert_eq!(first, second);
    let paths: Vec<&str> = first.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "chain.md",
            "chain-details.md",
            "chain.json",
            "img/chain-ms.svg",
            "img/chain-sweep.svg",
            "img/chain-outstanding.svg"
        ]
    );
}

#[test]
fn the_report_embeds_every_chart_it_renders() {
    let summary = common::summary();
    let rendered = render::render(&common::input(&summary));
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
    let markdown = render::markdown::render_markdown(&common::input(&summary));
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
    let markdown = render::markdown::render_markdown(&common::input(&summary));
    let details = render::markdown::render_details(&common::input(&summary));
    assert!(details.contains("The best stream contestant `stream-map` takes **2.10×** the baseline `baseline-loop`"));
    assert!(!markdown.contains("### `work_0`"));
}

/// The text of the `## Answer` section.
fn answer(markdown: &str) -> &str {
    let start = markdown.find("## Answer").unwrap();
    let end = markdown[start..].find("\n## ").unwrap() + start;
    &markdown[start..end]
}

#[test]
fn the_report_opens_with_its_answer_after_the_status_line() {
    let summary = common::summary();
    let markdown = render::markdown::render_markdown(&common::input(&summary));
    let status = markdown.find("**Status:**").unwrap();
    assert!(status < markdown.find("## Answer").unwrap());
    assert!(markdown.find("## Answer").unwrap() < markdown.find("## Question").unwrap());
    assert!(answer(&markdown).contains("- **Judged with**: "), "{markdown}");
    assert!(answer(&markdown).contains("- **Claims**: "), "{markdown}");
}

#[test]
fn the_long_parts_are_in_the_appendix_and_method_and_environment_stay_collapsed() {
    let summary = common::summary();
    let markdown = render::markdown::render_markdown(&common::input(&summary));
    let details = render::markdown::render_details(&common::input(&summary));
    for title in ["Method", "Environment"] {
        let summary_line = format!("<details>\n<summary>{title}</summary>\n\n");
        let at = markdown.find(&summary_line).unwrap_or_else(|| panic!("{title} is not collapsed: {markdown}"));
        assert!(at > markdown.find("## What the numbers mean").unwrap(), "{title} comes before the discussion");
    }
    assert_eq!(markdown.matches("<details>").count(), markdown.matches("</details>").count());
    assert!(markdown.contains("[`chain-details.md`](chain-details.md)"), "the report points to its appendix");
    for title in ["Contestants", "Correctness checks, per contestant", "Harness cost", "Spread across processes"] {
        assert!(details.contains(&format!("\n## {title}\n")), "{title} is not in the appendix: {details}");
        assert!(!markdown.contains(&format!("<summary>{title}</summary>")), "{title} is still in the report");
    }
}

#[test]
fn the_report_points_at_a_published_reference_only_where_the_appendix_has_one() {
    // The chain scenario has published figures: the appendix has the section and the report names it.
    let summary = common::summary();
    let markdown = render::markdown::render_markdown(&common::input(&summary));
    let details = render::markdown::render_details(&common::input(&summary));
    assert!(details.contains("\n## Published reference\n"), "{details}");
    assert!(markdown.contains("the published reference and the harness cost are in"), "{markdown}");
    // A scenario without any (overload, overload-service): neither the section nor a pointer to it.
    let mut summary = common::summary();
    summary.scenario = "overload".to_string();
    let markdown = render::markdown::render_markdown(&common::input(&summary));
    let details = render::markdown::render_details(&common::input(&summary));
    assert!(!details.contains("Published reference"), "{details}");
    assert!(!markdown.contains("the published reference"), "{markdown}");
    assert!(markdown.contains("every correctness check and the harness cost are in"), "{markdown}");
}

#[test]
fn may_s_rules_are_stated_once_where_a_coroutine_contestant_ran_and_nowhere_else() {
    let mut summary = common::summary();
    let without = render::markdown::render_markdown(&common::input(&summary));
    assert!(!without.contains("Coroutines hold only under `may`'s rules"), "{without}");
    summary.contestants[1].family = measure::summary::Family::Coroutine;
    let name = summary.contestants[1].name.clone();
    let with = render::markdown::render_markdown(&common::input(&summary));
    assert_eq!(with.matches("Coroutines hold only under `may`'s rules").count(), 1, "{with}");
    assert!(with.contains(&format!("**Coroutines hold only under `may`'s rules.** `{name}` run")), "{with}");
}
