//! The device report's figures and verdicts, as a typed context for `templates/report.md` (the discussion) and
//! `templates/headline.md` (the headline's own lines). Numbers are formatted here and claims are passed by id
//! ([`claims_by_id`]); every word, and the choice of every finding, is in the templates. A finding that compares
//! two contestants rests on a judged claim or on the lab's one noise rule ([`compare`], [`differs`],
//! [`differs_from_value`]), never on a ratio of medians alone.

use std::collections::BTreeMap;

use measure::compare::{compare, differs, differs_from_value, format_ratio, process_range};
use measure::summary::{Family, MetricStats, Summary};
use measure::template::{claims_by_id, ClaimView};
use measure::units::count;
use serde::Serialize;

use super::claims::{PRECISION_MS, STREAMS_AHEAD, TRAP_FACTOR};
use crate::figures::{cell, one_decimal, percent, two_decimals, Named};

use super::contestants::{best, key};
use super::{levels, CONTESTANTS, HEADLINE, HEAP_READ_AT};
use crate::contestants::{Contestant, StreamShape, Timer};

/// The discussion's template: every word of the report's discussion.
const REPORT: &str = include_str!("templates/report.md");
/// The headline notes' template: one note per line.
const HEADLINE_NOTES: &str = include_str!("templates/headline.md");

/// Everything `templates/report.md` reads.
#[derive(Debug, Serialize)]
struct Report {
    /// Every judged claim, by id.
    claims: BTreeMap<String, ClaimView>,
    /// The service time in ms, and the tick a tokio sleep of it rounds up to.
    service: String,
    service_tick: String,
    cores: u32,
    rounds: String,
    trap_factor: String,
    precision_ms: String,
    streams_ahead: String,
    heap_read_at: String,
    /// The time budget in seconds, when the run has one.
    budget: Option<String>,
    /// Best of each family per level; `None` without a service time.
    levels: Option<Vec<LevelBest>>,
    single: Option<SingleTask>,
    start: Option<Start>,
    trap: Option<Trap>,
    own: Vec<OwnTimerCap>,
    threads: Vec<ThreadLine>,
    coroutines: Option<Coroutines>,
    cpu: Option<CpuTable>,
    memory: Vec<MemoryLevel>,
    cut: Vec<Cut>,
    /// `may`'s rules, from `pipelines` (shared with the chain scenario), or empty.
    coroutine_rules: String,
    pick: Option<Vec<Pick>>,
}

/// One level's best contestant of each family on the shared device, and the best on their own timers.
#[derive(Debug, Serialize)]
struct LevelBest {
    level: String,
    ideal: String,
    best: Vec<FamilyBest>,
    own: Vec<Named>,
}

/// A family's best at one level: `name` is `None` when none of it ran.
#[derive(Debug, Serialize)]
struct FamilyBest {
    family: &'static str,
    name: Option<String>,
    ops: String,
    fraction: String,
    cpu: Option<String>,
}

/// Where a single-task stream tops out, from its own CPU per call.
#[derive(Debug, Serialize)]
struct SingleTask {
    level: String,
    name: String,
    cores: String,
    cpu: String,
    device: String,
    own: String,
    cap: String,
    reached: String,
    share: String,
    /// Measured in enough processes, its throughput does not differ beyond noise from the cap
    /// ([`differs_from_value`]).
    at_cap: bool,
}

/// Whole run against steady window, per family's best and level.
#[derive(Debug, Serialize)]
struct Start {
    lines: Vec<StartLine>,
    /// Those whose whole-run rate is below the steady one beyond noise ([`differs`]).
    slower: Vec<LevelName>,
}

/// One contestant at one level.
#[derive(Debug, Serialize)]
struct LevelName {
    name: String,
    level: String,
}

/// One whole-run line.
#[derive(Debug, Serialize)]
struct StartLine {
    name: String,
    level: String,
    whole: String,
    steady: String,
    share: String,
    cpu_whole: String,
    cpu: String,
}

/// The cooperative-budget trap: per shape the ratio at every level, and the figures at the highest level.
#[derive(Debug, Serialize)]
struct Trap {
    rows: Vec<TrapRow>,
    level: String,
    name: String,
    budgeted: String,
    free: String,
    ratio: String,
}

