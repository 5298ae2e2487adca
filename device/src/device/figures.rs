//! The device report's figures: each section's numbers read from the run's summary at each in-flight level and
//! formatted for `templates/report.md` (the best of each family, the single task's cap, the start, the budget trap,
//! the own timers, the threads, the coroutines, where a coroutine's CPU goes, memory, the cut-short levels and what
//! the family answers say to pick). Analysis only: which sentence a figure gets is the template's choice, by the
//! verdicts of [`super::findings`] and the claims; [`super::report`] gathers these into the template's context.

use measure::answers::{Answer, QuestionResult};
use measure::compare::format_ratio;
use measure::judge::p_label;
use measure::summary::{metric_key, Family, MetricStats, Summary};
use measure::units::count;
use serde_json::{json, Value};

use super::contestants::{best, on_device, own_timer_coroutine};
use super::findings::{below_steady_id, cpu_level, near_ids, single_task};
use super::standing::{blocking_stands, Standing, Stands};
use super::{levels, CONTESTANTS, HEADLINE};
use crate::contestants::{Contestant, StreamShape, Timer};
use crate::format::{cell, named, one_decimal, percent, two_decimals};

/// The columns of the CPU table: the key `templates/report.md` reads, the metric at the level, and its decimals.
const CPU_COLUMNS: [(&str, &str, usize); 9] = [
    ("cpu", "cpu_us_per_call", 2),
    ("device_cpu", "dependency_cpu_us_per_call", 2),
    ("switches", "ctx_switches_per_call", 3),
    ("voluntary", "voluntary_switches_per_call", 3),
    ("involuntary", "involuntary_switches_per_call", 3),
    ("device_switches", "device_switches_per_call", 3),
    ("timer_cpu", "may_timer_cpu_us_per_call", 2),
    ("timer_switches", "may_timer_switches_per_call", 3),
    ("other_switches", "worker_switches_per_call", 3),
];

/// One in-flight level of the run, and the figures every section reads at it.
#[derive(Clone, Copy)]
struct At<'s> {
    summary: &'s Summary,
    level: u64,
    phase: &'s str,
}

impl<'s> At<'s> {
    /// The run's levels, lowest first.
    fn all(summary: &'s Summary) -> Vec<At<'s>> {
        levels(summary).into_iter().map(|(level, phase)| At { summary, level, phase }).collect()
    }

    /// The level as the report prints it: `10,000`.
    fn label(self) -> String {
        count(self.level as f64)
    }

    /// `name`'s statistics of `metric` at this level.
    fn stats(self, name: &str, metric: &str) -> Option<&'s MetricStats> {
        self.summary.metric(name, &metric_key(Some(self.phase), metric))
    }

    /// `name`'s median of `metric` at this level.
    fn median(self, name: &str, metric: &str) -> Option<f64> {
        self.summary.median_in(name, self.phase, metric)
    }

    /// The best contestant of `family` on the shared device at this level, with its throughput.
    fn best(self, family: Family) -> Option<(String, &'s MetricStats)> {
        best(self.summary, family, Timer::Device, self.phase)
    }
}

/// Every phase a contestant `which` picks skipped, with the reason, in report order.
pub(super) fn skipped(summary: &Summary, which: impl Fn(&Contestant) -> bool) -> Vec<Value> {
    CONTESTANTS
        .iter()
        .filter(|c| which(c))
        .filter_map(|c| summary.contestant(&c.name()))
        .flat_map(|c| {
            c.skipped_phases.iter().map(|(phase, reason)| json!({ "name": c.name, "phase": phase, "reason": reason }))
        })
        .collect()
}

