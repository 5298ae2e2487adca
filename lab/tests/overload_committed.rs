//! The committed overload and overload-service runs, re-rendered with the current code (as `lab report` renders
//! them, through the functions `report_lint.rs` uses): the answers issue 52 found wrong read right. Overload
//! states the published sentence limiter by limiter from judged claims and asks the family question at each
//! limiter; overload-service shows its rate below the ceiling as a control and its sentence below the ceiling
//! follows the verdicts; neither points at a published reference its details file does not have.

mod committed;

use committed::{answers, environment, error, phase, raw, rendering, summarize, table, term};

/// The newest committed raw file of `scenario`, rendered with the current code.
fn rerendered(scenario: &str) -> rendering::RenderedRun {
    committed::rendered("reports/raw", scenario).unwrap_or_else(|| panic!("no committed raw file of `{scenario}`"))
}

#[test]
fn overload_states_the_published_sentence_limiter_by_limiter_and_asks_the_family_at_each_limiter() {
    let run = rerendered("overload");
    let report = committed::file(&run, "overload.md");
    assert!(report.contains("**The published sentence.**"), "{report}");
    assert!(report.contains("\"the adaptive limit protects tail latency at the cost of a longer overall run\""));
    // The committed run: AIMD at 1.5× and at 2× the no-load latency lowered the after-drop p99 (0.665–0.675× and
    // 0.815–0.824× the fixed bound's at `fd4cf5b`) and ran longer; AIMD on loss, AIMD at 4× and Gradient2 did not.
    for (limiter, holds) in [
        ("aimd-latency-1.5x", true),
        ("aimd-latency-2x", true),
        ("aimd", false),
        ("aimd-latency-4x", false),
        ("gradient2", false),
    ] {
        let line = format!(
            "- `{limiter}`: it {}",
            if holds { "holds (" } else { "does not hold: the tail was not protected" }
        );
        assert!(report.contains(&line), "no `{line}` in {report}");
        let claim = run.summary.claims.iter().find(|c| c.id == format!("tail-below-fixed-{limiter}"));
        assert!(claim.is_some_and(|c| c.holds == holds), "{limiter}: {claim:?}");
    }
    // AIMD at 1.5× stated with its ratio range to the fixed bound's p99, the whole range below 1.
    let line = report
        .lines()
        .find(|l| {
            l.starts_with("- `aimd-latency-1.5x`: ") && l.contains("× the fixed bound's p99; below it beyond noise")
        })
        .unwrap_or_else(|| panic!("no ratio line for aimd-latency-1.5x in {report}"));
    let range = line["- `aimd-latency-1.5x`: ".len()..].split('×').next().unwrap_or_default();
    let highest: f64 = range.rsplit('–').next().and_then(|x| x.parse().ok()).unwrap_or(f64::NAN);
    assert!(highest < 1.0, "aimd-latency-1.5x below the fixed bound across its processes: {line}");
    // Vegas's tail is short because it left the healthy dependency idle: said, never offered as protection.
    assert!(report.contains("though its tail is short because it never filled the healthy dependency"), "{report}");
    // The family question at each limiter apart, on the tail and on CPU per call, in the summary.
    for limiter in ["fixed", "aimd", "aimd-latency-1.5x", "gradient2", "vegas"] {
        for id in [format!("family-{limiter}"), format!("family-{limiter}-cpu")] {
            let q = run.summary.questions.iter().find(|q| q.id == id).unwrap_or_else(|| panic!("no `{id}`"));
            assert!(q.family && q.alternatives.len() == 3, "{id}: {:?}", q.alternatives);
            assert!(q.answers.iter().all(|a| a.pick.is_some()), "{id}: every family ran cleanly");
        }
    }
    assert!(!report.contains("the published reference"), "the details file has no such section");
    assert!(!committed::file(&run, "overload-details.md").contains("Published reference"));
}

#[test]
fn overload_service_shows_its_rate_below_the_ceiling_as_a_control_and_says_which_limiters_served() {
    let run = rerendered("overload-service");
    let report = committed::file(&run, "overload-service.md");
    for id in ["service-goodput", "service-tail", "family-fixed", "family-aimd"] {
        let q = run.summary.questions.iter().find(|q| q.id == id).unwrap_or_else(|| panic!("no `{id}`"));
        let below = q.answers.iter().find(|a| a.phase.as_deref() == Some("rate_15000")).expect("rate 15,000");
        assert!(below.pick.is_none() && below.control.is_some(), "{id}: {below:?}");
        let above = q.answers.iter().find(|a| a.phase.as_deref() == Some("rate_30000")).expect("rate 30,000");
        assert!(above.control.is_none(), "{id}: {above:?}");
    }
    assert!(report.contains("A control, not an answer: 15,000 arrivals per second is below the after-drop ceiling"));
    // Twelve of the fifteen bounded contestants answered every caller below the ceiling; Vegas's three did not.
    assert!(!report.contains("no bounded contestant answered 95%"), "{report}");
    assert!(
        report.contains("`fixed`, `fixed-little`, `aimd` and `gradient2` did in every family; `vegas` did not"),
        "{report}"
    );
    assert!(!report.contains("the published reference"), "the details file has no such section");
    assert!(!committed::file(&run, "overload-service-details.md").contains("Published reference"));
}
