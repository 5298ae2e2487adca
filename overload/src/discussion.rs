//! What the overload report's numbers mean, written from the run's summary so it stays true when re-rendered.

use std::fmt::Write as _;

use measure::compare::{beyond_noise, within_noise};
use measure::summary::{Family, Summary};

use crate::claims::after_ceiling;
use crate::config::{IDLE_CALLS, LIMITERS};
use crate::HEADLINE;

/// The discussion section of the report.
pub fn discussion(summary: &Summary) -> String {
    let mut out = String::new();
    ceiling(summary, &mut out);
    trade_off(summary, &mut out);
    limiters(summary, &mut out);
    unbounded(summary, &mut out);
    families(summary, &mut out);
    reading(&mut out);
    pick(summary, &mut out);
    out
}

/// Median of `metric` for `name`, if it ran cleanly.
fn median(summary: &Summary, name: &str, metric: &str) -> Option<f64> {
    summary.metric(name, metric).map(|s| s.median)
}

fn ms(us: f64) -> String {
    if us >= 100_000.0 {
        format!("{:.0} ms", us / 1e3)
    } else {
        format!("{:.1} ms", us / 1e3)
    }
}

fn ceiling(summary: &Summary, out: &mut String) {
    let (Some(capacity), Some(after), Some(service), Some(calls)) = (
        summary.param("capacity"),
        summary.param("capacity_after"),
        summary.param("service_ms"),
        summary.param("calls"),
    ) else {
        return;
    };
    let before_ceiling = capacity * 1e3 / service;
    let after_ceiling_ops = after_ceiling(summary).unwrap_or(f64::NAN);
    let ideal_s = (calls / 2.0) / before_ceiling + (calls / 2.0) / after_ceiling_ops;
    let _ = writeln!(
        out,
        "**The ceiling.** With {capacity:.0} slots of {service:.0} ms the dependency can complete at most \
         {before_ceiling:.0} calls per second; after the drop to {after:.0} slots, {after_ceiling_ops:.0}. So {calls:.0} \
         calls cannot take less than {ideal_s:.2} s, and no contestant's after-drop `ops_per_sec` can exceed \
         {after_ceiling_ops:.0}. Every contestant is measured against this same dependency: its own two timer threads \
         complete each call after exactly the service time (sub-millisecond timers with 1 ns timer slack, not \
         tokio's 1 ms wheel), and both families wait on the same completion type."
    );
    let idle: Vec<(String, f64)> = summary
        .contestants
        .iter()
        .filter_map(|c| median(summary, &c.name, "idle_overshoot_us").map(|v| (c.name.clone(), v)))
        .collect();
    if !idle.is_empty() {
        let stream: Vec<f64> =
            idle.iter().filter(|(n, _)| n.starts_with("stream")).map(|(_, v)| *v).collect::<Vec<_>>();
        let blocking: Vec<f64> =
            idle.iter().filter(|(n, _)| n.starts_with("blocking")).map(|(_, v)| *v).collect::<Vec<_>>();
        let mid = |v: &[f64]| measure::stats::median(v).map_or("—".to_string(), |m| format!("{m:.0} µs"));
        let _ = writeln!(
            out,
            "\nAn uncontended call, measured in every trial process before timing (`idle_overshoot_us`, the median of \
             {IDLE_CALLS} calls one at a time beyond the {service:.0} ms service time), came back {} late when awaited on a \
             tokio runtime and {} late when waited for on a blocking thread (medians over contestants): the \
             dependency's own error plus one wake-up, far below the effects this report is about.",
            mid(&stream),
            mid(&blocking)
        );
    }
    out.push('\n');
}

