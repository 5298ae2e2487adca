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

/// The version of the JSON `lab list --json` prints; raised when a field changes meaning or goes away.
pub(crate) const SCHEMA_VERSION: u32 = 1;

/// One scenario as `lab list --json` gives it.
#[derive(Debug, serde::Serialize)]
struct ScenarioListing {
    /// Its name on the command line.
    name: &'static str,
    /// Its report's title.
    title: &'static str,
    /// Its contestants, as a default run and `lab all` select them.
    contestants: Vec<measure::summary::ContestantInfo>,
    /// Contestants that run only when `--only` names them.
    on_request: Vec<measure::summary::ContestantInfo>,
    /// Its parameters.
    parameters: Vec<ParamListing>,
    /// Processes of a full run and of a `--quick` run.
    forks: [u32; 2],
}

/// One parameter as `lab list --json` gives it.
#[derive(Debug, serde::Serialize)]
struct ParamListing {
    /// Its flag, without dashes.
    name: &'static str,
    /// Its help.
    help: &'static str,
    /// Values of a full run.
    default: Vec<u64>,
    /// Values of a `--quick` run.
    quick: Vec<u64>,
    /// Whether it sweeps (several values, one phase each).
    sweep: bool,
}

/// The listing as JSON: `schema_version` and every scenario with its contestants and parameters.
pub(crate) fn json() -> serde_json::Value {
    let scenarios: Vec<ScenarioListing> = registry::scenarios()
        .into_iter()
        .map(|s| ScenarioListing {
            name: s.name(),
            title: s.title(),
            contestants: s.contestants(),
            on_request: s.contestants_on_request(),
            parameters: s
                .params()
                .into_iter()
                .map(|p| ParamListing {
                    name: p.name,
                    help: p.help,
                    default: p.default,
                    quick: p.quick,
                    sweep: p.sweep,
                })
                .collect(),
            forks: [s.repetitions(false).forks, s.repetitions(true).forks],
        })
        .collect();
    serde_json::json!({ "schema_version": SCHEMA_VERSION, "scenarios": scenarios })
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
    let lead = |c: &measure::summary::ContestantInfo| {
        format!("    {}  {}  ", term::pad(&c.name, name_width), term::pad(&kind(c), family_width))
    };
    let leads: Vec<String> = contestants.iter().map(lead).collect();
    let texts: Vec<&str> = contestants.iter().map(|c| c.description.as_str()).collect();
    entries(out, &leads, &texts, width, verbose);
    if !on_request.is_empty() {
        let _ = writeln!(out, "  on request (run only when `--only` names them):");
        let leads: Vec<String> = on_request.iter().map(lead).collect();
        let texts: Vec<&str> = on_request.iter().map(|c| c.description.as_str()).collect();
        entries(out, &leads, &texts, width, verbose);
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
    let leads: Vec<String> =
        params.iter().map(|p| format!("    {}  ", term::pad(&format!("--{}", p.name), flag_width))).collect();
    let texts: Vec<String> = params
        .iter()
        .map(|p| {
            format!(
                "[default {}; quick {}]{} {}",
                term::comma_list(&p.default),
                term::comma_list(&p.quick),
                if p.sweep { " (sweep)" } else { "" },
                p.help
            )
        })
        .collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    entries(out, &leads, &texts, width, verbose);
}

/// Indentation of a description that goes under its entry's first line.
const UNDER: usize = 8;

/// Entries of one list, each `leads[i]` then `texts[i]`. Without `verbose`, each text is cut to the room its
/// lead leaves, at a word, ending in `…`; where two cuts would read the same (descriptions that differ only
/// further on), each of them goes on under its first line until it differs from every other. With `verbose`,
/// every lead stands alone and its text follows, wrapped in full. When a lead leaves too little room, the text
/// goes under it.
fn entries(out: &mut String, leads: &[String], texts: &[&str], width: usize, verbose: bool) {
    let lead_width = leads.iter().map(|l| term::columns(l)).max().unwrap_or(0);
    let beside = !verbose && width >= lead_width + MIN_DESCRIPTION;
    let indent = if beside { lead_width } else { UNDER };
    let room = width.saturating_sub(indent).max(MIN_DESCRIPTION.min(width));
    let shown = if verbose { texts.iter().map(|t| term::wrap(t, room)).collect() } else { distinct_cuts(texts, room) };
    for (lead, lines) in leads.iter().zip(shown) {
        let first = if beside {
            lead.trim_end().to_string()
        } else {
            let _ = writeln!(out, "{}", term::truncate(lead.trim_end(), width));
            String::new()
        };
        for (i, line) in lines.iter().enumerate() {
            if i == 0 && !first.is_empty() {
                let _ = writeln!(out, "{}{}", term::pad(&first, lead_width), line);
            } else {
                let _ = writeln!(out, "{}{}", " ".repeat(indent), line);
            }
        }
    }
}

/// Each text in as few lines of at most `room` columns as keep it apart from every other text: one line when it
/// fits, else the lines of it wrapped at a word up to the first that no other text shares, the last ending in
/// `…` when more was left out. Two texts that are the same throughout are both given whole.
fn distinct_cuts(texts: &[&str], room: usize) -> Vec<Vec<String>> {
    let wrapped: Vec<Vec<String>> =
        texts
            .iter()
            .map(|t| {
                if term::columns(t) <= room {
                    vec![t.to_string()]
                } else {
                    term::wrap(t, room.saturating_sub(1).max(1))
                }
            })
            .collect();
    wrapped
        .iter()
        .enumerate()
        .map(|(i, lines)| {
            let shared = |k: usize| {
                wrapped.iter().enumerate().any(|(j, other)| j != i && other.len() >= k && other[..k] == lines[..k])
            };
            let mut k = 1;
            while k < lines.len() && shared(k) {
                k += 1;
            }
            // A single word wider than the room is cut too, so that no line runs past it.
            let mut shown: Vec<String> = lines[..k].iter().map(|l| term::truncate(l, room)).collect();
            if k < lines.len() {
                if let Some(last) = shown.last_mut() {
                    *last = term::truncate(&format!("{last}…"), room);
                }
            }
            shown
        })
        .collect()
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
    fn no_two_rows_of_a_listing_read_the_same() {
        for width in [80, 100, 120] {
            let text = render(width, false);
            for scenario in text.split("\n\n") {
                // An entry is its first line (four spaces, then its name) and the lines it goes on under it.
                let mut rows: Vec<String> = Vec::new();
                for line in scenario.lines() {
                    if line.starts_with("    ") && !line.starts_with("     ") {
                        rows.push(line.to_string());
                    } else if line.starts_with("     ") {
                        if let Some(last) = rows.last_mut() {
                            last.push_str(line);
                        }
                    }
                }
                let all = rows.len();
                rows.sort_unstable();
                rows.dedup();
                assert_eq!(rows.len(), all, "{width}: identical rows in\n{scenario}");
            }
        }
    }

    #[test]
    fn cuts_go_on_until_the_texts_differ() {
        let texts = ["one OS thread per stage, crossbeam", "one OS thread per stage, flume", "short"];
        let cuts = distinct_cuts(&texts, 16);
        assert_eq!(cuts[2], ["short"]);
        assert_ne!(cuts[0], cuts[1]);
        assert!(cuts[0].iter().all(|l| term::columns(l) <= 16), "{cuts:?}");
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
