//! The device report: every finding comes from the numbers and the verdicts of the run, rendered whole from the
//! templates.

mod device_common;
mod text;

use device::DeviceScenario;
use device_common::{judged, summary_with, trapped};
use measure::scenario::Scenario;
use text::{holds, lacks};

/// The discussion of `summary` with its claims judged, as the harness renders it.
fn discussion(summary: measure::summary::Summary) -> String {
    DeviceScenario.discussion(&judged(summary))
}

#[test]
fn the_coroutine_section_gives_ratios_to_threads_and_streams_and_the_os_limits() {
    let mut summary = summary_with(|name, level| match (name.starts_with("coroutine"), level) {
        (true, _) => 0.3,
        (false, 10_000) if name.starts_with("blocking") => 0.06,
        _ => 0.5,
    });
    summary.environment.limits.insert("vm.max_map_count".to_string(), "262144".to_string());
    let text = discussion(summary);
    holds(
        &text,
        &[
            "**Coroutines.**",
            "At 10,000 in flight: `coroutine-may-2-carriers` 300,000 calls/s",
            "5.00× the best OS-thread contestant `blocking-threads`;",
            "0.600× the best stream contestant",
        ],
    );
    assert!(!text.contains("0.600× the best stream contestant `stream-buffered` (within noise)"), "{text}");
    holds(
        &text,
        &[
            "ran at 1.00× `coroutine-may-1-carrier`'s rate (within noise)",
            "At 100,000 in flight: `coroutine-may-2-carriers`",
            "no OS-thread contestant ran",
            "`vm.max_map_count` = 262144",
        ],
    );
}

#[test]
fn the_cpu_table_sets_cpu_beside_switches_and_its_findings_rest_on_the_noise_rule() {
    let text = discussion(summary_with(|name, _| if name.starts_with("coroutine") { 0.3 } else { 0.5 }));
    holds(
        &text,
        &[
            "**Where a coroutine's CPU per call goes** (at 100,000 in flight)",
            "| `coroutine-may-1-carrier` | 4.00 | 1.50 | 0.050 | — / — | — | — / — | — |",
            "this run predates that split",
        ],
    );
    // 4.0 against 2.0 µs, 1.5 against 0.5 on the device, 0.05 switches per call: each beyond noise.
    holds(
        &text,
        &[
            "spends 4.00 µs of CPU per call against 2.00",
            "alone spend 1.50 µs per call completing a coroutine's calls against 0.50",
            "switched 0.050 times per call, below one beyond noise",
            "_From `may` 0.3's source, not a measurement:_",
        ],
    );
    // The own-timer coroutine costs the same as the device one here: no finding that it is cheaper.
    assert!(!text.contains("On `may`'s own timer"), "{text}");
}

#[test]
fn without_a_cpu_difference_the_cpu_findings_are_left_out() {
    let mut summary = summary_with(|_, _| 0.5);
    for c in &mut summary.contestants {
        for (metric, stats) in c.metrics.iter_mut() {
            if metric.ends_with(".cpu_us_per_call") || metric.ends_with(".dependency_cpu_us_per_call") {
                let same = if metric.ends_with(".cpu_us_per_call") { 2.0 } else { 0.5 };
                let ratio = same / stats.median;
                stats.median *= ratio;
                stats.min *= ratio;
                stats.max *= ratio;
                stats.fork_medians.iter_mut().for_each(|m| *m *= ratio);
            }
        }
    }
    let text = discussion(summary);
    assert!(text.contains("**Where a coroutine's CPU per call goes**"), "{text}");
    assert!(!text.contains("more beyond noise"), "{text}");
}

#[test]
fn the_discussion_explains_the_trap_the_skip_and_the_cut_runs_from_the_numbers() {
    let text = discussion(summary_with(trapped));
    assert!(!text.contains("Kyo"), "published figures live in references.json: {text}");
    assert!(text.contains("60.0×"), "the ratio at 100,000 comes from the data: {text}");
    holds(
        &text,
        &[
            "The cooperative-budget trap",
            "the claim that the budget costs at least 10× holds",
            "never leave a large `buffer_unordered` under the cooperative budget",
            "**skipped** at `in_flight_100000`: 100,000 threads do not fit",
            "Cut short: `stream-buffered` at 100,000",
            "no blocking contestant ran: a thread per waiting call cannot exist",
        ],
    );
    assert!(!text.contains("only the stream family ran"), "coroutines ran at 100,000 too: {text}");
    assert!(text.contains("an idle call lasts 11.10 ms"), "{text}");
    // 2.0 µs per call of which 0.5 on the device: 1.5 µs on one core, about 666,667 calls/s.
    assert!(text.contains("the other 1.50 µs on one core allow about 666,667 calls/s"), "{text}");
    assert!(
        text.contains("`blocking-threads` at 1,000: 44,000 calls/s over the whole run against 55,000 steady (80%)"),
        "{text}"
    );
    // Every whole run is 80% of its steady rate, ±2% a process: on the 20% line, not beyond it in every sample.
    assert!(!text.contains("fell below the steady rate beyond noise"), "{text}");
    let mut summary = summary_with(trapped);
    let threads = summary.contestants.iter_mut().find(|c| c.name == "blocking-threads").expect("blocking-threads");
    let whole = threads.metrics.get_mut("in_flight_1000.ops_per_sec_whole_run").expect("whole run");
    *whole = testkit::fixture::processes(&[0.98, 0.99, 1.0, 1.01, 1.02].map(|f| 33_000.0 * f));
    let text = discussion(summary);
    holds(&text, &["`blocking-threads` at 1,000 fell below the steady rate beyond noise"]);
}

