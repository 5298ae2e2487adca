//! What the device report's numbers mean, written from the run's summary so it stays true when re-rendered.
//! The findings are computed here (every figure from the summary, every stated finding from a verdict of the
//! run or a comparison at its noise threshold); the fixed words are in `templates/discussion.md`.

use measure::compare::{beyond_noise, format_ratio, within_noise};
use measure::summary::{Family, Summary};
use measure::units::count;
use serde_json::{json, Value};

use super::claims::{best, key, levels, PRECISION_MS, STREAMS_AHEAD, TRAP_FACTOR};
use super::{CONTESTANTS, HEADLINE, HEAP_READ_AT};
use crate::contestants::{Contestant, StreamShape, Timer};

/// The discussion's template: fixed explanations, with the findings below filled in.
const TEMPLATE: &str = include_str!("templates/discussion.md");

/// The start of each claim's text, as [`super::claims::table`] words it.
const TRAP_CLAIM: &str = "At the highest level, `buffer_unordered` run as it comes";
const PRECISE_CLAIM: &str = "The shared device is precise";
const AHEAD_CLAIM: &str = "At 10,000 in flight on the shared device, the best stream contestant";

/// The verdict of the claim whose text starts with `prefix`, as judged in this run: `holds`, `fails`,
/// `inconclusive`, or `not judged` when the run has no such claim.
fn verdict(summary: &Summary, prefix: &str) -> &'static str {
    summary.claims.iter().find(|c| c.text.starts_with(prefix)).map_or("not judged", |c| c.verdict.as_str())
}

/// The discussion section of the report: findings computed here, words from `templates/discussion.md`.
pub(crate) fn discussion(summary: &Summary) -> String {
    let service = summary.param("service_ms");
    let context = json!({
        "service": service.map_or("?".to_string(), |s| format!("{s:.0}")),
        "service_tick": service.map_or("?".to_string(), |s| format!("{:.0}", s + 1.0)),
        "cores": summary.environment.cores,
        "levels": per_level(summary),
        "single": single_task(summary),
        "start": start(summary),
        "rounds": summary.param("rounds").map_or_else(|| "short".to_string(), |r| format!("{r:.0}")),
        "trap": budget_trap(summary),
        "trap_factor": TRAP_FACTOR.to_string(),
        "own": own_timers(summary),
        "precise": verdict(summary, PRECISE_CLAIM),
        "precision_ms": PRECISION_MS.to_string(),
        "threads": threads(summary),
        "coroutines": coroutines(summary),
        "memory": memory(summary),
        "heap_read_at": percent(HEAP_READ_AT),
        "budget": summary.param("budget_ms").map(|b| format!("{:.1}", b / 1e3)),
        "cut": cut_short(summary),
        "pick": pick(summary),
        "coroutine_rules": pipelines::coroutine::rules_note(summary),
    });
    measure::template::render_or_note("device/discussion.md", TEMPLATE, context)
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

/// One line per level: the best of each family on the shared device, and on their own timers; none without a
/// service time.
fn per_level(summary: &Summary) -> Option<Vec<String>> {
    let service = summary.param("service_ms")?;
    let mut lines = Vec::new();
    for (level, phase) in levels(summary) {
        let ideal = level as f64 * 1e3 / service;
        let mut line = format!("**{} in flight** (ideal {} calls/s):", count(level as f64), count(ideal));
        for family in families(summary) {
            match best(summary, family, Timer::Device, phase) {
                Some((name, s)) => {
                    let fraction = median(summary, &name, &key(phase, "ideal_fraction")).unwrap_or(f64::NAN);
                    let cpu = median(summary, &name, &key(phase, "cpu_us_per_call"));
                    let cpu = cpu.map(|c| format!(", {c:.1} µs of CPU per call")).unwrap_or_default();
                    line.push_str(&format!(
                        " best {} `{name}` {} calls/s ({} of ideal{cpu});",
                        family.as_str(),
                        count(s.median),
                        percent(fraction)
                    ));
                }
                None => line.push_str(&format!(" no {} contestant ran;", family.as_str())),
            }
        }
        line.pop();
        let own: Vec<String> = families(summary)
            .into_iter()
            .filter_map(|family| best(summary, family, Timer::Own, phase))
            .map(|(name, s)| format!("`{name}` {}", count(s.median)))
            .collect();
        if !own.is_empty() {
            line.push_str(&format!(". On their own timers: {}", own.join(", ")));
        }
        lines.push(format!("{line}."));
    }
    Some(lines)
}

/// Where a single-task stream tops out: everything but the device's timers runs in one task, on one worker.
fn single_task(summary: &Summary) -> Option<Value> {
    let &(top, phase) = levels(summary).last()?;
    let (name, s) = best(summary, Family::Stream, Timer::Device, phase)?;
    let single = CONTESTANTS.iter().any(|c| {
        c.name() == name
            && matches!(c, Contestant::Stream { shape: StreamShape::Buffered | StreamShape::BufferUnordered, .. })
    });
    let m = |metric: &str| median(summary, &name, &key(phase, metric));
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
    Some(json!({
        "level": count(top as f64),
        "name": name,
        "cores": format!("{cores:.2}"),
        "cpu": format!("{cpu:.2}"),
        "device": format!("{device:.2}"),
        "own": format!("{own:.2}"),
        "cap": count(cap),
        "reached": count(s.median),
        "share": percent(s.median / cap),
        "at_cap": within_noise(s.median, cap, summary.method.noise_threshold),
    }))
}

/// What the start and drain cost each family's best contestant: whole-run figures against the steady window,
/// and those whose whole-run rate fell below the steady one by more than the noise threshold.
fn start(summary: &Summary) -> Option<Value> {
    let mut lines = Vec::new();
    let mut slower = Vec::new();
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
                 call against {cpu:.1}.",
                count(level as f64),
                count(whole),
                count(steady.median),
                percent(whole / steady.median)
            ));
            if beyond_noise(steady.median, whole, summary.method.noise_threshold) {
                slower.push(format!("`{name}` at {}", count(level as f64)));
            }
        }
    }
    (!lines.is_empty()).then(|| json!({"lines": lines, "slower": slower.join(", ")}))
}

