//! Both network reports render whole from their templates: the ratio table, the wake-up table only when a
//! contestant has its figures, the smoke-run sentence only below 3 processes, and no placeholder left empty.

use std::collections::BTreeMap;

use measure::summary::{Family, Method, MetricStats, Summary};
use testkit::fixture::{self, contestant, method, stats};
use testkit::text::holds;

/// A summary of `names`, each with every metric at `1.0` (the first at `2.0`), `forks` processes, and context
/// switches only when `switches`.
fn summary(names: &[&str], metrics: &[&str], forks: u32, switches: bool) -> Summary {
    let contestants = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let value = if i == 0 { 2.0 } else { 1.0 };
            let mut figures: BTreeMap<String, MetricStats> =
                metrics.iter().map(|m| (m.to_string(), stats(value))).collect();
            if switches {
                figures.insert("ctx_switches_per_item".into(), stats(0.5));
                figures.insert("wakeup_p50_us".into(), stats(4.0));
            }
            contestant(name, Family::Blocking, figures)
        })
        .collect();
    Summary {
        method: Method { quick: forks < 3, forks, warmup: 1, iterations: 3, ..method() },
        ..fixture::summary("network", contestants)
    }
}

/// A scenario's report function, its baseline and its metrics.
type Report = (fn(&Summary) -> String, &'static str, [&'static str; 3]);

/// Both scenarios' reports.
fn reports() -> [Report; 2] {
    [
        (network::http::report::discussion, network::http::report::BASELINE, network::http::report::METRICS),
        (network::tcp::report::discussion, network::tcp::report::BASELINE, network::tcp::report::METRICS),
    ]
}

#[test]
fn a_smoke_run_says_so_and_the_wake_up_table_needs_its_figures() {
    for (discussion, baseline, metrics) in reports() {
        let text = discussion(&summary(&["other", baseline], &metrics, 1, false));
        assert!(text.starts_with(&format!("Ratios to `{baseline}` in this run")), "{text}");
        assert!(text.contains(&format!("| contestant | {} |\n|---|---|---|---|\n", metrics.join(" | "))), "{text}");
        holds(&text, &["| `other` | 2.00× | 2.00× | 2.00× |\n", "This run had 1 process(es) per contestant"]);
        assert!(!text.contains("Where the blocking time goes"), "{text}");
        assert!(!text.contains("  ") && !text.contains("could not be rendered"), "{text}");
    }
}

#[test]
fn a_full_run_shows_the_wake_up_table_and_no_smoke_sentence() {
    for (discussion, baseline, metrics) in reports() {
        let text = discussion(&summary(&[baseline], &metrics, 5, true));
        holds(&text, &["Where the blocking time goes", "| 0.50 | 4.00 | n/a | 2.00 |"]);
        assert!(!text.contains("process(es) per contestant"), "{text}");
    }
}

/// A tcp summary of every candidate the round-trip claim covers, each completing its rounds at `share` of what one
/// exchange alone allows (2,500 µs alone, 2,100 µs of timer, 4 rounds of 64 exchanges) in five processes (a verdict
/// against a fixed value needs more than three), its claims judged.
fn round_trip_run(share: f64) -> Summary {
    let contestants = network::tcp::claims::BOUND_BY_ROUND_TRIP
        .iter()
        .map(|name| {
            let batches = share * 1e6 / (4.0 * 2_500.0);
            let figures: BTreeMap<String, MetricStats> = [
                ("batches_per_sec", batches),
                ("round_trip_fraction", share),
                ("batch_p50_us", 1e6 / batches),
                ("solo_exchange_p50_us", 2_500.0),
                ("timer_p50_us", 2_100.0),
                ("timer_over_delay", 2.1),
                ("server_cpu_us_per_call", 5.0),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), fixture::processes(&[0.99, 0.995, 1.0, 1.005, 1.01].map(|f| v * f))))
            .collect();
            contestant(name, Family::Stream, figures)
        })
        .collect();
    let mut summary = Summary {
        method: Method { forks: 5, warmup: 1, iterations: 3, ..method() },
        params: BTreeMap::from([
            ("connections".to_string(), serde_json::json!(64)),
            ("exchanges".to_string(), serde_json::json!(256)),
            ("delay_us".to_string(), serde_json::json!(1000)),
        ]),
        ..fixture::summary("tcp", contestants)
    };
    summary.claims = measure::judge::judge_all(&summary, &network::tcp::claims::table());
    summary
}

#[test]
fn the_tcp_report_explains_the_batches_cap_with_the_round_trip_only_when_its_claim_holds() {
    let text = network::tcp::report::discussion(&round_trip_run(0.95));
    assert!(text.contains("What bounds the batches per second: a batch is 4 rounds"), "{text}");
    // 1 ÷ (4 rounds × 2,500 µs) = 100 batches/s; at 0.95 of it, 95 batches/s and 2,632 µs a round; one exchange
    // alone plus 63 × 5 µs of the server's CPU: 2,815 µs.
    holds(
        &text,
        &[
            "| 95.0 | 100.0 | 0.95 | 2632 | 2500 | 2815 | 2100 | 2.10 |",
            "**The server's timer is most of the gap to the ideal** (p = 0.031)",
            "**The cap is the round trip of one exchange, not the family**",
            "decided on client CPU per exchange",
        ],
    );

    let text = network::tcp::report::discussion(&round_trip_run(0.4));
    assert!(!text.contains("The cap is the round trip"), "{text}");
    assert!(text.contains("**The round trip of one exchange is not what bounds every candidate**"), "{text}");
}

#[test]
fn the_round_trip_section_needs_the_probe_s_readings() {
    let (discussion, baseline, metrics) = reports()[1];
    let text = discussion(&summary(&[baseline], &metrics, 5, true));
    assert!(!text.contains("What bounds the batches per second"), "{text}");
}

#[test]
fn the_tcp_family_question_is_decided_on_client_cpu_per_exchange_with_batches_per_second_beside_it() {
    use measure::scenario::Scenario;
    let questions = network::TcpScenario.questions();
    let family: Vec<(&str, &str)> = questions.iter().filter(|q| q.family).map(|q| (q.id.as_ref(), q.metric)).collect();
    assert_eq!(family, [("family-cpu", "cpu_us_per_call"), ("family", "batches_per_sec")]);
    let http = network::HttpScenario.questions();
    assert!(http.iter().any(|q| q.family && q.metric == "cpu_us_per_call"), "http's family question, on CPU");
}
