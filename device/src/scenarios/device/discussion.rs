//! What the device report's numbers mean, written from the run's summary so it stays true when re-rendered.

use std::fmt::Write as _;

use measure::compare::{format_ratio, within_noise};
use measure::summary::{Family, Summary};
use measure::units::count;

use super::claims::{best, key, levels, TRAP_FACTOR};
use super::{CONTESTANTS, HEADLINE};
use crate::contestants::{Contestant, StreamShape, Timer};

/// The discussion section of the report.
pub(crate) fn discussion(summary: &Summary) -> String {
    let mut out = String::new();
    per_level(summary, &mut out);
    single_task(summary, &mut out);
    start(summary, &mut out);
    budget_trap(summary, &mut out);
    own_timers(summary, &mut out);
    threads(summary, &mut out);
    memory(summary, &mut out);
    cut_short(summary, &mut out);
    semantics(&mut out);
    pick(summary, &mut out);
    out
}

/// The headline's own lines: the budget trap at the highest level, and the levels threads could not reach.
pub(crate) fn headline_notes(summary: &Summary) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(&(top, phase)) = levels(summary).last() {
        if let Some((name, budgeted, free)) = trap_ratio(summary, StreamShape::BufferUnordered, Timer::Device, phase) {
            notes.push(format!(
                "At {} in flight, `{name}` answered {} calls/s under tokio's cooperative budget and {} inside \
                 `unconstrained` ({}×).",
                count(top as f64),
                count(budgeted),
                count(free),
                format_ratio(free / budgeted)
            ));
        }
    }
    let skipped: Vec<String> = CONTESTANTS
        .iter()
        .filter_map(|c| summary.contestant(&c.name()))
        .flat_map(|c| c.skipped_phases.keys().map(move |phase| format!("`{}` at `{phase}`", c.name)))
        .collect();
    if !skipped.is_empty() {
        notes.push(format!("Skipped, the OS cannot make the threads: {}.", skipped.join(", ")));
    }
    notes
}

fn median(summary: &Summary, name: &str, metric: &str) -> Option<f64> {
    summary.metric(name, metric).map(|s| s.median)
}

