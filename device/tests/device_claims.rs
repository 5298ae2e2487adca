//! The device scenario's claim table: each verdict follows the numbers.

mod device_common;

use device_common::{summary_with, trapped, verdict};
use measure::summary::Verdict;

#[test]
fn the_trap_claim_holds_on_a_collapse_and_fails_without_one() {
    assert_eq!(verdict(&summary_with(trapped), "budget-trap-collapse"), Verdict::Holds);
    assert_eq!(verdict(&summary_with(|_, _| 0.5), "budget-trap-collapse"), Verdict::Fails);
}

#[test]
fn the_low_level_claim_fails_when_threads_lag_and_holds_when_all_keep_up() {
    assert_eq!(verdict(&summary_with(trapped), "lowest-level-steady-ideal"), Verdict::Fails);
    assert_eq!(verdict(&summary_with(|_, _| 0.95), "lowest-level-steady-ideal"), Verdict::Holds);
    // The same run over the whole run (start and drain included: 0.8 of the steady rate here) falls short.
    assert_eq!(verdict(&summary_with(|_, _| 0.95), "lowest-level-whole-run-ideal"), Verdict::Fails);
}

#[test]
fn streams_ahead_and_jvm_claims_follow_the_numbers() {
    let summary = summary_with(trapped);
    assert_eq!(verdict(&summary, "streams-ahead-at-10k"), Verdict::Holds);
    // 0.12 × 0.8 of the ideal over the whole run: above the study's share of its own ideal.
    assert_eq!(verdict(&summary, "study-share"), Verdict::Holds);
    let slow = summary_with(|_, level| if level == 100_000 { 0.01 } else { 0.5 });
    assert_eq!(verdict(&slow, "study-share"), Verdict::Fails);
    assert_eq!(verdict(&slow, "streams-ahead-at-10k"), Verdict::Fails);
}

#[test]
fn coroutine_claims_compare_the_best_coroutine_with_the_best_thread_and_the_best_stream() {
    // Coroutines at 6× the threads at 10,000 and at 0.6 of the streams at 100,000.
    let fast = summary_with(|name, level| match (name.starts_with("coroutine"), level) {
        (true, 10_000) => 0.36,
        (true, _) => 0.3,
        (false, _) if name.starts_with("blocking") && level == 10_000 => 0.06,
        _ => 0.5,
    });
    assert_eq!(verdict(&fast, "coroutines-over-threads-at-10k"), Verdict::Holds);
    assert_eq!(verdict(&fast, "coroutines-of-streams-at-100k"), Verdict::Holds);
    // Coroutines no faster than threads, and at a fifth of the streams.
    let slow = summary_with(|name, _| if name.starts_with("stream") { 0.5 } else { 0.1 });
    assert_eq!(verdict(&slow, "coroutines-over-threads-at-10k"), Verdict::Fails);
    assert_eq!(verdict(&slow, "coroutines-of-streams-at-100k"), Verdict::Fails);
}

#[test]
fn precision_and_memory_claims_read_the_idle_call_and_resident_memory() {
    let summary = summary_with(trapped);
    assert_eq!(verdict(&summary, "device-precise"), Verdict::Holds);
    assert_eq!(verdict(&summary, "thread-memory"), Verdict::Holds);
}
