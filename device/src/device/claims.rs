//! The device scenario's claims, as a table the harness judges ([`measure::judge`]), fixed before any
//! measurement and never tuned to pass.
//!
//! A full run measures one timed iteration in each of five processes per contestant and level, so every claim
//! is judged on the range of those five samples: it holds when every pairing of samples satisfies it, fails
//! when none does, and is inconclusive in between. Each claim names the window its metric covers: the steady
//! window (first round answered to last round issued) or the whole timed run, start and drain included.
//! Every claim has an id (`.with_id(..)`), by which `templates/report.md` chooses the finding it backs.

use measure::compare::{Basis, Relation};
use measure::judge::{ClaimSpec, Comparison, Phase, Side, Who};
use measure::references;
use measure::summary::{Family, Summary};

use super::{ideal, levels};
use super::{CONTESTANTS, HEADLINE};
use crate::contestants::{Contestant, StreamShape, Timer};

/// Throughput ratio the budget trap must cost to count as a collapse.
pub(crate) const TRAP_FACTOR: f64 = 10.0;
/// Share of the ideal every device-timer contestant must reach at the lowest level.
const FEW_FRACTION: f64 = 0.9;
/// Most an uncontended device call may overshoot its service time, in milliseconds.
pub(crate) const PRECISION_MS: f64 = 0.5;
/// How many times the best blocking contestant's throughput the best stream contestant must reach at 10,000.
pub(crate) const STREAMS_AHEAD: f64 = 2.0;
/// How many times the best OS-thread contestant's throughput the best coroutine contestant must reach at 10,000.
const COROUTINES_OVER_THREADS: f64 = 5.0;
/// Share of the best stream contestant's throughput the best coroutine contestant must reach at 100,000.
const COROUTINES_OF_STREAMS: f64 = 0.5;
/// How many times a stream's resident memory per waiting call a parked thread's must be.
const THREAD_MEMORY: f64 = 10.0;
/// The published study's best model at 100,000 in flight, in `measure/references.json`.
const STUDY_BEST: &str = "the best model at 100,000 in flight";

/// Steady-window throughput.
const STEADY_OPS: &str = "calls answered per second over the steady window (first round answered to last round \
                          issued)";
/// Whole-run throughput.
const WHOLE_OPS: &str = "calls answered per second over the whole timed run, start and drain included";

/// A claim that side a's steady-window throughput is at least `factor` × side b's in every comparison, on the
/// ranges of the samples.
fn steady(text: impl Into<String>, factor: f64, comparisons: Vec<Comparison>) -> ClaimSpec {
    ClaimSpec::new(text, HEADLINE, STEADY_OPS, (Relation::AtLeast, factor), Basis::Ranges, comparisons)
}