fn percent(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

fn per_level(summary: &Summary, out: &mut String) {
    let Some(service) = summary.param("service_ms") else { return };
    let _ = writeln!(
        out,
        "**Best of each family, per level.** The ideal is in-flight ÷ {service:.0} ms. `ops_per_sec` and \
         `cpu_us_per_call` are measured over the steady middle of each run: from the answer that completes the \
         first round of calls (as many answers as calls in flight) to the answer that leaves one round to go. \
         The start (every call issued at once) and the drain (fewer and fewer calls left) are outside that window, \
         and are in `ops_per_sec_whole_run` and `cpu_us_per_call_whole_run` (see the start below). A run cut short \
         before its window closed is measured over the whole run (`steady_window` 0)."
    );
    let _ = writeln!(out);
    for (level, phase) in levels(summary) {
        let ideal = level as f64 * 1e3 / service;
        let mut line = format!("- **{} in flight** (ideal {} calls/s):", count(level as f64), count(ideal));
        for family in [Family::Stream, Family::Blocking] {
            match best(summary, family, Timer::Device, phase) {
                Some((name, s)) => {
                    let fraction = median(summary, &name, &key(phase, "ideal_fraction")).unwrap_or(f64::NAN);
                    let cpu = median(summary, &name, &key(phase, "cpu_us_per_call"));
                    let cpu = cpu.map(|c| format!(", {c:.1} µs of CPU per call")).unwrap_or_default();
                    let _ = write!(
                        line,
                        " best {} `{name}` {} calls/s ({} of ideal{cpu});",
                        family.as_str(),
                        count(s.median),
                        percent(fraction)
                    );
                }
                None => {
                    let _ = write!(line, " no {} contestant ran;", family.as_str());
                }
            }
        }
        line.pop();
        let own: Vec<String> = [Family::Stream, Family::Blocking]
            .into_iter()
            .filter_map(|family| best(summary, family, Timer::Own, phase))
            .map(|(name, s)| format!("`{name}` {}", count(s.median)))
            .collect();
        if !own.is_empty() {
            let _ = write!(line, ". On their own timers: {}", own.join(", "));
        }
        let _ = writeln!(out, "{line}.");
    }
    let _ = writeln!(out);
}

/// Where a single-task stream tops out: everything but the device's timers runs in one task, on one worker.
fn single_task(summary: &Summary, out: &mut String) {
    let Some(&(top, phase)) = levels(summary).last() else { return };
    let Some((name, s)) = best(summary, Family::Stream, Timer::Device, phase) else { return };
    let single = CONTESTANTS.iter().any(|c| {
        c.name() == name
            && matches!(c, Contestant::Stream { shape: StreamShape::Buffered | StreamShape::BufferUnordered, .. })
    });
    let m = |metric: &str| median(summary, &name, &key(phase, metric));
    let (true, Some(cpu), Some(device), Some(cores)) =
        (single, m("cpu_us_per_call"), m("dependency_cpu_us_per_call"), m("cores_used"))
    else {
        return;
    };
    let own = cpu - device;
    if own <= 0.0 {
        return;
    }
    let cap = 1e6 / own;
    let _ = writeln!(
        out,
        "**Where the stream tops out.** At {} in flight `{name}` used {cores:.2} cores of {}: a `buffered` or \
         `buffer_unordered` pipeline is a single task, so all its work runs on one worker at a time, beside the \
         device's two timer threads. Of its {cpu:.2} µs of CPU per call, {device:.2} µs were the device's; the \
         other {own:.2} µs on one core allow about {} calls/s, and it reached {} ({} of that). A task per call \
         spreads over every worker but costs more per call; past this point, more throughput needs the work split \
         over several driving tasks.",
        count(top as f64),
        summary.environment.cores,
        count(cap),
        count(s.median),
        percent(s.median / cap)
    );
    let _ = writeln!(out);
}

/// What the start and drain cost each family's best contestant: whole-run figures against the steady window.
fn start(summary: &Summary, out: &mut String) {
    let mut lines = Vec::new();
    for (level, phase) in levels(summary) {
        for family in [Family::Stream, Family::Blocking] {
            let Some((name, steady)) = best(summary, family, Timer::Device, phase) else { continue };
            let m = |metric: &str| median(summary, &name, &key(phase, metric));
            let (Some(whole), Some(cpu), Some(cpu_whole)) =
                (m("ops_per_sec_whole_run"), m("cpu_us_per_call"), m("cpu_us_per_call_whole_run"))
            else {
                continue;
            };
            lines.push(format!(
                "`{name}` at {}: {} calls/s over the whole run against {} steady ({}), {cpu_whole:.1} µs of CPU per \
                 call against {cpu:.1}",
                count(level as f64),
                count(whole),
                count(steady.median),
                percent(whole / steady.median)
            ));
        }
    }
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "**The start.** Every contestant issues its first round of calls at once (the pools' threads are released \
         together from a gate, as the JVM study's were), so their answers also arrive together. Whole run against \
         steady window, best of each family on the shared device:"
    );
    for line in lines {
        let _ = writeln!(out, "- {line}.");
    }
    let _ = writeln!(
        out,
        "\nWhere the whole-run rate falls well below the steady one, the start and drain took a large share of a \
         {}-round run: a burst of answers that each need a thread woken and scheduled is worked through at the \
         pace the cores allow, while a task's answer costs a waker and a queue push.",
        summary.param("rounds").map_or_else(|| "short".to_string(), |r| format!("{r:.0}"))
    );
    let _ = writeln!(out);
}

/// Throughput of the free variant over the budgeted one of a stream shape at `phase`.
fn trap_ratio(summary: &Summary, shape: StreamShape, timer: Timer, phase: &str) -> Option<(String, f64, f64)> {
    let budgeted = Contestant::Stream { shape, free: false, timer }.name();
    let free = Contestant::Stream { shape, free: true, timer }.name();
    let b = median(summary, &budgeted, &key(phase, HEADLINE))?;
    let f = median(summary, &free, &key(phase, HEADLINE))?;
    Some((budgeted, b, f))
}