/// One stream shape's unconstrained ÷ as-it-comes ratios.
#[derive(Debug, Serialize)]
struct TrapRow {
    name: String,
    ratios: Vec<Named>,
}

/// An own-timer contestant's cap from its idle call at one level.
#[derive(Debug, Serialize)]
struct OwnTimerCap {
    name: String,
    level: String,
    idle: String,
    cap: String,
    cap_share: String,
    ops: String,
    reached: String,
}

/// A skipped phase with the reason.
#[derive(Debug, Serialize)]
struct Skip {
    name: String,
    phase: String,
    reason: String,
}

/// A blocking contestant's line: a skip, or the pool's start-up and CPU per call at one level.
#[derive(Debug, Serialize)]
struct ThreadLine {
    skip: Option<Skip>,
    name: String,
    level: String,
    spawn_ms: String,
    cpu: String,
    device: Option<String>,
}

/// The coroutine family against the others.
#[derive(Debug, Serialize)]
struct Coroutines {
    levels: Vec<CoroutineLevel>,
    skipped: Vec<Skip>,
    limits: Vec<Named>,
}

/// The best coroutine contestant at one level, with its ratios.
#[derive(Debug, Serialize)]
struct CoroutineLevel {
    level: String,
    name: String,
    ops: String,
    cpu: Option<String>,
    thread: Option<Ratio>,
    stream: Option<Ratio>,
    /// Two carriers' rate against one carrier's (`name` the two-carrier contestant), and the one-carrier
    /// contestant's name.
    carriers: Option<(Ratio, String)>,
}

/// `ratio` of one contestant's median to `name`'s; `noise` by [`compare`].
#[derive(Debug, Serialize)]
struct Ratio {
    name: String,
    ratio: String,
    noise: bool,
}

/// Where CPU per call goes at the highest level a coroutine contestant ran: CPU beside context switches.
#[derive(Debug, Serialize)]
struct CpuTable {
    level: String,
    rows: Vec<CpuRow>,
    /// Whether this run recorded the accounting split (voluntary and involuntary, per thread group).
    split: bool,
    /// The best coroutine and best stream contestant on the shared device, compared.
    versus: Option<CpuVersus>,
    /// The own-timer coroutine contestant against the best coroutine on the device.
    own_timer: Option<OwnTimerCpu>,
}

/// One contestant's CPU and switches per call (`—` where not measured).
#[derive(Debug, Serialize)]
struct CpuRow {
    name: String,
    cpu: String,
    device_cpu: String,
    switches: String,
    voluntary: String,
    involuntary: String,
    device_switches: String,
    timer_cpu: String,
    timer_switches: String,
    other_switches: String,
}

/// The best coroutine against the best stream on the shared device.
#[derive(Debug, Serialize)]
struct CpuVersus {
    coroutine: String,
    stream: String,
    cpu: String,
    stream_cpu: String,
    /// CPU per call differs beyond noise and the coroutine's is the larger.
    dearer: bool,
    device_cpu: Option<String>,
    stream_device_cpu: Option<String>,
    /// The device's timer threads spend more per call for the coroutine, beyond noise.
    device_dearer: bool,
    switches: Option<String>,
    /// The coroutine's switches per call are below one beyond noise.
    under_one_switch: bool,
}

/// The own-timer coroutine contestant against the best coroutine on the device.
#[derive(Debug, Serialize)]
struct OwnTimerCpu {
    name: String,
    device_name: String,
    cpu: String,
    device_cpu: String,
    /// Its CPU per call is below the device coroutine's, beyond noise.
    cheaper: bool,
    /// CPU per call on `may`'s timer thread (accounting iteration), where recorded.
    timer_cpu: Option<String>,
}

/// Heap and resident memory per waiting call of every contestant at one level.
#[derive(Debug, Serialize)]
struct MemoryLevel {
    level: String,
    cells: Vec<MemoryCell>,
}

/// One contestant's memory per waiting call.
#[derive(Debug, Serialize)]
struct MemoryCell {
    name: String,
    heap: String,
    rss: String,
}

/// A level where iterations were cut short by the budget.
#[derive(Debug, Serialize)]
struct Cut {
    name: String,
    level: String,
    share: String,
    done: String,
}