/// Every claim of the device scenario, as data.
pub(crate) fn table(summary: &Summary) -> Vec<ClaimSpec> {
    let levels = levels(summary);
    let lowest = levels.first().map(|(_, p)| p.to_string());
    let highest = levels.last().map(|(_, p)| p.to_string());
    let no_level = || levels.is_empty().then(|| "the run has no in-flight level".to_string());
    let on_device = |family: Family| -> Vec<String> {
        CONTESTANTS.iter().filter(|c| c.family() == family && c.timer() == Timer::Device).map(|c| c.name()).collect()
    };
    let device_contestants: Vec<&Contestant> = CONTESTANTS.iter().filter(|c| c.timer() == Timer::Device).collect();
    let phase = |p: &Option<String>| Phase::Named(p.clone().unwrap_or_default());
    // The best contestant of family `a` on the shared device against the best of `b`, at `level` in flight.
    let best_of = |a: Family, b: Family, level: &str| {
        let at = Phase::Named(format!("in_flight_{level}"));
        vec![Comparison {
            a: Side { who: Who::Highest(on_device(a)), phase: at.clone() },
            b: Side { who: Who::Highest(on_device(b)), phase: at },
        }]
    };

    let trap = [Timer::Device, Timer::Own].map(|timer| {
        let shape = StreamShape::BufferUnordered;
        Comparison {
            a: Side::contestant(Contestant::Stream { shape, free: true, timer }.name(), phase(&highest)),
            b: Side::contestant(Contestant::Stream { shape, free: false, timer }.name(), phase(&highest)),
        }
    });
    let service = summary.param("service_ms");
    let precise = device_contestants
        .iter()
        .flat_map(|c| levels.iter().map(move |(_, p)| (c, p)))
        .filter_map(|(c, p)| {
            let limit = service? + PRECISION_MS;
            Some(Comparison {
                a: Side::contestant(c.name(), Phase::Named(p.to_string())),
                b: Side::value(limit, "service time + 0.5 ms"),
            })
        })
        .collect();
    let few = |window_metric: bool| -> Vec<Comparison> {
        let ideal = levels.first().and_then(|(level, _)| ideal(summary, *level));
        device_contestants
            .iter()
            .filter_map(|c| {
                let b = if window_metric { Side::value(1.0, "the ideal") } else { Side::value(ideal?, "the ideal") };
                Some(Comparison { a: Side::contestant(c.name(), phase(&lowest)), b })
            })
            .collect()
    };
    let study = references::figure("device", STUDY_BEST);
    let top_ideal = levels.last().and_then(|(level, _)| ideal(summary, *level));
    let study_share = study.and_then(|f| f.study_ratio());
    let cores = summary.environment.cores;
    vec![
        steady(
            "At the highest level, `buffer_unordered` run as it comes (tokio's cooperative budget applies) reaches \
             at most a tenth of the calls per second it reaches inside `tokio::task::coop::unconstrained`, on the \
             shared device and on its own timer (steady window)",
            TRAP_FACTOR,
            trap.to_vec(),
        )
        .with_id("budget-trap-collapse")
        .undecidable_if(no_level()),
        ClaimSpec::new(
            "The shared device is precise: an uncontended call returns within 0.5 ms of its service time, awaited \
             or blocked on, at every level",
            "idle_call_ms",
            "median real duration of an uncontended call made the contestant's way, in milliseconds",
            (Relation::AtMost, 1.0),
            Basis::Ranges,
            precise,
        )
        .with_id("device-precise")
        .undecidable_if(service.is_none().then(|| "the run has no service_ms".to_string())),
        ClaimSpec::new(
            format!(
                "At the lowest level every contestant on the shared device reaches at least {FEW_FRACTION} of the \
                 ideal over the steady window, whatever its style"
            ),
            "ideal_fraction",
            "steady-window calls per second over the ideal (in-flight ÷ service time)",
            (Relation::AtLeast, FEW_FRACTION),
            Basis::Ranges,
            few(true),
        )
        .with_id("lowest-level-steady-ideal")
        .undecidable_if(no_level()),
        ClaimSpec::new(
            format!(
                "At the lowest level every contestant on the shared device reaches at least {FEW_FRACTION} of the \
                 ideal over the whole run (start and drain included), whatever its style"
            ),
            "ops_per_sec_whole_run",
            WHOLE_OPS,
            (Relation::AtLeast, FEW_FRACTION),
            Basis::Ranges,
            few(false),
        )
        .with_id("lowest-level-whole-run-ideal")
        .undecidable_if(no_level()),
        steady(
            format!(
                "At 10,000 in flight on the shared device, the best stream contestant sustains at least \
                 {STREAMS_AHEAD}× the calls per second of the best blocking contestant (steady window)"
            ),
            STREAMS_AHEAD,
            best_of(Family::Stream, Family::Blocking, "10000"),
        )
        .with_id("streams-ahead-at-10k"),
        steady(
            format!(
                "At 10,000 in flight on the shared device, the best coroutine contestant (blocking-style code on \
                 `may`) sustains at least {COROUTINES_OVER_THREADS}× the calls per second of the best OS-thread \
                 contestant (steady window)"
            ),
            COROUTINES_OVER_THREADS,
            best_of(Family::Coroutine, Family::Blocking, "10000"),
        )
        .with_id("coroutines-over-threads-at-10k"),
        steady(
            format!(
                "At 100,000 in flight on the shared device, where OS threads cannot run, the best coroutine \
                 contestant reaches at least {COROUTINES_OF_STREAMS} of the best stream contestant's calls per \
                 second (steady window)"
            ),
            COROUTINES_OF_STREAMS,
            best_of(Family::Coroutine, Family::Stream, "100000"),
        )
        .with_id("coroutines-of-streams-at-100k"),
        ClaimSpec::new(
            format!(
                "A call waiting on a parked thread costs at least {THREAD_MEMORY}× the resident memory of a call \
                 waiting as a task or future (at the highest level the thread pool reached, against the costliest \
                 stream contestant)"
            ),
            "rss_bytes_per_call",
            "growth of resident memory per waiting call, read when the outstanding calls first reach the level",
            (Relation::AtLeast, THREAD_MEMORY),
            Basis::Ranges,
            vec![Comparison {
                a: Side::contestant("blocking-threads", Phase::LastMeasuredBy("blocking-threads".to_string())),
                b: Side {
                    who: Who::Highest(
                        CONTESTANTS.iter().filter(|c| c.family() == Family::Stream).map(Contestant::name).collect(),
                    ),
                    phase: Phase::LastMeasuredBy("blocking-threads".to_string()),
                },
            }],
        )
        .with_id("thread-memory"),
        ClaimSpec::new(
            format!(
                "At the highest level on the shared device, over the whole run, the best stream contestant reaches at \
                 least the share of its ideal that the published JVM study's best model reached of its own ({} of \
                 the ideal there, on {}; {cores} cores here)",
                study_share.map_or_else(|| "n/a".to_string(), |r| format!("{:.3}", r)),
                study.map_or("unrecorded hardware", |f| f.hardware.as_str())
            ),
            "ops_per_sec_whole_run",
            WHOLE_OPS,
            (Relation::AtLeast, study_share.unwrap_or(f64::NAN)),
            Basis::Ranges,
            top_ideal
                .map(|ideal| Comparison {
                    a: Side { who: Who::Highest(on_device(Family::Stream)), phase: phase(&highest) },
                    b: Side::value(ideal, "the ideal"),
                })
                .into_iter()
                .collect(),
        )
        .with_id("study-share")
        .undecidable_if(study_share.is_none().then(|| format!("measure/references.json has no `{STUDY_BEST}`"))),
    ]
}
