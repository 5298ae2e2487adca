//! The chain scenario's discussion: where the time goes, what differs in semantics, and what to pick. The
//! findings are computed here from a run's [`Summary`] (every figure from the summary, every stated finding
//! from a verdict of the run or a comparison at its noise threshold); the fixed words are in
//! `templates/discussion.md`. When a contestant or phase is missing the text says so instead of guessing.

use measure::compare::{beyond_noise, format_or_na as num, times_or_na as ratio, within_noise};
use measure::summary::{Family, Summary, Verdict};

use super::claims::{fastest_stream, BATCHING_FACTOR, BATCH_PAIRS, LOOP, NEAR_LOOP_AT_0};

/// The median of `metric` for `contestant` in phase `work_<work>`, if it ran cleanly.
fn median(summary: &Summary, contestant: &str, work: u64, metric: &str) -> Option<f64> {
    summary.metric(contestant, &format!("work_{work}.{metric}")).map(|s| s.median)
}

fn ms(summary: &Summary, contestant: &str, work: u64) -> Option<f64> {
    median(summary, contestant, work, "ms_per_million")
}

/// The works (phases `work_<n>`) of this run, in order.
fn works(summary: &Summary) -> Vec<u64> {
    summary.phases.iter().filter_map(|p| p.strip_prefix("work_")?.parse().ok()).collect()
}

/// The discussion's template: fixed explanations, with the findings below filled in.
const TEMPLATE: &str = include_str!("templates/discussion.md");

/// The verdict of the claim whose text starts with `prefix`, as judged in this run.
fn verdict(summary: &Summary, prefix: &str) -> Option<Verdict> {
    summary.claims.iter().find(|c| c.text.starts_with(prefix)).map(|c| c.verdict)
}