/// The best stream against the best blocking contestant at the lowest and highest level.
#[derive(Debug, Serialize)]
struct Pick {
    level: String,
    stream: Named,
    blocking: Option<Named>,
    ratio: String,
    /// `within` (no difference beyond noise by [`compare`]), `blocking` or `stream` (ahead beyond noise).
    ahead: &'static str,
    why: Option<PickWhy>,
    /// The level is 10,000, where the streams-ahead claim speaks.
    at_10k: bool,
}

/// Why the blocking contestant trails: its CPU per call against the cores.
#[derive(Debug, Serialize)]
struct PickWhy {
    blocking_cpu: String,
    stream_cpu: String,
    cores: String,
    cap: String,
    reached: String,
}

/// Everything `templates/headline.md` reads.
#[derive(Debug, Serialize)]
struct Headline {
    trap: Option<Trap>,
    skipped: Vec<Skip>,
}

/// The discussion section of the report, rendered from `templates/report.md`.
pub(crate) fn discussion(summary: &Summary) -> String {
    let service = summary.param("service_ms");
    let context = Report {
        claims: claims_by_id(&summary.claims),
        service: service.map_or("?".to_string(), |s| format!("{s:.0}")),
        service_tick: service.map_or("?".to_string(), |s| format!("{:.0}", s + 1.0)),
        cores: summary.environment.cores,
        rounds: summary.param("rounds").map_or_else(|| "short".to_string(), |r| format!("{r:.0}")),
        trap_factor: TRAP_FACTOR.to_string(),
        precision_ms: PRECISION_MS.to_string(),
        streams_ahead: STREAMS_AHEAD.to_string(),
        heap_read_at: percent(HEAP_READ_AT),
        budget: summary.param("budget_ms").map(|b| format!("{:.1}", b / 1e3)),
        levels: per_level(summary),
        single: single_task(summary),
        start: start(summary),
        trap: budget_trap(summary),
        own: own_timers(summary),
        threads: threads(summary),
        coroutines: coroutines(summary),
        cpu: cpu_table(summary),
        memory: memory(summary),
        cut: cut_short(summary),
        coroutine_rules: pipelines::coroutine::rules_note(summary).unwrap_or_default(),
        pick: pick(summary),
    };
    measure::template::render_or_note("device/report.md", REPORT, context)
}

/// The headline's own lines, rendered from `templates/headline.md`: the budget trap at the highest level, and the
/// levels threads could not reach.
pub(crate) fn headline_notes(summary: &Summary) -> Vec<String> {
    let context = Headline { trap: budget_trap(summary), skipped: skipped(summary, None) };
    match measure::template::render("device/headline.md", HEADLINE_NOTES, context) {
        Ok(text) => text.lines().filter(|l| !l.trim().is_empty()).map(str::to_string).collect(),
        Err(err) => vec![format!("_The headline notes could not be rendered: {err}._")],
    }
}

fn skip(name: &str, phase: &str, reason: &str) -> Skip {
    Skip { name: name.to_string(), phase: phase.to_string(), reason: reason.to_string() }
}

/// Every phase a contestant (of `family`, or of any) skipped, with the reason, in report order.
fn skipped(summary: &Summary, family: Option<Family>) -> Vec<Skip> {
    CONTESTANTS
        .iter()
        .filter(|c| family.is_none_or(|f| c.family() == f))
        .filter_map(|c| summary.contestant(&c.name()))
        .flat_map(|c| c.skipped_phases.iter().map(|(phase, reason)| skip(&c.name, phase, reason)))
        .collect()
}

fn stats<'s>(summary: &'s Summary, name: &str, phase: &str, metric: &str) -> Option<&'s MetricStats> {
    summary.metric(name, &key(phase, metric))
}

/// The families that ran in this summary, in report order (stream, blocking, then coroutine when present).
fn families(summary: &Summary) -> Vec<Family> {
    let mut out = vec![Family::Stream, Family::Blocking];
    if summary.contestants.iter().any(|c| c.family == Family::Coroutine) {
        out.push(Family::Coroutine);
    }
    out
}