fn budget_trap(summary: &Summary, out: &mut String) {
    let levels = levels(summary);
    let Some(&(top, top_phase)) = levels.last() else { return };
    let shapes = [
        (StreamShape::BufferUnordered, Timer::Device),
        (StreamShape::Buffered, Timer::Device),
        (StreamShape::BufferUnordered, Timer::Own),
        (StreamShape::Tasks, Timer::Device),
    ];
    let mut rows = Vec::new();
    for (shape, timer) in shapes {
        let ratios: Vec<String> = levels
            .iter()
            .filter_map(|(level, phase)| {
                trap_ratio(summary, shape, timer, phase)
                    .map(|(_, b, f)| format!("{}× at {}", format_ratio(f / b), count(*level as f64)))
            })
            .collect();
        if !ratios.is_empty() {
            rows.push(format!("`{}`: {}", Contestant::Stream { shape, free: false, timer }.name(), ratios.join(", ")));
        }
    }
    let Some((name, budgeted, free)) = trap_ratio(summary, StreamShape::BufferUnordered, Timer::Device, top_phase)
    else {
        return;
    };
    let factor = free / budgeted;
    let _ = writeln!(
        out,
        "**The cooperative-budget trap.** Unconstrained ÷ as-it-comes throughput, per stream contestant: {}.",
        rows.join("; ")
    );
    let _ = writeln!(out);
    if factor >= TRAP_FACTOR {
        let _ = writeln!(
            out,
            "At {} in flight `{name}` answered {} calls/s as it comes and {} inside `unconstrained`: {}× apart. \
             This is the Rust counterpart of the JVM study's \"blocking made Kyo 30× slower\": a harmless-looking \
             pattern that the scheduler turns into a collapse. The mechanism (futures-rs #2053 and #2526, tokio \
             #2390 and #3493): tokio gives each task a budget of 128 operations per poll. Once the task that \
             drives the stream has spent it, every budget-aware leaf future it polls (the client's completion, \
             which like a tokio socket spends budget, or `tokio::time::sleep`) answers `Pending` even when its \
             result is ready, and asks to be woken again right after the task yields. `FuturesUnordered` (behind \
             `buffer_unordered`, and behind `buffered` through `FuturesOrdered`) then polls every such future in \
             vain and re-queues it: each poll of the task does about 128 calls' worth of work and then touches \
             every one of the tens of thousands in flight. The cost grows with the number in flight, which is \
             why the ratio climbs with the level. `unconstrained` removes the budget, so a ready future is \
             always consumed; a task per item (`stream-tasks`) sidesteps the trap because each task spends its \
             own budget on a single call. The price of `unconstrained` is the protection the budget gives: a \
             stream that always has ready work can hold a worker thread indefinitely, starving other tasks on it.",
            count(top as f64),
            count(budgeted),
            count(free),
            format_ratio(factor)
        );
    } else {
        let _ = writeln!(
            out,
            "At {} in flight `{name}` answered {} calls/s as it comes and {} inside `unconstrained` ({}×): in \
             this run the cooperative budget did not collapse `buffer_unordered` (upstream reports a collapse of \
             up to two orders of magnitude at large in-flight counts: futures-rs #2053 and #2526, tokio #2390 \
             and #3493).",
            count(top as f64),
            count(budgeted),
            count(free),
            format_ratio(factor)
        );
    }
    let _ = writeln!(out);
}

fn own_timers(summary: &Summary, out: &mut String) {
    let Some(service) = summary.param("service_ms") else { return };
    let mut lines = Vec::new();
    for c in CONTESTANTS.iter().filter(|c| c.timer() == Timer::Own) {
        let name = c.name();
        for (level, phase) in levels(summary) {
            let (Some(idle), Some(ops)) =
                (median(summary, &name, &key(phase, "idle_call_ms")), median(summary, &name, &key(phase, HEADLINE)))
            else {
                continue;
            };
            let cap = level as f64 * 1e3 / idle;
            lines.push(format!(
                "`{name}` at {}: an idle call lasts {idle:.2} ms, so at most {} calls/s ({} of ideal); it reached {} ({} of that cap)",
                count(level as f64),
                count(cap),
                percent(idle.recip() * service),
                count(ops),
                percent(ops / cap)
            ));
        }
    }
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "**Own timers and their cap.** tokio's timer wheel has 1 ms resolution and rounds a sleep up to the next \
         tick, so a {service:.0} ms `tokio::time::sleep` lasts about {:.0} ms; `std::thread::sleep` is precise to \
         tens of microseconds. The cap of an own-timer contestant is in-flight ÷ its measured idle call:",
        service + 1.0
    );
    for line in lines {
        let _ = writeln!(out, "- {line}.");
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "The shared device fires its timers on its own two threads with 1 ns timer slack: an idle call comes back \
         within tens of microseconds of the service time (`idle_call_ms`), so device contestants are measured \
         against the true ideal."
    );
    let _ = writeln!(out);
}