fn trade_off(summary: &Summary, out: &mut String) {
    let _ = writeln!(
        out,
        "**Tail latency against run time.** A fixed bound set from the healthy capacity keeps admitting {} calls \
         after the dependency can only serve {}: the surplus waits in the dependency's queue, so every call pays \
         the queue (about (bound − slots) / slots × service time) on top of its service. An adaptive limit that \
         notices the slowdown shrinks towards the new capacity, and the calls it holds back wait *before* being \
         issued (in the stream, not yet pulled; in the pool, a thread parked at the gate), where this report's \
         latency does not count them. So the adaptive limiters trade queueing inside the dependency for waiting \
         at the gate: the total work cannot finish sooner than the ceiling allows, and `wall_ms` shows what the \
         trade cost.",
        summary.param("fixed_limit").map_or("its".to_string(), |v| format!("{v:.0}")),
        summary.param("capacity_after").map_or("fewer".to_string(), |v| format!("{v:.0}")),
    );
    let mut rows = String::new();
    for kind in LIMITERS {
        for family in ["stream", "blocking"] {
            let name = format!("{family}-{}", kind.name());
            if let (Some(p99), Some(wall)) = (median(summary, &name, HEADLINE), median(summary, &name, "wall_ms")) {
                let limit = median(summary, &name, "after_drop.limit_mean")
                    .map_or(String::new(), |l| format!(", mean limit after the drop {l:.0}"));
                let _ = writeln!(rows, "- `{name}`: after-drop p99 {}, whole run {:.2} s{limit}", ms(p99), wall / 1e3);
            }
        }
    }
    if !rows.is_empty() {
        let _ = writeln!(out, "\n{rows}");
    }
}

/// `stream X, blocking Y` for `metric` of the limiter's two contestants, formatted by `show`.
fn both(summary: &Summary, kind: &str, metric: &str, show: impl Fn(f64) -> String) -> Option<(String, f64, f64)> {
    let s = median(summary, &format!("stream-{kind}"), metric)?;
    let b = median(summary, &format!("blocking-{kind}"), metric)?;
    Some((format!("stream {}, blocking {}", show(s), show(b)), s, b))
}

fn limiters(summary: &Summary, out: &mut String) {
    let (Some(after), Some(ceiling)) = (summary.param("capacity_after"), after_ceiling(summary)) else { return };
    let share = |v: f64| format!("{:.0}%", 100.0 * v / ceiling);
    let mut text = String::new();
    if let (Some((limit, ls, lb)), Some((ops, os, ob))) = (
        both(summary, "aimd", "after_drop.limit_mean", |v| format!("{v:.0}")),
        both(summary, "aimd", "after_drop.ops_per_sec", share),
    ) {
        let _ = write!(
            text,
            "- **AIMD** averaged a limit of {limit} after the drop, against {after:.0} slots, and reached {ops} of \
             the ceiling. It multiplies its limit by 0.9 on *every* call slower than the threshold, and a queue \
             produces slow calls in bursts: 44 slow calls in a row divide the limit by 100, before a single fast \
             call is seen; it then climbs back by one per call (the sawtooth in the limit chart)."
        );
        if os.max(ob) < 0.85 * ceiling {
            text.push_str(
                " While it climbs, slots stand idle: that is where its longer run goes, the same price the JVM \
                 experiment paid for its shorter tail.",
            );
        }
        if ls.min(lb) > after {
            text.push_str(" Its average limit stayed above the new capacity, so some queueing remained.");
        }
        text.push('\n');
    }
    if let Some((limit, ls, lb)) = both(summary, "gradient2", "after_drop.limit_mean", |v| format!("{v:.0}")) {
        let _ = write!(text, "- **Gradient2** averaged a limit of {limit} after the drop.");
        if beyond_noise(ls.min(lb), after, summary.method.noise_threshold) {
            let _ = write!(
                text,
                " That is above the {after:.0} slots by more than the noise threshold: Gradient2 compares the latest call's latency with a \
                 long-term average over 600 calls, so once the slower latency has filled that average (600 calls \
                 take a few tens of milliseconds here) the ratio is back to 1 and the limit grows again. Against \
                 a dependency that queues instead of rejecting, it protects only for a moment and then behaves \
                 like the fixed bound, queue included."
            );
        }
        text.push('\n');
    }
    if let (Some((limit, _, _)), Some((p99, ps, pb))) = (
        both(summary, "vegas", "after_drop.limit_mean", |v| format!("{v:.0}")),
        both(summary, "vegas", "after_drop.latency_p99_us", ms),
    ) {
        let _ = write!(
            text,
            "- **Vegas** averaged a limit of {limit} after the drop, with after-drop p99 {p99}. It estimates the \
             queue from the latency against the lowest latency it has seen, and periodically forgets that \
             minimum to re-learn it."
        );
        if beyond_noise(ps.max(pb), ps.min(pb), summary.method.noise_threshold) {
            text.push_str(
                " Its two families differ by more than the noise threshold here, although they share the algorithm, the gate and \
                 the dependency: only the latencies each family feeds it differ.",
            );
            // Vegas's queue estimate is limit × (1 − lowest latency / latency): any delay the caller adds under
            // load (its own wake-up) reads as queueing, so a family with a larger overhead settles lower.
            let overhead = |family: &str| {
                let name = format!("{family}-vegas");
                Some(median(summary, &name, "before_drop.latency_p50_us")? - median(summary, &name, "idle_call_us")?)
            };
            if let (Some(os), Some(ob), Some((at_drop, ls, lb))) = (
                overhead("stream"),
                overhead("blocking"),
                both(summary, "vegas", "limit_at_drop", |v| format!("{v:.0}")),
            ) {
                let _ = write!(
                    text,
                    " Vegas counts every microsecond above the lowest latency it has seen as queueing, including \
                     the caller's own wake-up delay under load. Before the drop the median call took {os:.0} µs \
                     (stream) and {ob:.0} µs (blocking) longer than an idle call, and the limit stood at {at_drop} \
                     when capacity dropped."
                );
                // The family with the larger overhead should settle lower if the overhead steers Vegas.
                let steered = (ob > os && lb < ls) || (os > ob && ls < lb);
                let close = within_noise(ls, lb, summary.method.noise_threshold);
                if close {
                    text.push_str(
                        " The limits were close at the drop, so the gap opened after it; the lab has not \
                         established why.",
                    );
                } else if steered {
                    text.push_str(
                        " That is consistent with the caller's overhead steering Vegas, but the lab has not \
                         isolated it.",
                    );
                } else {
                    text.push_str(
                        " The family with the smaller overhead settled lower, the opposite of what that would \
                         predict; the lab has not established why.",
                    );
                }
                text.push_str(" Treat Vegas's figures as sensitive to small differences in the latencies it is fed.");
            }
        }
        text.push('\n');
    }
    if !text.is_empty() {
        let _ = writeln!(out, "**Each adaptive limiter, as measured.**\n\n{text}");
    }
}