/// Per level: the best of each family on the shared device, and on their own timers; none without a service
/// time.
fn per_level(summary: &Summary) -> Option<Vec<LevelBest>> {
    let service = summary.param("service_ms")?;
    let rows = levels(summary)
        .into_iter()
        .map(|(level, phase)| LevelBest {
            level: count(level as f64),
            ideal: count(level as f64 * 1e3 / service),
            best: families(summary)
                .into_iter()
                .map(|family| match best(summary, family, Timer::Device, phase) {
                    Some((name, s)) => FamilyBest {
                        family: family.as_str(),
                        ops: count(s.median),
                        fraction: percent(summary.median_in(&name, phase, "ideal_fraction").unwrap_or(f64::NAN)),
                        cpu: summary.median_in(&name, phase, "cpu_us_per_call").map(one_decimal),
                        name: Some(name),
                    },
                    None => FamilyBest {
                        family: family.as_str(),
                        name: None,
                        ops: String::new(),
                        fraction: String::new(),
                        cpu: None,
                    },
                })
                .collect(),
            own: families(summary)
                .into_iter()
                .filter_map(|family| best(summary, family, Timer::Own, phase))
                .map(|(name, s)| Named { name, value: count(s.median) })
                .collect(),
        })
        .collect();
    Some(rows)
}

/// Where a single-task stream tops out: everything but the device's timers runs in one task, on one worker.
fn single_task(summary: &Summary) -> Option<SingleTask> {
    let &(top, phase) = levels(summary).last()?;
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
    if own <= 0.0 {
        return None;
    }
    let cap = 1e6 / own;
    Some(SingleTask {
        level: count(top as f64),
        cores: two_decimals(cores),
        cpu: two_decimals(cpu),
        device: two_decimals(device),
        own: two_decimals(own),
        cap: count(cap),
        reached: count(s.median),
        share: percent(s.median / cap),
        at_cap: process_range(s).is_some() && !differs_from_value(s, cap, summary.method.noise_threshold),
        name,
    })
}

/// What the start and drain cost each family's best contestant: whole-run figures against the steady window.
fn start(summary: &Summary) -> Option<Start> {
    let noise = summary.method.noise_threshold;
    let mut lines = Vec::new();
    let mut slower = Vec::new();
    for (level, phase) in levels(summary) {
        for family in [Family::Stream, Family::Blocking] {
            let Some((name, steady)) = best(summary, family, Timer::Device, phase) else { continue };
            let m = |metric: &str| stats(summary, &name, phase, metric);
            let (Some(whole), Some(cpu), Some(cpu_whole)) =
                (m("ops_per_sec_whole_run"), m("cpu_us_per_call"), m("cpu_us_per_call_whole_run"))
            else {
                continue;
            };
            if whole.median < steady.median && differs(steady, whole, noise) {
                slower.push(LevelName { name: name.clone(), level: count(level as f64) });
            }
            lines.push(StartLine {
                level: count(level as f64),
                whole: count(whole.median),
                steady: count(steady.median),
                share: percent(whole.median / steady.median),
                cpu_whole: one_decimal(cpu_whole.median),
                cpu: one_decimal(cpu.median),
                name,
            });
        }
    }
    (!lines.is_empty()).then_some(Start { lines, slower })
}

/// Throughput of the free variant over the budgeted one of a stream shape at `phase`.
fn trap_ratio(summary: &Summary, shape: StreamShape, timer: Timer, phase: &str) -> Option<(String, f64, f64)> {
    let budgeted = Contestant::Stream { shape, free: false, timer }.name();
    let free = Contestant::Stream { shape, free: true, timer }.name();
    let b = summary.median_in(&budgeted, phase, HEADLINE)?;
    let f = summary.median_in(&free, phase, HEADLINE)?;
    Some((budgeted, b, f))
}