fn threads(summary: &Summary, out: &mut String) {
    let mut lines = Vec::new();
    for c in CONTESTANTS.iter().filter(|c| c.family() == Family::Blocking) {
        let name = c.name();
        let Some(contestant) = summary.contestant(&name) else { continue };
        for (phase, reason) in &contestant.skipped_phases {
            lines.push(format!("`{name}` was **skipped** at `{phase}`: {reason}"));
        }
        for (level, phase) in levels(summary) {
            if let (Some(spawn), Some(cpu)) = (
                median(summary, &name, &key(phase, "spawn_ms")),
                median(summary, &name, &key(phase, "cpu_us_per_call")),
            ) {
                let timers = median(summary, &name, &key(phase, "dependency_cpu_us_per_call"))
                    .map(|d| format!(", of which {d:.1} µs on the device's timer threads"))
                    .unwrap_or_default();
                lines.push(format!(
                    "`{name}` at {}: spawning the pool took {spawn:.0} ms (outside the timed window); {cpu:.1} µs of \
                     CPU per call{timers}",
                    count(level as f64)
                ));
            }
        }
    }
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "**Threads.** Every pool thread is started parked and released at once, so start-up order does not shape \
         the figures. A blocked call costs a futex wait, and its answer a futex wake paid by the thread that \
         completes it plus a context switch on a 2-core machine; a task's answer costs a waker and a queue push."
    );
    for line in lines {
        let _ = writeln!(out, "- {line}.");
    }
    let _ = writeln!(out);
}

fn memory(summary: &Summary, out: &mut String) {
    let mut lines = Vec::new();
    for (level, phase) in levels(summary) {
        let mut cells = Vec::new();
        for c in CONTESTANTS.iter() {
            let name = c.name();
            let heap = median(summary, &name, &key(phase, "live_heap_bytes_per_call"));
            let rss = median(summary, &name, &key(phase, "rss_bytes_per_call"));
            if let (Some(heap), Some(rss)) = (heap, rss) {
                cells.push(format!("`{name}` {heap:.0} B heap, {rss:.0} B resident"));
            }
        }
        if !cells.is_empty() {
            lines.push(format!("at {}: {}", count(level as f64), cells.join("; ")));
        }
    }
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "**Memory per waiting call.** Read once, at the first 1 ms sample where 90% of the level is outstanding, \
         less the baseline taken before the run (before the pool's threads were spawned): `live_heap_bytes_per_call` \
         counts the heap (futures, tasks, the device's per-call state); `rss_bytes_per_call` counts resident \
         memory, which for a thread includes the touched pages of its stack and the kernel's bookkeeping the \
         process is charged for. A thread's stack is not heap, so for threads the resident figure is the honest \
         one; the stack is reserved at 64 KiB here, of which a waiting call touches a few pages."
    );
    for line in lines {
        let _ = writeln!(out, "- {line}.");
    }
    let _ = writeln!(out);
}

fn cut_short(summary: &Summary, out: &mut String) {
    let Some(budget) = summary.param("budget_ms") else { return };
    let mut cut = Vec::new();
    for c in CONTESTANTS.iter() {
        let name = c.name();
        for (level, phase) in levels(summary) {
            let Some(s) = summary.metric(&name, &key(phase, "cut_short")) else { continue };
            if s.max > 0.0 {
                let done = median(summary, &name, &key(phase, "completed_fraction")).unwrap_or(f64::NAN);
                cut.push(format!(
                    "`{name}` at {} ({} of iterations cut, {} of the items answered in the median one)",
                    count(level as f64),
                    percent(s.mean),
                    percent(done)
                ));
            }
        }
    }
    if cut.is_empty() {
        let _ = writeln!(out, "**Time budget.** Every iteration finished within its {:.1} s budget.", budget / 1e3);
    } else {
        let _ = writeln!(
            out,
            "**Time budget.** An iteration still running {:.1} s after it started is cut short: no new call \
             starts, outstanding ones are let go, and its throughput counts the calls answered in the budget (the \
             rate a user would have seen). Cut short: {}.",
            budget / 1e3,
            cut.join("; ")
        );
    }
    let _ = writeln!(out);
}

fn semantics(out: &mut String) {
    let _ = writeln!(
        out,
        "**Semantics.** `stream-buffered` hands answers on in item order (an answer waits for every earlier one); \
         every other contestant sums answers as they come. With one fixed service time the order costs little \
         here; with spread-out latencies it would hold finished calls behind slow ones. All contestants call the \
         same items, sum the same answers and are checked against the same exact total."
    );
    let _ = writeln!(out);
}

