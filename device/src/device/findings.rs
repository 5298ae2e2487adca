//! The device report's findings as judged rows: each sentence `templates/report.md` states as a finding (a
//! single task at its one-core cap, a start slower than the steady window, a coroutine within noise of the
//! other families, where a coroutine's CPU per call goes) is printed only where its row here holds. The harness
//! judges them into the summary's `findings` before anything renders; `report.rs` reads them by id.
//!
//! The rows name the contestants the report's sections name: the best of a family on the shared device at a level
//! ([`best`]), chosen by median throughput as the sections are. A figure of the run on one side (a steady median, a
//! one-core cap) is a fixed value, so those rows are judged on every sample ([`crate::finding_rows::row`]).

use measure::judge::{Beyond, ClaimSpec, Comparison, Phase, Side, Who};
use measure::summary::{Family, Summary};
use measure::units::count;

use super::contestants::{best, on_device, own_timer_coroutine};
use super::{levels, CONTESTANTS, HEADLINE};
use crate::contestants::{Contestant, StreamShape, Timer};
use crate::finding_rows::{against, beyond, id, within, On};

/// Ids of the two rows that put the single-task stream within noise of its one-core cap ([`within`]).
pub(crate) const SINGLE_AT_CAP: [&str; 2] = ["single-task-at-cap-not-above", "single-task-at-cap-not-below"];
/// Id of the finding that the best coroutine spends more CPU per call than the best stream.
pub(crate) const CPU_DEARER: &str = "coroutine-cpu-dearer";
/// Id of the finding that the device's timer threads spend more per call on a coroutine's calls than a stream's.
pub(crate) const DEVICE_CPU_DEARER: &str = "coroutine-device-cpu-dearer";
/// Id of the finding that the coroutine's process switches context less than once per call.
pub(crate) const UNDER_ONE_SWITCH: &str = "coroutine-under-one-switch";
/// Id of the finding that the own-timer coroutine spends less CPU per call than the best one on the device.
pub(crate) const OWN_TIMER_CHEAPER: &str = "own-timer-coroutine-cheaper";

/// Id of the finding that the best of `family` answered fewer calls per second over the whole run than in its
/// steady window at `phase`.
pub(crate) fn below_steady_id(family: Family, phase: &str) -> String {
    id(&["whole-run-below-steady", family.as_str(), phase])
}

/// Ids of the two rows that put the best coroutine within noise of `rival` (`threads`, `streams`, or `carriers`:
/// two carriers against one) at `phase` ([`within`]).
pub(crate) fn near_ids(rival: &str, phase: &str) -> [String; 2] {
    ["not-above", "not-below"].map(|side| id(&["coroutine-near", rival, phase, side]))
}

/// Where a single-task stream tops out: the best stream on the shared device at the highest level, when it is a
/// `buffered` or `buffer_unordered` pipeline (one task, one worker at a time), with its CPU per call outside the
/// device's timer threads and the calls per second one core allows at that cost.
pub(crate) struct SingleTask {
    /// The level and its phase.
    pub(crate) level: u64,
    /// The phase.
    pub(crate) phase: String,
    /// The contestant.
    pub(crate) name: String,
    /// Its median calls per second.
    pub(crate) reached: f64,
    /// Its CPU per call, of which `device` on the device's timer threads, and `own` the rest.
    pub(crate) cpu: f64,
    /// The device's part of it.
    pub(crate) device: f64,
    /// The rest.
    pub(crate) own: f64,
    /// Cores it used.
    pub(crate) cores: f64,
    /// Calls per second one core allows at `own` µs a call.
    pub(crate) cap: f64,
}

/// The single-task stream at the highest level, if the best stream there is one ([`SingleTask`]).
pub(crate) fn single_task(summary: &Summary) -> Option<SingleTask> {
    let (level, phase) = *levels(summary).last()?;
    let (name, s) = best(summary, Family::Stream, Timer::Device, phase)?;
    let single = CONTESTANTS.iter().any(|c| {
        c.name() == name
            && matches!(c, Contestant::Stream { shape: StreamShape::Buffered | StreamShape::BufferUnordered, .. })
    });
    let m = |metric: &str| summary.median_in(&name, phase, metric);
    let (true, Some(cpu), Some(device), Some(cores)) =
        (single, m("cpu_us_per_call"), m("dependency_cpu_us_per_call"), m("cores_used"))
    else {
        return None;
    };
    let own = cpu - device;
    (own > 0.0).then(|| SingleTask {
        level,
        phase: phase.to_string(),
        reached: s.median,
        cap: 1e6 / own,
        name,
        cpu,
        device,
        own,
        cores,
    })
}

/// The highest level at which a coroutine contestant ran on the shared device: where the report shows where its
/// CPU per call goes.
pub(crate) fn cpu_level(summary: &Summary) -> Option<(u64, &str)> {
    levels(summary)
        .into_iter()
        .rev()
        .find(|(_, phase)| best(summary, Family::Coroutine, Timer::Device, phase).is_some())
}

/// Calls per second over the steady window.
const STEADY: &str = "calls answered per second over the steady window (first round answered to last round issued)";

/// Every finding row of the device report, as data.
pub(crate) fn table(summary: &Summary) -> Vec<ClaimSpec> {
    let mut rows = single_task_rows(summary).to_vec();
    rows.extend(start_rows(summary));
    rows.extend(coroutine_rows(summary));
    rows.extend(cpu_rows(summary));
    rows
}