#[test]
fn the_headline_notes_give_the_trap_and_the_skipped_levels() {
    let notes = DeviceScenario.headline_notes(&judged(summary_with(trapped)));
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(
        notes[0].starts_with("At 100,000 in flight, `stream-buffer-unordered` answered 20,000 calls/s"),
        "{notes:?}"
    );
    assert!(notes[1].contains("`blocking-threads` at `in_flight_100000`"), "{notes:?}");
}

#[test]
fn without_a_collapse_the_discussion_does_not_claim_one() {
    let text = discussion(summary_with(|_, _| 0.5));
    assert!(text.contains("did not collapse"), "{text}");
    assert!(!text.contains("turns into a collapse"), "{text}");
    assert!(text.contains("costs at least 10× fails"), "{text}");
    assert!(!text.contains("never leave a large"), "{text}");
    assert!(text.contains("Every iteration finished within its 4.0 s budget"), "{text}");
    // Every stream and blocking contestant at the same rate: within noise, a thread per call is fine.
    assert!(text.contains("On both, the device, not the style, sets the pace"), "{text}");
}

#[test]
fn a_finding_is_absent_when_its_claim_is_inconclusive() {
    let mut summary = judged(summary_with(trapped));
    text::inconclusive(&mut summary);
    let text = DeviceScenario.discussion(&summary);
    lacks(
        &text,
        &[
            "turns into a collapse",
            "did not collapse",
            "never leave a large",
            "so device contestants are measured against the true ideal",
        ],
    );
    holds(
        &text,
        &[
            "at least 10× is not settled by this run (that claim: inconclusive",
            "(that claim: inconclusive), so read the device contestants",
        ],
    );
}

#[test]
fn every_sentence_renders_whole() {
    for summary in [summary_with(trapped), summary_with(|_, _| 0.5)] {
        let text = discussion(summary);
        assert!(!text.contains("could not be rendered"), "{text}");
        assert!(!text.contains("  "), "a doubled space: {text}");
        assert!(!text.contains("``"), "an empty name: {text}");
        assert!(!text.contains(" ."), "an empty placeholder before a full stop: {text}");
    }
}

#[test]
fn a_thread_per_call_is_called_fine_only_when_both_family_answers_put_it_level() {
    // Every family at the same rate: on throughput the blocking family is practically equal to the pick.
    let level = |_: &str, _: u64| 0.5;
    let text = discussion(summary_with(level));
    assert!(text.contains("a thread per call is a fine choice"), "equal on both metrics: {text}");

    // The same rates, but a thread per call costs 8× the CPU per call: the family question on CPU beats it.
    let mut summary = summary_with(level);
    let threads = summary.contestants.iter_mut().find(|c| c.name == "blocking-threads").expect("blocking-threads");
    for (key, stats) in threads.metrics.iter_mut() {
        if key.ends_with(".cpu_us_per_call") {
            *stats = testkit::fixture::processes(&[0.98, 0.99, 1.0, 1.01, 1.02].map(|f| 16.0 * f));
        }
    }
    let text = discussion(summary);
    assert!(!text.contains("a thread per call is a fine choice"), "its CPU question ranks it 8× worse: {text}");
    holds(
        &text,
        &[
            "`blocking-threads` is practically equal to the pick",
            "on calls per second; `stream-",
            "beats `blocking-threads` 8.00× on CPU per call.",
            "A thread per call keeps up with the device, but at 8.00× the CPU per call: the trade-off is CPU, not \
             throughput",
        ],
    );
}

#[test]
fn the_findings_are_judged_rows_with_ids_of_their_own_in_the_summary() {
    let summary = judged(summary_with(|name, _| if name.starts_with("coroutine") { 0.3 } else { 0.5 }));
    let ids: Vec<&str> = summary.findings.iter().map(|f| f.id.as_str()).collect();
    assert!(ids.iter().all(|id| !id.is_empty()), "{ids:?}");
    let unique: std::collections::BTreeSet<&str> = ids.iter().copied().collect();
    assert_eq!(unique.len(), ids.len(), "finding ids repeat: {ids:?}");
    // 4.0 against 2.0 µs of CPU per call, five processes 1% apart each: beyond noise, with the separation's p.
    let dearer = summary.finding("coroutine-cpu-dearer").expect("judged");
    assert_eq!(dearer.verdict, measure::summary::Verdict::Holds, "{}", dearer.detail);
    assert!(dearer.p.is_some(), "two contestants are judged on process medians");
    // Two carriers at the same rate as one: both rows of the band hold at every level.
    for level in [1_000, 10_000, 100_000] {
        for side in ["not-above", "not-below"] {
            let id = format!("coroutine-near-carriers-in_flight_{level}-{side}");
            assert!(summary.finding_holds(&id), "{id}: {:?}", summary.finding(&id).map(|f| &f.detail));
        }
    }
}