fn pick(summary: &Summary, out: &mut String) {
    let levels = levels(summary);
    let Some(&(top, high)) = levels.last() else { return };
    let _ = writeln!(out, "**What to pick.**");
    for (level, phase) in [levels[0], (top, high)] {
        let stream = best(summary, Family::Stream, Timer::Device, phase);
        let blocking = best(summary, Family::Blocking, Timer::Device, phase);
        let line = match (stream, blocking) {
            (Some((s_name, s)), Some((b_name, b))) => {
                let gap = s.median / b.median;
                let cpu = |name: &str| median(summary, name, &key(phase, "cpu_us_per_call"));
                let verdict = match (
                    within_noise(s.median, b.median, summary.method.noise_threshold),
                    cpu(&s_name),
                    cpu(&b_name),
                ) {
                    (true, _, _) => {
                        "the device, not the style, sets the pace, and a thread per call is a fine choice".to_string()
                    }
                    (false, Some(s_cpu), Some(b_cpu)) => {
                        let cores = f64::from(summary.environment.cores.max(1));
                        let cap = cores * 1e6 / b_cpu;
                        format!(
                            "the blocking contestant spends {b_cpu:.1} µs of CPU per call against {s_cpu:.1} (each \
                             answer wakes a parked thread and switches to it), which on {cores:.0} cores allows at \
                             most about {} calls/s; it reached {} of that, so the stream family is the choice here",
                            count(cap),
                            percent(b.median / cap)
                        )
                    }
                    (false, _, _) => "the stream family is the choice here".to_string(),
                };
                format!(
                    "At {} in flight the best stream (`{s_name}`, {}) and best blocking contestant (`{b_name}`, {}) \
                     are {}× apart: {verdict}.",
                    count(level as f64),
                    count(s.median),
                    count(b.median),
                    format_ratio(gap)
                )
            }
            (Some((s_name, s)), None) => format!(
                "At {} in flight only the stream family ran (`{s_name}`, {} calls/s): a thread per waiting call \
                 cannot exist at that count on this machine.",
                count(level as f64),
                count(s.median)
            ),
            _ => continue,
        };
        let _ = writeln!(out, "- {line}");
        if level == top {
            break;
        }
    }
    let _ = writeln!(
        out,
        "- In async code driving thousands of futures from one task, wrap the driver in \
         `tokio::task::coop::unconstrained` (and keep it free of CPU-heavy work) or spawn a task per call; never \
         leave a large `buffer_unordered` under the cooperative budget."
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenarios::device::claims::tests::{summary_with, trapped};

    #[test]
    fn the_discussion_explains_the_trap_the_skip_and_the_cut_runs_from_the_numbers() {
        let text = discussion(&summary_with(trapped));
        assert!(text.contains("The cooperative-budget trap"), "{text}");
        assert!(text.contains("60.0×"), "the ratio at 100,000 comes from the data: {text}");
        assert!(text.contains("**skipped** at `in_flight_100000`: 100,000 threads do not fit"), "{text}");
        assert!(text.contains("Cut short: `stream-buffered` at 100,000"), "{text}");
        assert!(text.contains("only the stream family ran"), "{text}");
        assert!(text.contains("an idle call lasts 11.10 ms"), "{text}");
        // 2.0 µs per call of which 0.5 on the device: 1.5 µs on one core, about 666,667 calls/s.
        assert!(text.contains("the other 1.50 µs on one core allow about 666,667 calls/s"), "{text}");
        assert!(
            text.contains("`blocking-threads` at 1,000: 44,000 calls/s over the whole run against 55,000 steady (80%)"),
            "{text}"
        );
    }

    #[test]
    fn the_headline_notes_give_the_trap_and_the_skipped_levels() {
        let notes = headline_notes(&summary_with(trapped));
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes[0].starts_with("At 100,000 in flight, `stream-buffer-unordered` answered 20,000 calls/s"),
            "{notes:?}"
        );
        assert!(notes[1].contains("`blocking-threads` at `in_flight_100000`"), "{notes:?}");
    }

    #[test]
    fn without_a_collapse_the_discussion_does_not_claim_one() {
        let text = discussion(&summary_with(|_, _| 0.5));
        assert!(text.contains("did not collapse"), "{text}");
        assert!(!text.contains("turns into a collapse"), "{text}");
        assert!(text.contains("Every iteration finished within its 4.0 s budget"), "{text}");
    }
}