/// A row of `row` for each contestant `which` picks at each level, contestant by contestant in report order.
fn rows(
    summary: &Summary,
    which: impl Fn(&Contestant) -> bool,
    row: impl Fn(&str, At<'_>) -> Option<Value>,
) -> Vec<Value> {
    let levels = At::all(summary);
    CONTESTANTS.iter().filter(|c| which(c)).flat_map(|c| levels.iter().filter_map(|at| row(&c.name(), *at))).collect()
}

/// Per level: the best of each family on the shared device (`name` null when none of it ran; the coroutine family
/// only where the run has one), and on their own timers; none without a service time.
pub(super) fn per_level(summary: &Summary) -> Option<Vec<Value>> {
    let service = summary.param("service_ms")?;
    let coroutines = summary.contestants.iter().any(|c| c.family == Family::Coroutine);
    let families: Vec<Family> = [Family::Stream, Family::Blocking, Family::Coroutine]
        .into_iter()
        .filter(|f| *f != Family::Coroutine || coroutines)
        .collect();
    let rows = At::all(summary)
        .into_iter()
        .map(|at| {
            let bests = families.iter().map(|&family| match at.best(family) {
                Some((name, s)) => json!({
                    "family": family.as_str(),
                    "ops": count(s.median),
                    "fraction": percent(at.median(&name, "ideal_fraction").unwrap_or(f64::NAN)),
                    "cpu": at.median(&name, "cpu_us_per_call").map(one_decimal),
                    "name": name,
                }),
                None => json!({ "family": family.as_str(), "name": null }),
            });
            let own = families
                .iter()
                .filter_map(|&family| best(summary, family, Timer::Own, at.phase))
                .map(|(name, s)| named(name, count(s.median)));
            json!({
                "level": at.label(),
                "ideal": count(at.level as f64 * 1e3 / service),
                "best": bests.collect::<Vec<_>>(),
                "own": own.collect::<Vec<_>>(),
            })
        })
        .collect();
    Some(rows)
}

/// Where a single-task stream tops out ([`single_task`]); the template says it is at its cap where the findings
/// [`super::findings::SINGLE_AT_CAP`] hold.
pub(super) fn single(summary: &Summary) -> Option<Value> {
    let s = single_task(summary)?;
    Some(json!({
        "level": count(s.level as f64),
        "cores": two_decimals(s.cores),
        "cpu": two_decimals(s.cpu),
        "device": two_decimals(s.device),
        "own": two_decimals(s.own),
        "cap": count(s.cap),
        "reached": count(s.reached),
        "share": percent(s.reached / s.cap),
        "name": s.name,
    }))
}

/// What the start and drain cost each family's best contestant: whole-run figures against the steady window, and
/// those whose whole-run rate is below the steady one beyond noise, by their findings ([`below_steady_id`]).
pub(super) fn start(summary: &Summary) -> Option<Value> {
    let mut lines = Vec::new();
    let mut slower = Vec::new();
    for at in At::all(summary) {
        for family in [Family::Stream, Family::Blocking] {
            let Some((name, steady)) = at.best(family) else { continue };
            let m = |metric: &str| at.median(&name, metric);
            let (Some(whole), Some(cpu), Some(cpu_whole)) =
                (m("ops_per_sec_whole_run"), m("cpu_us_per_call"), m("cpu_us_per_call_whole_run"))
            else {
                continue;
            };
            if summary.finding_holds(&below_steady_id(family, at.phase)) {
                slower.push(json!({ "name": name, "level": at.label() }));
            }
            lines.push(json!({
                "level": at.label(),
                "whole": count(whole),
                "steady": count(steady.median),
                "share": percent(whole / steady.median),
                "cpu_whole": one_decimal(cpu_whole),
                "cpu": one_decimal(cpu),
                "name": name,
            }));
        }
    }
    (!lines.is_empty()).then(|| json!({ "lines": lines, "slower": slower }))
}

/// Throughput of the free variant over the budgeted one of a stream shape at `at`.
fn trap_ratio(at: At<'_>, shape: StreamShape, timer: Timer) -> Option<(String, f64, f64)> {
    let budgeted = Contestant::Stream { shape, free: false, timer }.name();
    let free = Contestant::Stream { shape, free: true, timer }.name();
    let b = at.median(&budgeted, HEADLINE)?;
    let f = at.median(&free, HEADLINE)?;
    Some((budgeted, b, f))
}

/// The trap per stream shape and level (unconstrained ÷ as-it-comes), and its figures at the highest level.
pub(super) fn budget_trap(summary: &Summary) -> Option<Value> {
    let levels = At::all(summary);
    let top = *levels.last()?;
    let shapes = [
        (StreamShape::BufferUnordered, Timer::Device),
        (StreamShape::Buffered, Timer::Device),
        (StreamShape::BufferUnordered, Timer::Own),
        (StreamShape::Tasks, Timer::Device),
    ];
    let rows: Vec<Value> = shapes
        .into_iter()
        .filter_map(|(shape, timer)| {
            let ratios: Vec<Value> = levels
                .iter()
                .filter_map(|at| trap_ratio(*at, shape, timer).map(|(_, b, f)| named(at.label(), format_ratio(f / b))))
                .collect();
            let name = Contestant::Stream { shape, free: false, timer }.name();
            (!ratios.is_empty()).then(|| json!({ "name": name, "ratios": ratios }))
        })
        .collect();
    let (name, budgeted, free) = trap_ratio(top, StreamShape::BufferUnordered, Timer::Device)?;
    Some(json!({
        "rows": rows,
        "level": top.label(),
        "name": name,
        "budgeted": count(budgeted),
        "free": count(free),
        "ratio": format_ratio(free / budgeted),
    }))
}

/// Each own-timer contestant's cap from its measured idle call, per level.
pub(super) fn own_timers(summary: &Summary) -> Vec<Value> {
    let Some(service) = summary.param("service_ms") else { return Vec::new() };
    rows(
        summary,
        |c| c.timer() == Timer::Own,
        |name, at| {
            let (idle, ops) = (at.median(name, "idle_call_ms")?, at.median(name, HEADLINE)?);
            let cap = at.level as f64 * 1e3 / idle;
            Some(json!({
                "name": name,
                "level": at.label(),
                "idle": two_decimals(idle),
                "cap": count(cap),
                "cap_share": percent(idle.recip() * service),
                "ops": count(ops),
                "reached": percent(ops / cap),
            }))
        },
    )
}

/// The blocking contestants' lines: each one's skips (`skip`), then its pool start-up and CPU per call per level.
pub(super) fn threads(summary: &Summary) -> Vec<Value> {
    let blocking = |c: &Contestant| c.family() == Family::Blocking;
    let mut lines = Vec::new();
    for c in CONTESTANTS.iter().filter(|c| blocking(c)) {
        let skips = skipped(summary, |other| other == c);
        lines.extend(skips.into_iter().map(|skip| json!({ "skip": skip, "name": c.name() })));
        lines.extend(rows(
            summary,
            |other| other == c,
            |name, at| {
                let (spawn, cpu) = (at.median(name, "spawn_ms")?, at.median(name, "cpu_us_per_call")?);
                Some(json!({
                    "skip": null,
                    "name": name,
                    "level": at.label(),
                    "spawn_ms": format!("{spawn:.0}"),
                    "cpu": one_decimal(cpu),
                    "device": at.median(name, "dependency_cpu_us_per_call").map(one_decimal),
                }))
            },
        ));
    }
    lines
}

/// The coroutine family against the others, per level: ratios to the best OS-thread and best stream contestant on
/// the shared device and of two carriers to one, each with the ids of the findings that put it within noise
/// ([`near_ids`]); skips with their reasons, and the OS limits the run had.
pub(super) fn coroutines(summary: &Summary) -> Option<Value> {
    if !summary.contestants.iter().any(|c| c.family == Family::Coroutine) {
        return None;
    }
    let mut rows = Vec::new();
    for at in At::all(summary) {
        let Some((name, co)) = at.best(Family::Coroutine) else { continue };
        let ratio = |rival: &str, b: &MetricStats, b_name: String| {
            let ratio = format_ratio(co.median / b.median);
            json!({ "name": b_name, "ratio": ratio, "near": near_ids(rival, at.phase) })
        };
        let carriers: Vec<(String, &MetricStats)> = on_device(Family::Coroutine)
            .into_iter()
            .filter_map(|name| at.stats(&name, HEADLINE).map(|s| (name, s)))
            .collect();
        let carriers = match carriers.as_slice() {
            [(one, a), (two, b)] => Some(json!([{
                "name": two, "ratio": format_ratio(b.median / a.median), "near": near_ids("carriers", at.phase)
            }, one])),
            _ => None,
        };
        rows.push(json!({
            "level": at.label(),
            "ops": count(co.median),
            "cpu": at.median(&name, "cpu_us_per_call").map(one_decimal),
            "thread": at.best(Family::Blocking).map(|(t, s)| ratio("threads", s, t)),
            "stream": at.best(Family::Stream).map(|(t, s)| ratio("streams", s, t)),
            "carriers": carriers,
            "name": name,
        }));
    }
    let skipped = skipped(summary, |c| c.family() == Family::Coroutine);
    let limits: Vec<Value> = summary.environment.limits.iter().map(|(k, v)| named(k, v)).collect();
    (!rows.is_empty() || !skipped.is_empty() || !limits.is_empty())
        .then(|| json!({ "levels": rows, "skipped": skipped, "limits": limits }))
}

/// CPU per call beside context switches per call, per contestant (`—` where not measured), at the highest level a
/// coroutine contestant ran on the shared device ([`cpu_level`]); `split` when this run recorded the accounting
/// split; the figures of the best coroutine against the best stream (`versus`) and of the own-timer coroutine
/// against the best on the device (`own_timer`), whose sentences follow the findings of [`super::findings`].
pub(super) fn cpu_table(summary: &Summary) -> Option<Value> {
    let (level, phase) = cpu_level(summary)?;
    let at = At { summary, level, phase };
    let rows: Vec<Value> = CONTESTANTS
        .iter()
        .map(Contestant::name)
        .filter(|name| at.median(name, "cpu_us_per_call").is_some())
        .map(|name| {
            let mut row: serde_json::Map<String, Value> = CPU_COLUMNS
                .iter()
                .map(|(k, metric, d)| (k.to_string(), cell(at.median(&name, metric), *d).into()))
                .collect();
            row.insert("name".to_string(), name.into());
            Value::Object(row)
        })
        .collect();
    let split = CONTESTANTS.iter().any(|c| at.median(&c.name(), "voluntary_switches_per_call").is_some());
    let figure = |name: &str, metric: &str| at.median(name, metric).map(two_decimals);
    let versus = at.best(Family::Coroutine).zip(at.best(Family::Stream)).map(|((co, _), (st, _))| {
        json!({
            "cpu": figure(&co, "cpu_us_per_call"),
            "stream_cpu": figure(&st, "cpu_us_per_call"),
            "device_cpu": figure(&co, "dependency_cpu_us_per_call"),
            "stream_device_cpu": figure(&st, "dependency_cpu_us_per_call"),
            "switches": at.median(&co, "ctx_switches_per_call").map(|w| format!("{w:.3}")),
            "coroutine": co,
            "stream": st,
        })
    });
    let own_timer = own_timer_coroutine().zip(at.best(Family::Coroutine)).map(|(own, (device_name, _))| {
        json!({
            "cpu": figure(&own, "cpu_us_per_call"),
            "device_cpu": figure(&device_name, "cpu_us_per_call"),
            "timer_cpu": figure(&own, "may_timer_cpu_us_per_call"),
            "name": own,
            "device_name": device_name,
        })
    });
    Some(json!({ "level": at.label(), "rows": rows, "split": split, "versus": versus, "own_timer": own_timer }))
}

/// Heap and resident memory per waiting call of every contestant, per level.
pub(super) fn memory(summary: &Summary) -> Vec<Value> {
    At::all(summary)
        .into_iter()
        .filter_map(|at| {
            let cells: Vec<Value> = CONTESTANTS
                .iter()
                .filter_map(|c| {
                    let name = c.name();
                    let heap = at.median(&name, "live_heap_bytes_per_call")?;
                    let rss = at.median(&name, "rss_bytes_per_call")?;
                    Some(json!({ "name": name, "heap": format!("{heap:.0}"), "rss": format!("{rss:.0}") }))
                })
                .collect();
            (!cells.is_empty()).then(|| json!({ "level": at.label(), "cells": cells }))
        })
        .collect()
}

/// The levels whose iterations were cut short by the time budget.
pub(super) fn cut_short(summary: &Summary) -> Vec<Value> {
    rows(
        summary,
        |_| true,
        |name, at| {
            let s = at.stats(name, "cut_short").filter(|s| s.max > 0.0)?;
            let done = at.median(name, "completed_fraction").unwrap_or(f64::NAN);
            Some(json!({ "name": name, "level": at.label(), "share": percent(s.mean), "done": percent(done) }))
        },
    )
}

/// `question`'s answer at `phase`.
fn answer_at<'q>(question: &'q QuestionResult, phase: &str) -> Option<&'q Answer> {
    question.answers.iter().find(|a| a.phase.as_deref() == Some(phase))
}

