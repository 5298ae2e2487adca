//! The index of `lab all` (`index.md`): every report with its status, headline findings and claim tallies.

use measure::summary::{ClaimResult, Verdict};

use crate::table::{Align, Table};
use crate::ReportInput;

/// One scenario's line in the index.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexEntry {
    /// Scenario name.
    pub scenario: String,
    /// Title of its report.
    pub title: String,
    /// Path of its report relative to the index, such as `chain.md`.
    pub report_path: String,
    /// Its status line (see [`crate::status_line`]).
    pub status_line: String,
    /// Its headline findings, one markdown sentence each (see [`crate::headline_findings`]).
    pub headline: Vec<String>,
    /// Its claims and their verdicts.
    pub claims: Vec<ClaimResult>,
}

impl IndexEntry {
    /// The entry for the report rendered from `input`, at `<scenario>.md`.
    pub fn from_input(input: &ReportInput<'_>) -> Self {
        let summary = input.summary;
        IndexEntry {
            scenario: summary.scenario.clone(),
            title: input.title.to_string(),
            report_path: format!("{}.md", summary.scenario),
            status_line: crate::status_line(summary),
            headline: crate::headline_findings(input),
            claims: summary.claims.clone(),
        }
    }
}

/// Tally of claim verdicts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Tally {
    holds: usize,
    fails: usize,
    inconclusive: usize,
}

impl Tally {
    fn of(claims: &[ClaimResult]) -> Self {
        let mut tally = Tally::default();
        for claim in claims {
            tally.add(claim.verdict);
        }
        tally
    }

    fn add(&mut self, verdict: Verdict) {
        match verdict {
            Verdict::Holds => self.holds += 1,
            Verdict::Fails => self.fails += 1,
            Verdict::Inconclusive => self.inconclusive += 1,
        }
    }

    fn describe(self) -> String {
        format!("{} hold, {} fail, {} inconclusive", self.holds, self.fails, self.inconclusive)
    }
}

/// Render `index.md` for `entries`, in the order given. Pure: the same entries give the same bytes.
pub fn render_index(entries: &[IndexEntry]) -> String {
    let mut out = String::from("# Streams vs blocking: index of reports\n\n");
    if entries.is_empty() {
        out.push_str("_No scenarios were run._\n");
        return out;
    }
    let mut total = Tally::default();
    let mut table = Table::new(&[
        ("scenario", Align::Left),
        ("status", Align::Left),
        ("claims", Align::Left),
        ("headline", Align::Left),
    ]);
    for entry in entries {
        let tally = Tally::of(&entry.claims);
        for claim in &entry.claims {
            total.add(claim.verdict);
        }
        table.row(&[
            format!("[{}]({}): {}", entry.scenario, entry.report_path, entry.title),
            entry.status_line.clone(),
            tally.describe(),
            entry.headline.join("<br>"),
        ]);
    }
    out.push_str(&table.render());
    out.push_str(&format!("\nClaims over all scenarios: {}.\n", total.describe()));
    for entry in entries.iter().filter(|e| !e.claims.is_empty()) {
        out.push_str(&format!("\n## [{}]({})\n\n", entry.title, entry.report_path));
        for claim in &entry.claims {
            out.push_str(&format!("- **{}**: {}\n", claim.verdict.as_str(), claim.text));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, verdicts: &[Verdict]) -> IndexEntry {
        IndexEntry {
            scenario: name.to_string(),
            title: format!("The {name} scenario"),
            report_path: format!("{name}.md"),
            status_line: "✅ All 3 contestants passed their checks.".to_string(),
            headline: vec!["first finding".to_string(), "second | finding".to_string()],
            claims: verdicts.iter().map(|v| ClaimResult::new(format!("{name} claim"), *v, "d")).collect(),
        }
    }

    #[test]
    fn every_report_is_linked_with_its_tally() {
        let text = render_index(&[
            entry("chain", &[Verdict::Holds, Verdict::Fails]),
            entry("handoff", &[Verdict::Inconclusive]),
        ]);
        assert!(text.contains("[chain](chain.md): The chain scenario"));
        assert!(text.contains("[handoff](handoff.md)"));
        assert!(text.contains("| 1 hold, 1 fail, 0 inconclusive |"));
        assert!(text.contains("first finding<br>second \\| finding"));
        assert!(text.contains("Claims over all scenarios: 1 hold, 1 fail, 1 inconclusive."));
        assert!(text.contains("- **inconclusive**: handoff claim"));
    }

    #[test]
    fn an_empty_index_says_so() {
        assert!(render_index(&[]).contains("No scenarios were run"));
    }
}