/// The trap per stream shape and level, and its figures at the highest level.
fn budget_trap(summary: &Summary) -> Option<Trap> {
    let levels = levels(summary);
    let &(top, top_phase) = levels.last()?;
    let shapes = [
        (StreamShape::BufferUnordered, Timer::Device),
        (StreamShape::Buffered, Timer::Device),
        (StreamShape::BufferUnordered, Timer::Own),
        (StreamShape::Tasks, Timer::Device),
    ];
    let rows = shapes
        .into_iter()
        .map(|(shape, timer)| TrapRow {
            name: Contestant::Stream { shape, free: false, timer }.name(),
            ratios: levels
                .iter()
                .filter_map(|(level, phase)| {
                    trap_ratio(summary, shape, timer, phase)
                        .map(|(_, b, f)| Named { name: count(*level as f64), value: format_ratio(f / b) })
                })
                .collect(),
        })
        .filter(|row| !row.ratios.is_empty())
        .collect();
    let (name, budgeted, free) = trap_ratio(summary, StreamShape::BufferUnordered, Timer::Device, top_phase)?;
    Some(Trap {
        rows,
        level: count(top as f64),
        name,
        budgeted: count(budgeted),
        free: count(free),
        ratio: format_ratio(free / budgeted),
    })
}

/// Each own-timer contestant's cap from its measured idle call, per level.
fn own_timers(summary: &Summary) -> Vec<OwnTimerCap> {
    let Some(service) = summary.param("service_ms") else { return Vec::new() };
    let mut rows = Vec::new();
    for c in CONTESTANTS.iter().filter(|c| c.timer() == Timer::Own) {
        let name = c.name();
        for (level, phase) in levels(summary) {
            let (Some(idle), Some(ops)) =
                (summary.median_in(&name, phase, "idle_call_ms"), summary.median_in(&name, phase, HEADLINE))
            else {
                continue;
            };
            let cap = level as f64 * 1e3 / idle;
            rows.push(OwnTimerCap {
                name: name.clone(),
                level: count(level as f64),
                idle: two_decimals(idle),
                cap: count(cap),
                cap_share: percent(idle.recip() * service),
                ops: count(ops),
                reached: percent(ops / cap),
            });
        }
    }
    rows
}

/// The blocking contestants' skips, pool start-up and CPU per call.
fn threads(summary: &Summary) -> Vec<ThreadLine> {
    let mut lines = Vec::new();
    for c in CONTESTANTS.iter().filter(|c| c.family() == Family::Blocking) {
        let name = c.name();
        let Some(contestant) = summary.contestant(&name) else { continue };
        for (phase, reason) in &contestant.skipped_phases {
            lines.push(ThreadLine {
                skip: Some(skip(&name, phase, reason)),
                name: name.clone(),
                level: String::new(),
                spawn_ms: String::new(),
                cpu: String::new(),
                device: None,
            });
        }
        for (level, phase) in levels(summary) {
            if let (Some(spawn), Some(cpu)) =
                (summary.median_in(&name, phase, "spawn_ms"), summary.median_in(&name, phase, "cpu_us_per_call"))
            {
                lines.push(ThreadLine {
                    skip: None,
                    name: name.clone(),
                    level: count(level as f64),
                    spawn_ms: format!("{spawn:.0}"),
                    cpu: one_decimal(cpu),
                    device: summary.median_in(&name, phase, "dependency_cpu_us_per_call").map(one_decimal),
                });
            }
        }
    }
    lines
}

/// `a` against `b` on the headline metric: the ratio of medians and whether it is within noise by [`compare`].
fn ratio(summary: &Summary, a: &MetricStats, b: &MetricStats, name: String) -> Ratio {
    let c = compare(a, b, summary.method.noise_threshold);
    Ratio { name, ratio: format_ratio(c.ratio), noise: c.noise }
}

