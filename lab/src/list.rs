//! `lab list`: every scenario, its contestants and its parameters, fitted to a width: one line each, cut with
//! `…`, or with `--verbose` every description in full, wrapped under its column.

use std::fmt::Write;

use measure::scenario::Scenario;

use crate::registry;
use crate::term;

/// Columns a description keeps at least, however narrow the terminal: below that it goes on its own lines.
const MIN_DESCRIPTION: usize = 24;

/// The listing as text, `width` columns wide; `verbose` gives every description in full.
pub(crate) fn render(width: usize, verbose: bool) -> String {
    let mut out = String::new();
    for scenario in registry::scenarios() {
        scenario_listing(&mut out, scenario, width, verbose);
        out.push('\n');
    }
    out
}

fn scenario_listing(out: &mut String, scenario: &dyn Scenario, width: usize, verbose: bool) {
    let title = format!("{}: {}", scenario.name(), scenario.title());
    if verbose {
        for (i, line) in term::wrap(&title, width.saturating_sub(2).max(MIN_DESCRIPTION)).iter().enumerate() {
            let _ = writeln!(out, "{}{line}", if i == 0 { "" } else { "  " });
        }
    } else {
        let _ = writeln!(out, "{}", term::truncate(&title, width));
    }
    let _ = writeln!(out, "  contestants:");
    let contestants = scenario.contestants();
    let on_request = scenario.contestants_on_request();
    let name_width = contestants.iter().chain(&on_request).map(|c| term::columns(&c.name)).max().unwrap_or(0);
    // The family, and the role where it is not a candidate: only candidates are ever picked.
    let kind = |c: &measure::summary::ContestantInfo| match c.role {
        measure::summary::Role::Candidate => c.family.as_str().to_string(),
        role => format!("{} ({})", c.family.as_str(), role.as_str()),
    };
    let family_width = contestants.iter().chain(&on_request).map(|c| term::columns(&kind(c))).max().unwrap_or(0);
    for (i, c) in contestants.iter().chain(&on_request).enumerate() {
        if i == contestants.len() {
            let _ = writeln!(out, "  on request (run only when `--only` names them):");
        }
        let lead = format!("    {}  {}  ", term::pad(&c.name, name_width), term::pad(&kind(c), family_width));
        entry(out, &lead, &c.description, width, verbose);
    }
    let (full, quick) = (scenario.repetitions(false), scenario.repetitions(true));
    let _ = writeln!(
        out,
        "{}",
        term::truncate(
            &format!(
                "  repetitions: {} forks x ({} warm-up + {} measured + {} accounting) [quick: {} x ({} + {} + {})]",
                full.forks,
                full.warmup,
                full.iterations,
                full.accounting,
                quick.forks,
                quick.warmup,
                quick.iterations,
                quick.accounting
            ),
            width
        )
    );
    let _ = writeln!(out, "  parameters:");
    let params = scenario.params();
    let flag_width = params.iter().map(|p| p.name.len() + 2).max().unwrap_or(0);
    let list = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    for p in &params {
        let lead = format!("    {}  ", term::pad(&format!("--{}", p.name), flag_width));
        let text = format!(
            "[default {}; quick {}]{} {}",
            list(&p.default),
            list(&p.quick),
            if p.sweep { " (sweep)" } else { "" },
            p.help
        );
        entry(out, &lead, &text, width, verbose);
    }
}

/// Indentation of a description that goes under its entry's first line.
const UNDER: usize = 8;

/// One entry: `lead` then `text` cut to `width` on one line, or (`verbose`) `lead` alone and then `text` wrapped
/// in full on the lines under it. When the lead leaves too little room, the cut text goes under it too.
fn entry(out: &mut String, lead: &str, text: &str, width: usize, verbose: bool) {
    let lead_width = term::columns(lead);
    let (first, indent) = if !verbose && width >= lead_width + MIN_DESCRIPTION {
        (lead.trim_end().to_string(), lead_width)
    } else {
        let _ = writeln!(out, "{}", term::truncate(lead.trim_end(), width));
        (String::new(), UNDER)
    };
    let room = width.saturating_sub(indent).max(MIN_DESCRIPTION.min(width));
    let lines = if verbose { term::wrap(text, room) } else { vec![term::truncate(text, room)] };
    for (i, line) in lines.iter().enumerate() {
        if i == 0 && !first.is_empty() {
            let _ = writeln!(out, "{}{}", term::pad(&first, lead_width), line);
        } else {
            let _ = writeln!(out, "{}{}", " ".repeat(indent), line);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_fits_the_width_and_every_contestant_is_listed() {
        for width in [60, 80, 120] {
            for verbose in [false, true] {
                let text = render(width, verbose);
                for line in text.lines() {
                    // A single word longer than the width is the one thing wrapping cannot fit.
                    let one_word = !line.trim().contains(' ');
                    assert!(term::columns(line) <= width || one_word, "{width} {verbose}: {line:?}");
                }
                for scenario in registry::scenarios() {
                    for c in scenario.contestants() {
                        assert!(text.contains(&c.name), "{} missing at {width}", c.name);
                    }
                }
            }
        }
    }

    #[test]
    fn verbose_gives_every_description_in_full() {
        let text: String = render(80, true).split_whitespace().collect::<Vec<_>>().join(" ");
        for scenario in registry::scenarios() {
            for c in scenario.contestants() {
                let description: String = c.description.split_whitespace().collect::<Vec<_>>().join(" ");
                assert!(text.contains(&description), "{}'s description is cut", c.name);
            }
        }
    }
}