/// Throughput of the free variant over the budgeted one of a stream shape at `phase`.
fn trap_ratio(summary: &Summary, shape: StreamShape, timer: Timer, phase: &str) -> Option<(String, f64, f64)> {
    let budgeted = Contestant::Stream { shape, free: false, timer }.name();
    let free = Contestant::Stream { shape, free: true, timer }.name();
    let b = median(summary, &budgeted, &key(phase, HEADLINE))?;
    let f = median(summary, &free, &key(phase, HEADLINE))?;
    Some((budgeted, b, f))
}

/// The trap at the highest level, per stream shape and level, with the trap claim's verdict.
fn budget_trap(summary: &Summary) -> Option<Value> {
    let levels = levels(summary);
    let &(top, top_phase) = levels.last()?;
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
    let (name, budgeted, free) = trap_ratio(summary, StreamShape::BufferUnordered, Timer::Device, top_phase)?;
    Some(json!({
        "rows": rows.join("; "),
        "level": count(top as f64),
        "name": name,
        "budgeted": count(budgeted),
        "free": count(free),
        "ratio": format_ratio(free / budgeted),
        "verdict": verdict(summary, TRAP_CLAIM),
    }))
}

/// Each own-timer contestant's cap from its measured idle call, per level.
fn own_timers(summary: &Summary) -> Option<Vec<String>> {
    let service = summary.param("service_ms")?;
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
                "`{name}` at {}: an idle call lasts {idle:.2} ms, so at most {} calls/s ({} of ideal); it reached {} \
                 ({} of that cap).",
                count(level as f64),
                count(cap),
                percent(idle.recip() * service),
                count(ops),
                percent(ops / cap)
            ));
        }
    }
    (!lines.is_empty()).then_some(lines)
}

/// The blocking contestants' skips, pool start-up and CPU per call.
fn threads(summary: &Summary) -> Option<Vec<String>> {
    let mut lines = Vec::new();
    for c in CONTESTANTS.iter().filter(|c| c.family() == Family::Blocking) {
        let name = c.name();
        let Some(contestant) = summary.contestant(&name) else { continue };
        for (phase, reason) in &contestant.skipped_phases {
            lines.push(format!("`{name}` was **skipped** at `{phase}`: {reason}."));
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
                     CPU per call{timers}.",
                    count(level as f64)
                ));
            }
        }
    }
    (!lines.is_empty()).then_some(lines)
}

/// The families that ran in this summary, in report order (stream, blocking, then coroutine when present).
fn families(summary: &Summary) -> Vec<Family> {
    let mut out = vec![Family::Stream, Family::Blocking];
    if summary.contestants.iter().any(|c| c.family == Family::Coroutine) {
        out.push(Family::Coroutine);
    }
    out
}