/// The coroutine family against the others, per level: ratios to the best OS-thread and best stream contestant
/// on the shared device, the carrier sweep, skips with their reasons, and the OS limits the run had.
fn coroutines(summary: &Summary) -> Option<Coroutines> {
    if !summary.contestants.iter().any(|c| c.family == Family::Coroutine) {
        return None;
    }
    let mut rows = Vec::new();
    for (level, phase) in levels(summary) {
        let Some((name, co)) = best(summary, Family::Coroutine, Timer::Device, phase) else { continue };
        let carriers: Vec<(String, &MetricStats)> = CONTESTANTS
            .iter()
            .filter(|c| matches!(c, Contestant::Coroutine { timer: Timer::Device, .. }))
            .filter_map(|c| Some((c.name(), stats(summary, &c.name(), phase, HEADLINE)?)))
            .collect();
        let carriers = match carriers.as_slice() {
            [(one, a), (two, b)] => Some((ratio(summary, b, a, two.clone()), one.clone())),
            _ => None,
        };
        rows.push(CoroutineLevel {
            level: count(level as f64),
            ops: count(co.median),
            cpu: summary.median_in(&name, phase, "cpu_us_per_call").map(one_decimal),
            thread: best(summary, Family::Blocking, Timer::Device, phase).map(|(t, s)| ratio(summary, co, s, t)),
            stream: best(summary, Family::Stream, Timer::Device, phase).map(|(t, s)| ratio(summary, co, s, t)),
            carriers,
            name,
        });
    }
    let skipped = skipped(summary, Some(Family::Coroutine));
    let limits: Vec<Named> =
        summary.environment.limits.iter().map(|(k, v)| Named { name: k.clone(), value: v.clone() }).collect();
    (!rows.is_empty() || !skipped.is_empty() || !limits.is_empty()).then_some(Coroutines {
        levels: rows,
        skipped,
        limits,
    })
}

/// CPU per call beside context switches per call, per contestant, at the highest level a coroutine contestant
/// ran on the shared device; the comparisons the template's findings rest on.
fn cpu_table(summary: &Summary) -> Option<CpuTable> {
    let noise = summary.method.noise_threshold;
    let (level, phase) = levels(summary)
        .into_iter()
        .rev()
        .find(|(_, phase)| best(summary, Family::Coroutine, Timer::Device, phase).is_some())?;
    let m = |name: &str, metric: &str| summary.median_in(name, phase, metric);
    let rows: Vec<CpuRow> = CONTESTANTS
        .iter()
        .map(Contestant::name)
        .filter(|name| m(name, "cpu_us_per_call").is_some())
        .map(|name| CpuRow {
            cpu: cell(m(&name, "cpu_us_per_call"), 2),
            device_cpu: cell(m(&name, "dependency_cpu_us_per_call"), 2),
            switches: cell(m(&name, "ctx_switches_per_call"), 3),
            voluntary: cell(m(&name, "voluntary_switches_per_call"), 3),
            involuntary: cell(m(&name, "involuntary_switches_per_call"), 3),
            device_switches: cell(m(&name, "device_switches_per_call"), 3),
            timer_cpu: cell(m(&name, "may_timer_cpu_us_per_call"), 2),
            timer_switches: cell(m(&name, "may_timer_switches_per_call"), 3),
            other_switches: cell(m(&name, "worker_switches_per_call"), 3),
            name,
        })
        .collect();
    let split = CONTESTANTS.iter().any(|c| m(&c.name(), "voluntary_switches_per_call").is_some());
    let versus =
        best(summary, Family::Coroutine, Timer::Device, phase).zip(best(summary, Family::Stream, Timer::Device, phase));
    let versus = versus.and_then(|((co, _), (st, _))| {
        let s = |name: &str, metric: &str| stats(summary, name, phase, metric);
        let (cpu, stream_cpu) = (s(&co, "cpu_us_per_call")?, s(&st, "cpu_us_per_call")?);
        let (device, stream_device) = (s(&co, "dependency_cpu_us_per_call"), s(&st, "dependency_cpu_us_per_call"));
        let switches = s(&co, "ctx_switches_per_call");
        Some(CpuVersus {
            cpu: two_decimals(cpu.median),
            stream_cpu: two_decimals(stream_cpu.median),
            dearer: cpu.median > stream_cpu.median && differs(cpu, stream_cpu, noise),
            device_cpu: device.map(|d| two_decimals(d.median)),
            stream_device_cpu: stream_device.map(|d| two_decimals(d.median)),
            device_dearer: match (device, stream_device) {
                (Some(d), Some(sd)) => d.median > sd.median && differs(d, sd, noise),
                _ => false,
            },
            switches: switches.map(|w| format!("{:.3}", w.median)),
            under_one_switch: switches.is_some_and(|w| w.median < 1.0 && differs_from_value(w, 1.0, noise)),
            coroutine: co,
            stream: st,
        })
    });
    let own_timer = CONTESTANTS
        .iter()
        .find(|c| matches!(c, Contestant::Coroutine { timer: Timer::Own, .. }))
        .map(Contestant::name)
        .zip(best(summary, Family::Coroutine, Timer::Device, phase))
        .and_then(|(own, (device_name, _))| {
            let own_cpu = stats(summary, &own, phase, "cpu_us_per_call")?;
            let device_cpu = stats(summary, &device_name, phase, "cpu_us_per_call")?;
            Some(OwnTimerCpu {
                cpu: two_decimals(own_cpu.median),
                device_cpu: two_decimals(device_cpu.median),
                cheaper: own_cpu.median < device_cpu.median && differs(own_cpu, device_cpu, noise),
                timer_cpu: m(&own, "may_timer_cpu_us_per_call").map(two_decimals),
                name: own,
                device_name,
            })
        });
    Some(CpuTable { level: count(level as f64), rows, split, versus, own_timer })
}