/// The single-task stream within noise of its one-core cap, on every sample.
fn single_task_rows(summary: &Summary) -> [ClaimSpec; 2] {
    let single = single_task(summary);
    let why_not = single.is_none().then(|| {
        "the best stream contestant at the highest level is not a single task with CPU of its own".to_string()
    });
    let (name, phase, cap) = single.map_or((String::new(), String::new(), f64::NAN), |s| (s.name, s.phase, s.cap));
    let who = if name.is_empty() { "the best stream contestant".to_string() } else { format!("`{name}`") };
    let cap_words =
        if cap.is_finite() { format!("the {} calls per second", count(cap)) } else { "the calls per second".into() };
    let text = format!(
        "At the highest level, {who} (one task driving every call) answers within noise of {cap_words} one core allows \
         at its own CPU per call"
    );
    let comparison = against(&name, Phase::Named(phase), cap, "its one-core cap");
    within(summary, SINGLE_AT_CAP, &text, On { metric: HEADLINE, definition: STEADY, comparison })
        .map(|r| r.undecidable_if(why_not.clone()))
}

/// At each level, the best stream and blocking contestant's whole-run rate below its steady one beyond noise.
fn start_rows(summary: &Summary) -> Vec<ClaimSpec> {
    let mut rows = Vec::new();
    for (level, phase) in levels(summary) {
        for family in [Family::Stream, Family::Blocking] {
            let Some((name, steady)) = best(summary, family, Timer::Device, phase) else { continue };
            let text = format!(
                "At {} in flight, `{name}` answers fewer calls per second over the whole run than over its steady \
                 window, beyond noise",
                count(level as f64)
            );
            let comparison = against(&name, Phase::Named(phase.to_string()), steady.median, "its steady-window median");
            let definition = "calls answered per second over the whole timed run, start and drain included";
            let on = On { metric: "ops_per_sec_whole_run", definition, comparison };
            rows.push(beyond(summary, below_steady_id(family, phase), text, Beyond::Below, on));
        }
    }
    rows
}

/// At each level a coroutine ran, the best coroutine on the shared device within noise of the best OS-thread and
/// the best stream contestant, and two carriers within noise of one.
fn coroutine_rows(summary: &Summary) -> Vec<ClaimSpec> {
    let carriers = on_device(Family::Coroutine);
    let mut rows = Vec::new();
    for (level, phase) in levels(summary) {
        if best(summary, Family::Coroutine, Timer::Device, phase).is_none() {
            continue;
        }
        let at = Phase::Named(phase.to_string());
        let side = |names: Vec<String>| Side { who: Who::Highest(names), phase: at.clone() };
        let coroutine = || side(on_device(Family::Coroutine));
        let mut rivals = vec![
            (
                "threads",
                "the best OS-thread contestant",
                Comparison { a: coroutine(), b: side(on_device(Family::Blocking)) },
            ),
            (
                "streams",
                "the best stream contestant",
                Comparison { a: coroutine(), b: side(on_device(Family::Stream)) },
            ),
        ];
        if let [one, two] = carriers.as_slice() {
            rivals.push(("carriers", "one carrier", Comparison::contestants(two, one, at.clone())));
        }
        for (rival, words, comparison) in rivals {
            let text = format!(
                "At {} in flight on the shared device, the best coroutine contestant answers within noise of {words}",
                count(level as f64)
            );
            rows.extend(within(
                summary,
                near_ids(rival, phase),
                &text,
                On { metric: HEADLINE, definition: STEADY, comparison },
            ));
        }
    }
    rows
}

/// Where a coroutine's CPU per call goes, at [`cpu_level`]: the best coroutine against the best stream on the
/// shared device (dearer in all, dearer on the device's timer threads, under one context switch a call), and the
/// own-timer coroutine against the best one on the device (cheaper).
fn cpu_rows(summary: &Summary) -> Vec<ClaimSpec> {
    let Some((level, phase)) = cpu_level(summary) else { return Vec::new() };
    let at = || Phase::Named(phase.to_string());
    let name = |family| best(summary, family, Timer::Device, phase).map(|(n, _)| n).unwrap_or_default();
    let (co, stream) = (name(Family::Coroutine), name(Family::Stream));
    let own = own_timer_coroutine().unwrap_or_default();
    let level = count(level as f64);
    let cpu = "CPU per call over the steady window, the device's timer threads included (µs)";
    let device_cpu = "CPU per call on the device's two timer threads (µs)";
    let on = |metric, definition, a: &str, b: &str| On {
        metric,
        definition,
        comparison: Comparison::contestants(a, b, at()),
    };
    let switches = On {
        metric: "ctx_switches_per_call",
        definition: "context switches of the whole process per call",
        comparison: against(&co, at(), 1.0, "one switch a call"),
    };
    vec![
        beyond(
            summary,
            CPU_DEARER,
            format!("At {level} in flight, `{co}` spends more CPU per call than `{stream}`, beyond noise"),
            Beyond::Above,
            on("cpu_us_per_call", cpu, &co, &stream),
        ),
        beyond(
            summary,
            DEVICE_CPU_DEARER,
            format!(
                "At {level} in flight, the device's timer threads spend more per call on `{co}`'s calls than on \
                 `{stream}`'s, beyond noise"
            ),
            Beyond::Above,
            on("dependency_cpu_us_per_call", device_cpu, &co, &stream),
        ),
        beyond(
            summary,
            UNDER_ONE_SWITCH,
            format!("At {level} in flight, `{co}`'s process switches context less than once per call, beyond noise"),
            Beyond::Below,
            switches,
        ),
        beyond(
            summary,
            OWN_TIMER_CHEAPER,
            format!(
                "At {level} in flight, `{own}` on `may`'s own timer spends less CPU per call than `{co}` on the \
                 device, beyond noise"
            ),
            Beyond::Below,
            on("cpu_us_per_call", cpu, &own, &co),
        ),
    ]
}