/// `standing` as the template reads it: its factor and p formatted.
fn stands_view(standing: &Standing) -> Value {
    let mut view = json!(standing);
    if let Stands::Beaten { factor, p, .. } = &standing.stands {
        view["factor"] = json!(format_ratio(*factor));
        view["p"] = json!(p.map(|p| p_label(Some(p))));
    }
    view
}

/// The family questions' answers at each level, as "what to pick" reads them: where the blocking family stands on
/// calls per second and on CPU per call ([`blocking_stands`]), and, where it is beaten on calls per second, its CPU
/// per call against the cores (`why`). The template says which trade-off the two standings support.
pub(super) fn pick(summary: &Summary) -> Option<Vec<Value>> {
    let question = |id: &str| summary.questions.iter().find(|q| q.id == id && q.family);
    let (Some(throughput), Some(cpu)) = (question("family"), question("family-cpu")) else { return Some(Vec::new()) };
    let mut picks = Vec::new();
    for at in At::all(summary) {
        let (Some(on_ops), Some(on_cpu)) = (answer_at(throughput, at.phase), answer_at(cpu, at.phase)) else {
            continue;
        };
        if on_ops.control.is_some() || on_ops.pick.is_none() {
            continue;
        }
        let ops = blocking_stands(summary, on_ops);
        let why = match &ops.stands {
            Stands::Beaten { name, .. } => at.median(name, "cpu_us_per_call").map(|b_cpu| {
                let cores = f64::from(summary.environment.cores.max(1));
                let cap = cores * 1e6 / b_cpu;
                json!({
                    "blocking_cpu": one_decimal(b_cpu),
                    "cores": format!("{cores:.0}"),
                    "cap": count(cap),
                    "reached": at.median(name, HEADLINE).map(|b| percent(b / cap)),
                })
            }),
            _ => None,
        };
        picks.push(json!({
            "level": at.label(),
            "ops": stands_view(&ops),
            "cpu": stands_view(&blocking_stands(summary, on_cpu)),
            "why": why,
            "at_10k": at.level == 10_000,
        }));
    }
    Some(picks)
}