/// Heap and resident memory per waiting call, per level.
fn memory(summary: &Summary) -> Vec<MemoryLevel> {
    levels(summary)
        .into_iter()
        .map(|(level, phase)| MemoryLevel {
            level: count(level as f64),
            cells: CONTESTANTS
                .iter()
                .filter_map(|c| {
                    let name = c.name();
                    let heap = summary.median_in(&name, phase, "live_heap_bytes_per_call")?;
                    let rss = summary.median_in(&name, phase, "rss_bytes_per_call")?;
                    Some(MemoryCell { name, heap: format!("{heap:.0}"), rss: format!("{rss:.0}") })
                })
                .collect(),
        })
        .filter(|l| !l.cells.is_empty())
        .collect()
}

/// The levels whose iterations were cut short by the time budget.
fn cut_short(summary: &Summary) -> Vec<Cut> {
    let mut cut = Vec::new();
    for c in CONTESTANTS.iter() {
        let name = c.name();
        for (level, phase) in levels(summary) {
            let Some(s) = stats(summary, &name, phase, "cut_short") else { continue };
            if s.max > 0.0 {
                let done = summary.median_in(&name, phase, "completed_fraction").unwrap_or(f64::NAN);
                cut.push(Cut {
                    name: name.clone(),
                    level: count(level as f64),
                    share: percent(s.mean),
                    done: percent(done),
                });
            }
        }
    }
    cut
}

/// The best stream against the best blocking contestant at the lowest and highest levels, compared by the lab's
/// noise rule.
fn pick(summary: &Summary) -> Option<Vec<Pick>> {
    let levels = levels(summary);
    let &(top, high) = levels.last()?;
    let noise = summary.method.noise_threshold;
    let mut picks = Vec::new();
    for (level, phase) in [levels[0], (top, high)] {
        let Some((s_name, s)) = best(summary, Family::Stream, Timer::Device, phase) else { continue };
        let blocking = best(summary, Family::Blocking, Timer::Device, phase);
        let (ahead, why) = match &blocking {
            None => ("stream", None),
            Some((b_name, b)) => {
                let c = compare(s, b, noise);
                if c.noise {
                    ("within", None)
                } else if b.median > s.median {
                    ("blocking", None)
                } else {
                    let cpu = |name: &str| summary.median_in(name, phase, "cpu_us_per_call");
                    let why = cpu(&s_name).zip(cpu(b_name)).map(|(s_cpu, b_cpu)| {
                        let cores = f64::from(summary.environment.cores.max(1));
                        let cap = cores * 1e6 / b_cpu;
                        PickWhy {
                            blocking_cpu: one_decimal(b_cpu),
                            stream_cpu: one_decimal(s_cpu),
                            cores: format!("{cores:.0}"),
                            cap: count(cap),
                            reached: percent(b.median / cap),
                        }
                    });
                    ("stream", why)
                }
            }
        };
        picks.push(Pick {
            level: count(level as f64),
            ratio: blocking.as_ref().map(|(_, b)| format_ratio(s.median / b.median)).unwrap_or_default(),
            blocking: blocking.map(|(name, b)| Named { name, value: count(b.median) }),
            stream: Named { name: s_name, value: count(s.median) },
            ahead,
            why,
            at_10k: level == 10_000,
        });
        if level == top {
            break;
        }
    }
    Some(picks)
}
