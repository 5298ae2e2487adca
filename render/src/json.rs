//! The summary as JSON (`<scenario>.json`): the contract's machine-readable result.

use measure::summary::Summary;

/// The summary as pretty-printed JSON with a trailing newline.
///
/// Serializing a [`Summary`] cannot fail in practice (string keys, no custom serializers); should it ever, the
/// result is a JSON object naming the error rather than a panic.
pub fn render_json(summary: &Summary) -> String {
    match serde_json::to_string_pretty(summary) {
        Ok(mut text) => {
            text.push('\n');
            text
        }
        Err(error) => format!("{}\n", serde_json::json!({ "error": error.to_string() })),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::analysis::tests::fixture;

    #[test]
    fn the_json_round_trips_and_ends_with_a_newline() {
        let summary = fixture();
        let text = render_json(&summary);
        assert!(text.ends_with("}\n"));
        // serde_json's default float parser may differ from the written value in the last bit, so compare
        // what a reader relies on rather than every float.
        let back: Summary = serde_json::from_str(&text).unwrap();
        assert_eq!(back.scenario, summary.scenario);
        assert_eq!(back.contestants.len(), summary.contestants.len());
        assert_eq!(back.claims, summary.claims);
        assert_eq!(back.phases, summary.phases);
    }
}