/// The coroutine family against the others, per level: ratios to the best OS-thread and best stream contestant
/// on the shared device, the carrier sweep, skips with their reasons, and the OS limits the run had.
fn coroutines(summary: &Summary) -> Option<Vec<String>> {
    if !summary.contestants.iter().any(|c| c.family == Family::Coroutine) {
        return None;
    }
    let noise = summary.method.noise_threshold;
    let mut lines = Vec::new();
    // `1.30× <what>`, with `(within the noise threshold)` after it when the two are within it.
    let compare = |a: f64, b: f64, what: String| {
        let noise = if within_noise(a, b, noise) { " (within the noise threshold)" } else { "" };
        format!("{}× {what}{noise}", format_ratio(a / b))
    };
    for (level, phase) in levels(summary) {
        let Some((name, co)) = best(summary, Family::Coroutine, Timer::Device, phase) else { continue };
        let mut parts = vec![format!("`{name}` {} calls/s", count(co.median))];
        if let Some(cpu) = median(summary, &name, &key(phase, "cpu_us_per_call")) {
            parts.push(format!("{cpu:.1} µs of CPU per call"));
        }
        match best(summary, Family::Blocking, Timer::Device, phase) {
            Some((thread, t)) => {
                parts.push(compare(co.median, t.median, format!("the best OS-thread contestant `{thread}`")))
            }
            None => parts.push("no OS-thread contestant ran".to_string()),
        }
        if let Some((stream, st)) = best(summary, Family::Stream, Timer::Device, phase) {
            parts.push(compare(co.median, st.median, format!("the best stream contestant `{stream}`")));
        }
        let carriers: Vec<(String, f64)> = CONTESTANTS
            .iter()
            .filter(|c| matches!(c, Contestant::Coroutine { timer: Timer::Device, .. }))
            .filter_map(|c| Some((c.name(), median(summary, &c.name(), &key(phase, HEADLINE))?)))
            .collect();
        if let [(one, a), (two, b)] = carriers.as_slice() {
            parts.push(format!("`{two}` ran at {}", compare(*b, *a, format!("`{one}`'s rate"))));
        }
        lines.push(format!("At {} in flight: {}.", count(level as f64), parts.join("; ")));
    }
    for c in CONTESTANTS.iter().filter(|c| c.family() == Family::Coroutine) {
        let name = c.name();
        let Some(contestant) = summary.contestant(&name) else { continue };
        for (phase, reason) in &contestant.skipped_phases {
            lines.push(format!("`{name}` was **skipped** at `{phase}`: {reason}."));
        }
    }
    let limits = &summary.environment.limits;
    if !limits.is_empty() {
        let listed: Vec<String> = limits.iter().map(|(k, v)| format!("`{k}` = {v}")).collect();
        lines.push(format!(
            "This run's OS limits: {}. Each `may` stack is two memory maps and each thread four, so at Linux's default \
             `vm.max_map_count` of 65,530 neither 100,000 coroutines nor 100,000 threads fit; with the map count \
             raised, `kernel.pid_max` still caps threads, not coroutines.",
            listed.join(", ")
        ));
    }
    (!lines.is_empty()).then_some(lines)
}

/// Heap and resident memory per waiting call, per level.
fn memory(summary: &Summary) -> Option<Vec<String>> {
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
            lines.push(format!("at {}: {}.", count(level as f64), cells.join("; ")));
        }
    }
    (!lines.is_empty()).then_some(lines)
}

/// The iterations cut short by the time budget, or an empty string when none was.
fn cut_short(summary: &Summary) -> String {
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
    cut.join("; ")
}

