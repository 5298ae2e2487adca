//! A coroutine's memory figure does not depend on which stack size `may` pools: 8 KiB coroutines measured in a
//! process whose `may` keeps a warm pool of 1,000 32 KiB stacks hold what they hold under the memory scenario's own
//! configuration (a pool of one 8 KiB stack). Each measurement runs in a child process (this test binary, run
//! again), because `may` reads its configuration once per process.

use std::process::Command;

use costs::memory::contestants::Contestant;
use pipelines::coroutine::{self, CoroutineConfig, DEFAULT_STACK_WORDS};

/// Selects the child's configuration: `own`, `other-pool` or `same-size-pool`.
const CHILD: &str = "COSTS_MAY_POOL_CHILD";

/// Units measured at once.
const UNITS: u64 = 3_000;

/// Resident bytes per unit of holding `UNITS` 8 KiB coroutines, each owning 1 KiB, after one warm-up run.
fn measure_8k_units() -> f64 {
    let units = Contestant::Coroutine8k.prepare().expect("prepare");
    let once = || {
        // SAFETY: releases only free memory of the allocator's own arenas.
        unsafe { libc::malloc_trim(0) };
        let before = measure::memory::rss_kib().expect("VmRSS");
        let held = units.hold(UNITS, 1024).expect("hold");
        let after = measure::memory::rss_kib().expect("VmRSS");
        held.release().expect("release");
        after.saturating_sub(before) as f64 * 1024.0 / UNITS as f64
    };
    once();
    once()
}

/// The child: configure `may` as asked, measure, print the figure.
#[test]
fn child_measures_one_configuration() {
    let Ok(which) = std::env::var(CHILD) else { return };
    if which == "same-size-pool" {
        // `may`'s default pool of 1,000, but of 8 KiB stacks: the old set-up's artifact, which the test must see.
        coroutine::configure_with(CoroutineConfig::new(2).with_stack_words(pipelines::coroutine::SMALL_STACK_WORDS));
    }
    if which == "other-pool" {
        // `may`'s default: a pool of 1,000 stacks of 32 KiB, warmed by 1,000 coroutines that ran and ended.
        let config = coroutine::configure_with(CoroutineConfig::new(2));
        assert_eq!(config.stack_words, DEFAULT_STACK_WORDS);
        let warm: Vec<_> = (0..1_000)
            .map(|i| {
                let live = std::sync::Arc::new(pipelines::LiveStages::new());
                coroutine::spawn("warm", DEFAULT_STACK_WORDS, &live, move || std::hint::black_box(i)).expect("spawn")
            })
            .collect();
        for co in warm {
            co.join().expect("join");
        }
    }
    println!("PER_UNIT={}", measure_8k_units());
}

fn child(which: &str) -> f64 {
    let exe = std::env::current_exe().expect("this test binary");
    let mut command = Command::new(exe);
    command.args(["--exact", "child_measures_one_configuration", "--nocapture", "--test-threads=1"]).env(CHILD, which);
    let out = testkit::output_within(&mut command, std::time::Duration::from_secs(120), which);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{which}: {text}{}", String::from_utf8_lossy(&out.stderr));
    text.lines()
        .find_map(|l| l.split("PER_UNIT=").nth(1)?.trim().parse().ok())
        .unwrap_or_else(|| panic!("{which}: no figure in {text}"))
}

#[test]
fn a_coroutine_figure_does_not_change_when_a_pool_of_another_stack_size_exists() {
    if std::env::var(CHILD).is_ok() {
        return;
    }
    let own = child("own");
    let other_pool = child("other-pool");
    // A fresh stack keeps at least one page resident (generator's marker at its bottom) besides the top page the
    // body runs in: a figure below one page means the units drew prepaid stacks.
    assert!(own > 4096.0 && other_pool > 4096.0, "own {own:.0} B, with a 32 KiB pool {other_pool:.0} B per unit");
    // The measurement sees a pool when there is one to see: 1,000 of the 3,000 units drawn from a warm pool of
    // their own size add only their heap.
    let pooled = child("same-size-pool");
    assert!(pooled < 0.85 * own, "a warm pool of 8 KiB stacks went unseen: {pooled:.0} against {own:.0} B per unit");
    let ratio = own / other_pool;
    assert!(
        (0.8..=1.25).contains(&ratio),
        "own {own:.0} B, with a 32 KiB pool {other_pool:.0} B per unit: the pool changed the figure"
    );
}
