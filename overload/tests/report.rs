//! The report's discussion renders whole from the committed run's summary (`reports/overload.json`, its claims
//! and findings judged again by today's tables): no template error, no empty or fallback placeholder, no doubled space, every
//! bracket closed on its line, and no wording from outside the report.

use std::path::Path;

use measure::summary::Summary;
use overload::overload::{claims, findings, report};

/// The committed run's summary with its claims and findings judged by today's tables.
fn committed() -> Summary {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports/overload.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut summary: Summary = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    summary.claims = measure::judge::judge_all(&summary, &claims::table(&summary));
    summary.findings = measure::judge::judge_all(&summary, &findings::table(&summary));
    summary
}

#[test]
fn the_committed_run_renders_every_sentence_whole() {
    let text = report::render(&committed());
    assert!(!text.contains("could not be rendered"), "{text}");
    for (n, line) in text.lines().enumerate() {
        let at = format!("line {}: {line}", n + 1);
        assert!(!line.contains("  "), "doubled space, {at}");
        assert!(!line.contains("{{") && !line.contains("{%") && !line.contains("()"), "placeholder, {at}");
        assert!(!line.contains(" ?") && !line.contains("NaN"), "a figure is missing, {at}");
        for (open, close) in [('(', ')'), ('[', ']'), ('`', '`')] {
            let (opened, closed) = (line.matches(open).count(), line.matches(close).count());
            let balanced = if open == close { opened % 2 == 0 } else { opened == closed };
            assert!(balanced, "unmatched {open}, {at}");
        }
        let lower = line.to_lowercase();
        for outside in ["the issue", "issue asked", "earlier claim", "todo"] {
            assert!(!lower.contains(outside), "wording from outside the report ({outside}), {at}");
        }
    }
}

#[test]
fn the_committed_run_says_what_each_thread_count_of_blocking_unbounded_is() {
    let summary = committed();
    let text = report::render(&summary);
    let threads = summary.metric("blocking-unbounded", "threads").map(|s| s.median).expect("threads measured");
    assert!(text.contains(&format!("`threads` figure in the tables at the end of this section, {threads:.0}")));
    assert!(text.contains("issues them from 10000 threads back to back (`unbounded-threads` 10000"), "{text}");
}

#[test]
fn the_discussion_keeps_every_table_within_eight_columns() {
    let text = report::render(&committed());
    for line in text.lines().filter(|l| l.starts_with('|')) {
        assert!(line.matches('|').count() - 1 <= 8, "more than 8 columns: {line}");
    }
}