/// The best of each family at the lowest and highest levels, compared at the noise threshold (and, at 10,000,
/// named with the verdict of the claim that streams are ahead there).
fn pick(summary: &Summary) -> Option<Vec<String>> {
    let levels = levels(summary);
    let &(top, high) = levels.last()?;
    let noise = summary.method.noise_threshold;
    let mut lines = Vec::new();
    for (level, phase) in [levels[0], (top, high)] {
        let stream = best(summary, Family::Stream, Timer::Device, phase);
        let blocking = best(summary, Family::Blocking, Timer::Device, phase);
        let line = match (stream, blocking) {
            (Some((s_name, s)), Some((b_name, b))) => {
                let cpu = |name: &str| median(summary, name, &key(phase, "cpu_us_per_call"));
                let finding = if within_noise(s.median, b.median, noise) {
                    "within the noise threshold of each other: the device, not the style, sets the pace, and a \
                     thread per call is a fine choice"
                        .to_string()
                } else if beyond_noise(b.median, s.median, noise) {
                    "the blocking contestant is ahead by more than the noise threshold, so a thread per call is the \
                     choice here"
                        .to_string()
                } else {
                    let why = match (cpu(&s_name), cpu(&b_name)) {
                        (Some(s_cpu), Some(b_cpu)) => {
                            let cores = f64::from(summary.environment.cores.max(1));
                            let cap = cores * 1e6 / b_cpu;
                            format!(
                                ". The blocking contestant spends {b_cpu:.1} µs of CPU per call against {s_cpu:.1} \
                                 (each answer wakes a parked thread and switches to it), which on {cores:.0} cores \
                                 allows at most about {} calls/s; it reached {} of that",
                                count(cap),
                                percent(b.median / cap)
                            )
                        }
                        _ => String::new(),
                    };
                    format!("the stream is ahead by more than the noise threshold, so the stream family is the choice here{why}")
                };
                let claim = if level == 10_000 {
                    format!(
                        " (The claim that the best stream sustains at least {STREAMS_AHEAD}× the best blocking \
                         contestant here: {}.)",
                        verdict(summary, AHEAD_CLAIM)
                    )
                } else {
                    String::new()
                };
                format!(
                    "At {} in flight the best stream (`{s_name}`, {}) and best blocking contestant (`{b_name}`, {}) \
                     are {}× apart: {finding}.{claim}",
                    count(level as f64),
                    count(s.median),
                    count(b.median),
                    format_ratio(s.median / b.median)
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
        lines.push(line);
        if level == top {
            break;
        }
    }
    Some(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenarios::device::claims::tests::{summary_with, trapped};
    use measure::summary::Verdict;

    /// The discussion of `summary` with its claims judged, as the harness renders it.
    fn judged(mut summary: Summary) -> String {
        summary.claims = measure::judge::judge_all(&summary, &crate::scenarios::device::claims::table(&summary));
        discussion(&summary)
    }

    #[test]
    fn the_coroutine_section_gives_ratios_to_threads_and_streams_and_the_os_limits() {
        let mut summary = summary_with(|name, level| match (name.starts_with("coroutine"), level) {
            (true, _) => 0.3,
            (false, 10_000) if name.starts_with("blocking") => 0.06,
            _ => 0.5,
        });
        summary.environment.limits.insert("vm.max_map_count".to_string(), "262144".to_string());
        let text = judged(summary);
        assert!(text.contains("**Coroutines.**"), "{text}");
        assert!(text.contains("At 10,000 in flight: `coroutine-may-2-carriers` 300,000 calls/s"), "{text}");
        assert!(text.contains("5.00× the best OS-thread contestant"), "{text}");
        assert!(text.contains("0.600× the best stream contestant"), "{text}");
        assert!(text.contains("At 100,000 in flight: `coroutine-may-2-carriers`"), "{text}");
        assert!(text.contains("no OS-thread contestant ran"), "{text}");
        assert!(text.contains("`vm.max_map_count` = 262144"), "{text}");
        assert!(text.contains("Coroutines hold only under `may`'s rules"), "{text}");
    }

    #[test]
    fn the_discussion_explains_the_trap_the_skip_and_the_cut_runs_from_the_numbers() {
        let text = judged(summary_with(trapped));
        assert!(text.contains("The cooperative-budget trap"), "{text}");
        assert!(text.contains("the claim that the budget costs at least 10× holds"), "{text}");
        assert!(text.contains("never leave a large `buffer_unordered` under the cooperative budget"), "{text}");
        assert!(!text.contains("Kyo"), "published figures live in references.json: {text}");
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
        let text = judged(summary_with(|_, _| 0.5));
        assert!(text.contains("did not collapse"), "{text}");
        assert!(!text.contains("turns into a collapse"), "{text}");
        assert!(text.contains("costs at least 10× fails"), "{text}");
        assert!(!text.contains("never leave a large"), "{text}");
        assert!(text.contains("Every iteration finished within its 4.0 s budget"), "{text}");
    }

    #[test]
    fn a_finding_is_absent_when_its_claim_is_inconclusive() {
        let mut summary = summary_with(trapped);
        summary.claims = measure::judge::judge_all(&summary, &crate::scenarios::device::claims::table(&summary));
        for claim in &mut summary.claims {
            claim.verdict = Verdict::Inconclusive;
        }
        let text = discussion(&summary);
        assert!(!text.contains("turns into a collapse"), "{text}");
        assert!(!text.contains("did not collapse"), "{text}");
        assert!(!text.contains("never leave a large"), "{text}");
        assert!(!text.contains("so device contestants are measured against the true ideal"), "{text}");
        assert!(text.contains("at least 10× is not settled by this run (that claim: inconclusive"), "{text}");
        assert!(text.contains("(that claim: inconclusive), so read the device contestants"), "{text}");
    }
}