fn unbounded(summary: &Summary, out: &mut String) {
    let threads = summary.param("unbounded_threads").map_or("`unbounded-threads`".to_string(), |v| format!("{v:.0}"));
    let _ = write!(
        out,
        "**No bound at all.** `stream-unbounded` issues every call at once, so call calls/2, which triggers the \
         drop, is issued within the first milliseconds: it runs almost entirely against the reduced capacity, \
         and its queue holds nearly every call. `blocking-unbounded` cannot do that with threads: it has {threads} \
         threads, so at most that many calls are outstanding, and its queue is bounded by its thread count. The two \
         unbounded contestants therefore do not face the same schedule, and they differ in semantics, not just in \
         style; read them as two pictures of what no admission control does, not as a family comparison."
    );
    for name in ["stream-unbounded", "blocking-unbounded"] {
        if let (Some(p99), Some(out_max)) = (median(summary, name, HEADLINE), median(summary, name, "max_outstanding"))
        {
            let _ = write!(out, " `{name}`: after-drop p99 {}, at most {out_max:.0} calls outstanding.", ms(p99));
        }
    }
    out.push_str("\n\n");
}

fn families(summary: &Summary, out: &mut String) {
    let mut cpu = Vec::new();
    for family in [Family::Stream, Family::Blocking] {
        let pick = |metric: &str| -> Option<f64> {
            let values: Vec<f64> = summary
                .contestants
                .iter()
                .filter(|c| c.family == family && !c.name.ends_with("unbounded"))
                .filter_map(|c| median(summary, &c.name, metric))
                .collect();
            measure::stats::median(&values)
        };
        if let (Some(total), Some(dep), Some(ctx)) =
            (pick("cpu_us_per_call"), pick("dependency_cpu_us_per_call"), pick("ctx_switches_per_item"))
        {
            cpu.push(format!(
                "{}: {total:.1} µs of CPU per call, {dep:.1} µs of it on the dependency's timer threads, {ctx:.2} \
                 context switches per call",
                family.as_str()
            ));
        }
    }
    let cpu = if cpu.is_empty() {
        String::new()
    } else {
        format!(" Medians over the bounded contestants of each family: {}.", cpu.join("; "))
    };
    let _ = writeln!(
        out,
        "**What the family changes.** Both families go through the same gate, the same dependency and the same \
         completion, so their throughput should match wherever the dependency is the bottleneck; what differs is \
         what waiting costs. A stream keeps every waiting call as a small future inside one task: a timer thread \
         completing a batch of calls wakes that one task once, and the task handles every ready completion in one \
         poll. A pool parks one OS thread per call in flight: each completion unparks its own thread (a futex \
         wake-up and a context switch), and the thread then wakes the next waiter at the gate.{cpu} The wake-up \
         is paid on the dependency's timer threads, which is why `cpu_us_per_call` counts them: a real client's \
         I/O driver or kernel would pay it too. Where the limiters behave differently in the two families (the \
         same algorithm and gate, fed the latencies each family observes), the difference is in the table; the \
         claims below say whether it is larger than the limiter's own effect.\n"
    );
}

