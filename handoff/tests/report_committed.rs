//! The report's template rendered against the committed run (`reports/handoff.json`): every sentence renders
//! whole: no empty placeholder, missing figure, unjudged claim, doubled space, stray bracket or number glued to a
//! unit.

use std::path::Path;

use measure::summary::Summary;

/// The committed summary, with its claims and findings judged again by today's tables (so they carry their ids).
fn committed() -> Summary {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports/handoff.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let summary: Summary = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    measure::scenario::judged(&handoff::HandoffScenario, summary)
}

#[test]
fn the_committed_run_renders_whole() {
    let summary = committed();
    let text = handoff::report::report(&summary);
    assert!(!text.contains("could not be rendered"), "{text}");
    for bad in ["  ", " ,", " ;", " .", "()", "( ", " )", "n/a", "?", "not judged"] {
        assert!(!text.contains(bad), "`{bad}` in the committed run's discussion:\n{text}");
    }
    let glued = text.match_indices("ms/M").any(|(i, _)| text[i + 4..].starts_with(|c: char| c.is_ascii_digit()));
    assert!(!glued, "a number glued to a unit:\n{text}");
}