/// Markdown discussing `summary`: findings computed here from the run's numbers and verdicts, words from
/// `templates/discussion.md`.
pub fn discussion(summary: &Summary) -> String {
    let works = works(summary);
    let Some(&first) = works.first() else {
        return "No `work_<n>` phase ran, so there is nothing to discuss.\n".to_string();
    };
    let last = *works.last().unwrap_or(&first);
    let param = |k: &str| summary.params.get(k).map_or_else(|| "?".to_string(), |v| v.to_string());
    let floor = ms(summary, LOOP, first);
    let best_batched = BATCH_PAIRS
        .iter()
        .filter_map(|(_, b)| ms(summary, b, first).map(|m| (*b, m)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(name, m)| serde_json::json!({"name": name, "ratio": ratio(Some(m), floor)}));
    let near_loop = verdict(summary, &format!("At work {first}, the fastest stream contestant"));
    let context = serde_json::json!({
        "items": param("items"),
        "batch": param("batch"),
        "capacity": param("capacity"),
        "messages": param("messages"),
        "cores": summary.environment.cores,
        "floor": LOOP,
        "first": first,
        "last": last,
        "findings": where_time_goes(summary, first, last),
        "rayon_last": ratio(ms(summary, "blocking-rayon", last), ms(summary, LOOP, last)),
        "best_batched": best_batched,
        "batching_holds": verdict(summary, &format!("At work {first}, in every channel family")) == Some(Verdict::Holds),
        "batching_factor": BATCHING_FACTOR.to_string(),
        "batching_verdict": verdict(summary, &format!("At work {first}, in every channel family"))
            .map_or("not judged", Verdict::as_str),
        "near_loop_holds": near_loop == Some(Verdict::Holds),
        "near_loop_verdict": near_loop.map_or("not judged", Verdict::as_str),
        "near_loop_factor": NEAR_LOOP_AT_0.to_string(),
        "coroutine_rules": crate::coroutine::rules_note(summary),
    });
    measure::template::render_or_note("chain/discussion.md", TEMPLATE, context)
}

/// The findings of "where the time goes", one markdown bullet each: every sentence that states a finding follows
/// from a verdict of this run or from a comparison at the noise threshold.
fn where_time_goes(summary: &Summary, first: u64, last: u64) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let noise = summary.method.noise_threshold;
    let batching_holds = verdict(summary, &format!("At work {first}, in every channel family")) == Some(Verdict::Holds);
    let near_loop = verdict(summary, &format!("At work {first}, the fastest stream contestant"));
    let floor = ms(summary, LOOP, first);
    let floor_cpu = median(summary, LOOP, first, "cpu_ns_per_item");

    // Per-message hand-off.
    let mut handoff = Vec::new();
    let mut batching = Vec::new();
    for (single, batched) in BATCH_PAIRS {
        let (a, b) = (ms(summary, single, first), ms(summary, batched, first));
        if a.is_some() {
            handoff.push(format!(
                "`{single}` {} ms per million ({} the loop, {} ns of CPU per item on {} cores, {} context switches per item)",
                num(a),
                ratio(a, floor),
                num(median(summary, single, first, "cpu_ns_per_item")),
                num(median(summary, single, first, "cores_used")),
                num(median(summary, single, first, "ctx_switches_per_item")),
            ));
        }
        if a.is_some() && b.is_some() {
            batching.push(format!("`{batched}` is {} faster than `{single}`", ratio(a, b)));
        }
    }
    if handoff.is_empty() {
        out.push("No per-item channel pipeline ran, so the cost of hand-off is not measured here.".to_string());
    } else {
        let lead = if batching_holds {
            "**Per-message hand-off dominates the per-item channel pipelines** (batching the same pipelines made \
             each at least ten times faster)."
        } else {
            "**Per-message hand-off in the per-item channel pipelines.**"
        };
        out.push(format!(
            "{lead} At work {first} the loop needs {} ns of CPU per item; {}. The stage formulas cost the same \
             everywhere, so what differs is the channel operations (a send and a receive per item per stage, and the \
             gauge's relaxed atomic), and the parking and waking of stages that find their channel full or empty.",
            num(floor_cpu),
            handoff.join("; ")
        ));
    }
    if !batching.is_empty() {
        let lead = if batching_holds {
            "**Batching amortises the hand-off** over a whole message"
        } else {
            "**Batching against one item per message** (the claim that it pays tenfold in every family did not hold)"
        };
        out.push(format!("{lead}: {}.", batching.join("; ")));
    }

    // Single-task streams.
    match fastest_stream(summary, first) {
        Some((name, stats)) => {
            let singles: Vec<String> = summary
                .contestants
                .iter()
                .filter(|c| c.family == Family::Stream && !c.name.contains("tasks"))
                .filter_map(|c| ms(summary, &c.name, first).map(|m| format!("`{}` {}", c.name, ratio(Some(m), floor))))
                .collect();
            let lead = match near_loop {
                Some(Verdict::Holds) => "**A stream polled by one task compiles to almost a loop.**".to_string(),
                other => format!(
                    "**Streams polled by one task, against the loop** (the claim that the fastest is within \
                     {NEAR_LOOP_AT_0}× of the loop: {}).",
                    other.map_or("not judged", Verdict::as_str)
                ),
            };
            out.push(format!(
                "{lead} The fastest stream, `{name}`, needs {} ms per million, {} the loop; relative to the loop: \
                 {}. Beyond the loop's work they run the executor's poll loop and, for a source that yields, a trip \
                 through the scheduler per yield.",
                num(Some(stats.median)),
                ratio(Some(stats.median), floor),
                singles.join(", ")
            ));
        }
        None => out.push("No stream contestant ran cleanly, so streams cannot be placed against the loop.".to_string()),
    }
    let (yielding, never) =
        (ms(summary, "stream-tokio-iter", first), ms(summary, "stream-tokio-stream-adapters", first));
    if let (Some(y), Some(n)) = (yielding, never) {
        let what = match verdict(summary, &format!("At work {first}, tokio-stream's yielding")) {
            Some(Verdict::Holds) => "costs measurably more (the yielding claim holds)",
            Some(Verdict::Fails) => "does not cost what the yielding claim expected (it fails)",
            _ if within_noise(y, n, noise) => "is within the noise threshold",
            _ => "is not settled by this run (the yielding claim is inconclusive)",
        };
        out.push(format!(
            "**Cooperative yielding** is the difference between `stream-tokio-iter` and `stream-tokio-stream-adapters`, \
             and here it {what}: {} vs {} ms per million at work {first} ({}).",
            num(yielding),
            num(never),
            ratio(yielding, never)
        ));
    }

    // Cores without speedup.
    let spinning: Vec<String> = summary
        .contestants
        .iter()
        .filter_map(|c| {
            let cores = median(summary, &c.name, first, "cores_used")?;
            let m = ms(summary, &c.name, first)?;
            (beyond_noise(cores, 1.0, noise) && floor.is_some_and(|f| beyond_noise(m, f, noise))).then(|| {
                format!(
                    "`{}` kept {} cores busy yet took {} the loop's time",
                    c.name,
                    num(Some(cores)),
                    ratio(Some(m), floor)
                )
            })
        })
        .collect();
    if !spinning.is_empty() {
        out.push(format!(
            "**More than one core busy with no speedup means the extra CPU went to coordination** (spinning \
             before parking, waking sleepers, moving cache lines between cores), not to the work: {}.",
            spinning.join("; ")
        ));
    }

    // Threads against cores.
    let cores = f64::from(summary.environment.cores);
    let crowded: Vec<String> = BATCH_PAIRS
        .iter()
        .flat_map(|(single, batched)| [*single, *batched])
        .filter_map(|name| {
            let threads = median(summary, name, first, "threads").filter(|t| *t > cores)?;
            let switches = median(summary, name, first, "ctx_switches_per_item")?;
            Some(format!("`{name}` {} threads, {} switches per item", num(Some(threads)), num(Some(switches))))
        })
        .collect();
    if !crowded.is_empty() {
        out.push(format!(
            "**Threads outnumber cores.** The machine has {} cores; the thread counts below include the lab's \
             sampler and the caller: {}. With more runnable stages than cores, a stage that finds its channel full \
             or empty parks, and waking it is a context switch through the kernel, which no channel crate can \
             avoid; batching divides the number of such wake-ups by the batch size.",
            summary.environment.cores,
            crowded.join("; ")
        ));
    }

    // Work narrows the gap.
    if last != first {
        let floor_last = ms(summary, LOOP, last);
        let gap = |name: &str| {
            format!(
                "`{name}` {} → {}",
                ratio(ms(summary, name, first), floor),
                ratio(ms(summary, name, last), floor_last)
            )
        };
        let mut names: Vec<String> = Vec::new();
        if let Some((name, _)) = fastest_stream(summary, last) {
            names.push(gap(name));
        }
        for (single, batched) in BATCH_PAIRS.iter().take(1) {
            names.push(gap(single));
            names.push(gap(batched));
        }
        names.push(gap("blocking-rayon"));
        let lead = match verdict(summary, &format!("At work {last}, the fastest stream contestant")) {
            Some(Verdict::Holds) => "**Work per element narrows the gap** (the fastest stream is within the claim's \
                                     factor of the loop at the higher work)."
                .to_string(),
            other => format!(
                "**Work per element, against the loop** (the claim that it narrows the gap: {}).",
                other.map_or("not judged", Verdict::as_str)
            ),
        };
        out.push(format!(
            "{lead} From work {first} to work {last} the loop goes from {} to {} ms per million; relative to the \
             loop: {}. Fixed per-item overheads shrink in proportion as each item costs more, and the pipelines that \
             run stages on several cores can start to overlap them.",
            num(floor),
            num(floor_last),
            names.join(", ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chain::claims::tests::summary_with;

    #[test]
    fn every_figure_comes_from_the_summary() {
        let summary = summary_with(&[(LOOP, 0, 1.25), ("stream-futures-adapters", 0, 1.875), (LOOP, 64, 40.0)]);
        let text = discussion(&summary);
        assert!(text.contains("1.25"), "{text}");
        assert!(text.contains("1.50×"), "{text}"); // stream-futures-adapters / loop
        assert!(text.contains("40.0"), "{text}");
        assert!(text.contains("### What to pick"));
    }

    #[test]
    fn a_missing_phase_is_said_not_invented() {
        let mut summary = summary_with(&[]);
        summary.phases.clear();
        assert!(discussion(&summary).contains("nothing to discuss"));
    }

    #[test]
    fn the_almost_a_loop_finding_is_printed_only_when_its_claim_holds() {
        let judged = |stream: f64| {
            let mut summary = summary_with(&[(LOOP, 0, 1.0), ("stream-futures-adapters", 0, stream)]);
            summary.claims = measure::judge::judge_all(&summary, &crate::chain::claims::table(&summary));
            discussion(&summary)
        };
        let close = judged(1.5);
        assert!(close.contains("compiles to almost a loop"), "{close}");
        let far = judged(5.0);
        assert!(!far.contains("compiles to almost a loop"), "{far}");
        assert!(far.contains("within 2× of the loop: fails"), "{far}");
        assert!(far.contains("did not stay within 2× of the loop in this run (that claim fails)"), "{far}");
    }

    #[test]
    fn pass_batches_is_recommended_only_when_batching_holds() {
        let mut summary = summary_with(&[(LOOP, 0, 1.0)]);
        summary.claims = measure::judge::judge_all(&summary, &crate::chain::claims::table(&summary));
        let prefix = format!("At work {}, in every channel family", 0);
        let claim = summary.claims.iter_mut().find(|c| c.text.starts_with(&prefix));
        let Some(claim) = claim else { panic!("the batching claim is in the table") };
        claim.verdict = Verdict::Fails;
        let text = discussion(&summary);
        assert!(!text.contains("pass batches, not items"), "{text}");
        assert!(text.contains("this run does not show that batching pays in every channel family"), "{text}");
        for c in summary.claims.iter_mut().filter(|c| c.text.starts_with(&prefix)) {
            c.verdict = Verdict::Holds;
        }
        assert!(discussion(&summary).contains("pass batches, not items"));
    }
}