fn reading(out: &mut String) {
    out.push_str(
        "**How to read the figures.** A call belongs to the phase in which it was issued; a phase's throughput \
         counts the calls that completed inside it, over its length (first issue to the drop, drop to the last \
         completion). Latency runs from the moment the caller issued the call to the moment it saw the reply, so \
         it includes the dependency's queue and the caller's wake-up, but not time spent waiting at the gate \
         before the call was issued. `max_outstanding` counts calls issued and not yet seen complete (in service, \
         queued, or just completed), exactly, from every call's record. The time-series charts show the first \
         measured iteration of each contestant; the dashed line marks the moment the capacity dropped. Each \
         iteration lasts seconds, so a full run makes one timed iteration in each of three fresh processes (and \
         after it an untimed accounting run of a tenth of the calls, for threads and memory). With three \
         samples the 99.9% confidence interval of a mean is very wide (Student's t is 31.6), so the headline and \
         the results table mark most ratios as (noise) even where the three iterations of two contestants do not \
         overlap at all; the claims below are judged on those ranges instead, which describes what every measured \
         iteration showed rather than a 99.9% confidence.\n\n",
    );
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

fn pick(summary: &Summary, out: &mut String) {
    // Which adaptive limiters beat the fixed bound's after-drop p99 in both families, and at what throughput.
    let mut shorter = Vec::new();
    let mut longer = Vec::new();
    for kind in LIMITERS.into_iter().filter(|k| *k != crate::limit::LimiterKind::Fixed) {
        let beats = ["stream", "blocking"].iter().all(|family| {
            let p99 = median(summary, &format!("{family}-{}", kind.name()), HEADLINE);
            let fixed = median(summary, &format!("{family}-fixed"), HEADLINE);
            matches!((p99, fixed), (Some(p), Some(f)) if p < f)
        });
        if beats {
            shorter.push(format!("`{}`", kind.name()));
        } else {
            longer.push(format!("`{}`", kind.name()));
        }
    }
    let limiters = match (shorter.is_empty(), longer.is_empty()) {
        (false, true) => {
            format!("every adaptive limiter ({}) kept the after-drop tail below the fixed bound's", and_list(&shorter))
        }
        (false, false) => format!(
            "only {} kept the after-drop tail below the fixed bound's in both families, and {} did not, so an \
             adaptive limit is not protection by itself: check the one you choose against the way your \
             dependency degrades, and against what it costs in throughput (`after_drop.ops_per_sec`)",
            and_list(&shorter),
            and_list(&longer)
        ),
        (true, _) => {
            "no adaptive limiter kept the after-drop tail below the fixed bound's in both families".to_string()
        }
    };
    let _ = writeln!(
        out,
        "**What to pick.** Choose the limiter first: against a dependency that queues rather than rejects, a fixed \
         bound sized for good days turns a capacity loss into queueing delay for every call, whichever style \
         issues them, and here {limiters}. Then choose the style for what waiting costs you: with hundreds of \
         calls in flight both styles keep up with this dependency, and the pool pays a thread wake-up per call \
         (its CPU per call above) where the stream pays a fraction of one; with tens of thousands in flight, a \
         thread per waiting call also costs a stack and a kernel thread that a future does not."
    );
}
