//! The service report: the figures `figures.rs` computed from a run's summary and the claims by id, rendered with
//! `templates/report.md`, which holds every word and states a finding only where its claim holds; nothing here
//! computes a figure or chooses a sentence.

use measure::summary::Summary;
use measure::template::claims_by_id;

use super::figures;

/// Every word of the report's discussion.
const TEMPLATE: &str = include_str!("templates/report.md");

/// The discussion section of the report: [`context`] of `summary`, rendered with `templates/report.md`.
pub fn render(summary: &Summary) -> String {
    measure::template::render_or_note("overload-service/report.md", TEMPLATE, context(summary))
}

/// Everything `templates/report.md` reads, by key: the run's `claims` by id, and each other key from the function
/// of [`figures`] that makes it, where it is described.
pub fn context(summary: &Summary) -> serde_json::Value {
    serde_json::json!({
        "claims": claims_by_id(&summary.claims),
        "params": figures::params(summary),
        "queue_past_deadline": figures::queue_past_deadline(summary),
        "poisson": figures::poisson(summary),
        "rates": figures::rates(summary),
        "lag": figures::lag(summary),
        "below_by_limiter": figures::below_by_limiter(summary),
    })
}

#[cfg(test)]
mod tests {
    use measure::scenario::Scenario;

    use super::*;
    use crate::service_fixture as fixture;

    fn rendered() -> String {
        let mut summary = fixture::run(fixture::expected);
        summary.claims = measure::judge::judge_all(&summary, &super::super::claims::table(&summary));
        render(&summary)
    }

    #[test]
    fn the_report_renders_whole_within_eight_columns() {
        let text = rendered();
        assert!(!text.contains("could not be rendered"), "{text}");
        for line in text.lines() {
            assert!(!line.contains("  ") && !line.contains("{{") && !line.contains(" ?"), "{line}");
            if line.starts_with('|') {
                assert!(line.matches('|').count() - 1 <= 8, "more than 8 columns: {line}");
            }
        }
    }

    #[test]
    fn findings_follow_their_verdicts() {
        let text = rendered();
        assert!(text.contains("This is the trap a bound configured once falls into"), "{text}");
        assert!(text.contains("### 30,000 arrivals per second (above the after-drop ceiling)"));
        assert!(text.contains("| `stream-aimd` | 30,000 | 12,000 | 60% | 5.1 / 6.0 |"), "{text}");
        let mut summary =
            fixture::run(|name, rate| if name.ends_with("fixed") { 0.7 } else { fixture::expected(name, rate) });
        summary.claims = measure::judge::judge_all(&summary, &super::super::claims::table(&summary));
        assert!(!render(&summary).contains("This is the trap"));
    }

    #[test]
    fn the_sentence_below_the_ceiling_names_the_limiters_that_served_and_those_that_did_not() {
        // As the committed run: below the ceiling every limiter serves every caller but Vegas, which sheds a third.
        let shares = |name: &str, rate: u64| {
            if rate < 20_000 && name.ends_with("vegas") {
                0.66
            } else {
                fixture::expected(name, rate)
            }
        };
        let mut summary = fixture::run(shares);
        summary.claims = measure::judge::judge_all(&summary, &super::super::claims::table(&summary));
        assert!(!render(&summary).contains("A control, not an answer"), "no answers, no control to report");
        summary.questions = measure::question::answer_all(&summary, &super::super::ServiceScenario.questions());
        let text = render(&summary);
        assert!(!text.contains("no bounded contestant answered"), "{text}");
        assert!(
            text.contains(
                "- **Below the ceiling** (fails, p = 0.031): not every bounded contestant answered 95% of what could \
                 be served in time: `fixed`, `fixed-little`, `aimd` and `gradient2` did in every family; `vegas` did \
                 not (each limiter's own claim above)."
            ),
            "{text}"
        );
        assert!(text.contains("A control, not an answer: 15,000 arrivals per second is below the after-drop ceiling"));
        assert!(text.contains("× the deadline (20 ms) = 400 calls"), "{text}");
        assert!(
            text.contains(
                "- **A fixed bound sized by Little's law above the ceiling** (holds, p = 0.0040): in every family \
                 `fixed-little` (400) answered more callers in time than `fixed` (500), beyond noise"
            ),
            "{text}"
        );
    }
}
