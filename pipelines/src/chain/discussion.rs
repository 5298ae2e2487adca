//! The chain scenario's discussion: where the time goes, what differs in semantics, and what to pick, written
//! from a run's [`Summary`]. Every figure comes from the summary; when a contestant or phase is missing the
//! text says so instead of guessing.

use std::fmt::Write as _;

use measure::compare::{format_or_na as num, times_or_na as ratio};
use measure::summary::{Family, Summary};

use super::claims::{fastest_stream, BATCH_PAIRS, LOOP};

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

/// Markdown discussing `summary`.
pub fn discussion(summary: &Summary) -> String {
    let mut out = String::new();
    let works = works(summary);
    let Some(&first) = works.first() else {
        return "No `work_<n>` phase ran, so there is nothing to discuss.\n".to_string();
    };
    let last = *works.last().unwrap_or(&first);
    let param = |k: &str| summary.params.get(k).map_or_else(|| "?".to_string(), |v| v.to_string());
    let _ = writeln!(
        out,
        "Each iteration pushes {} items through map1 → filter → map2 → sum; batched contestants send {} items per \
         message and every channel holds {} items; the machine has {} logical cores.\n",
        param("items"),
        param("batch"),
        param("capacity"),
        summary.environment.cores
    );

    let _ = writeln!(
        out,
        "The results tables above give every figure; this section reads them. Ratios are of medians against \
         `{LOOP}` in the same phase.\n"
    );

    out.push_str("### Where the time goes\n\n");
    where_time_goes(&mut out, summary, first, last);
    out.push_str("\n### Semantics that differ\n\n");
    out.push_str(
        "- `blocking-rayon` is unordered and chunked: rayon splits the slice into pieces across its pool and \
         reduces partial sums, so it answers \"what is the sum\" but not \"what is the next item\"; it has no \
         queue between stages and no back-pressure to speak of. Its exactly-once check compares multisets.\n\
         - The batched contestants change the unit of hand-off: a consumer receives items in bursts of one batch, \
         the first item waits for its batch to fill, and an error or early stop is noticed per batch. Every \
         channel still holds the same number of items, so memory in flight is the same.\n\
         - `stream-tokio-iter` yields to the scheduler periodically by design (its description gives the \
         interval in this build), which keeps a long stream from starving other tasks on the same runtime; the \
         never-yielding sources of `stream-tokio-stream-adapters` and `stream-futures-adapters` do not, which is fine only when \
         nothing else shares the thread.\n\
         - Single-task streams run on one thread: they are concurrency, not parallelism; the task-per-stage \
         variants and the thread-per-stage pipelines can use several cores, and rayon is built to.\n",
    );
    out.push_str("\n### What to pick\n\n");
    what_to_pick(&mut out, summary, first, last);
    out
}

fn where_time_goes(out: &mut String, summary: &Summary, first: u64, last: u64) {
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
        out.push_str("- No per-item channel pipeline ran, so the cost of hand-off is not measured here.\n");
    } else {
        let _ = writeln!(
            out,
            "- **Per-message hand-off dominates the per-item channel pipelines.** At work {first} the loop needs {} ns \
             of CPU per item; {}. The stage formulas cost the same everywhere, so the difference is the channel \
             operations (a send and a receive per item per stage), and the \
             parking and waking of stages that find their channel full or empty.",
            num(floor_cpu),
            handoff.join("; ")
        );
    }
    if !batching.is_empty() {
        let _ = writeln!(out, "- **Batching amortises the hand-off** over a whole message: {}.", batching.join("; "));
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
            let _ = writeln!(
                out,
                "- **A stream polled by one task compiles to almost a loop.** The fastest stream, `{name}`, needs {} ms \
                 per million, {} the loop; relative to the loop: {}. What remains is the executor's poll loop and, \
                 for a source that yields, a trip through the scheduler per yield.",
                num(Some(stats.median)),
                ratio(Some(stats.median), floor),
                singles.join(", ")
            );
        }
        None => out.push_str("- No stream contestant ran cleanly, so streams cannot be placed against the loop.\n"),
    }
    let (yielding, never) =
        (ms(summary, "stream-tokio-iter", first), ms(summary, "stream-tokio-stream-adapters", first));
    if yielding.is_some() && never.is_some() {
        let _ = writeln!(
            out,
            "- **Cooperative yielding** is the difference between `stream-tokio-iter` and `stream-tokio-stream-adapters`: \
             {} vs {} ms per million at work {first} ({}).",
            num(yielding),
            num(never),
            ratio(yielding, never)
        );
    }

    // Cores without speedup.
    let spinning: Vec<String> = summary
        .contestants
        .iter()
        .filter_map(|c| {
            let cores = median(summary, &c.name, first, "cores_used")?;
            let m = ms(summary, &c.name, first)?;
            (cores > 1.2 && floor.is_some_and(|f| m > f)).then(|| {
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
        let _ = writeln!(
            out,
            "- **More than one core busy with no speedup means the extra CPU went to coordination** (spinning \
             before parking, waking sleepers, moving cache lines between cores), not to the work: {}.",
            spinning.join("; ")
        );
    }

    // Threads against cores.
    let crowded: Vec<String> = BATCH_PAIRS
        .iter()
        .flat_map(|(single, batched)| [*single, *batched])
        .filter_map(|name| {
            let threads = median(summary, name, first, "threads")?;
            let switches = median(summary, name, first, "ctx_switches_per_item")?;
            Some(format!("`{name}` {} threads, {} switches per item", num(Some(threads)), num(Some(switches))))
        })
        .collect();
    if !crowded.is_empty() {
        let _ = writeln!(
            out,
            "- **Threads outnumber cores.** The machine has {} cores; the thread counts below include the lab's \
             sampler and the caller: {}. With more runnable stages than cores, a stage that finds its channel full \
             or empty parks, and waking it is a context switch through the kernel, which no channel crate can \
             avoid; batching divides the number of such wake-ups by the batch size.",
            summary.environment.cores,
            crowded.join("; ")
        );
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
        let _ = writeln!(
            out,
            "- **Work per element changes the order.** From work {first} to work {last} the loop goes from {} to {} ms \
             per million; relative to the loop: {}. Fixed per-item overheads shrink in proportion as each item costs \
             more, and the pipelines that run stages on several cores can start to overlap them.",
            num(floor),
            num(floor_last),
            names.join(", ")
        );
    }
}

fn what_to_pick(out: &mut String, summary: &Summary, first: u64, last: u64) {
    let floor = ms(summary, LOOP, first);
    let rayon_last = ratio(ms(summary, "blocking-rayon", last), ms(summary, LOOP, last));
    let best_batched = BATCH_PAIRS
        .iter()
        .filter_map(|(_, b)| ms(summary, b, first).map(|m| (*b, m)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    let _ = writeln!(
        out,
        "- **A CPU-bound transformation of data you already hold:** a loop or an iterator chain; reach for rayon \
         when each element carries enough work to split (at work {last}, `blocking-rayon` runs at {rayon_last} the \
         loop's time on {} cores).",
        summary.environment.cores
    );
    let _ = writeln!(
        out,
        "- **Stages that must run concurrently (I/O in between, different rates, back-pressure):** pass batches, not \
         items, between threads or tasks{}. One item per message is only for items that each carry far more work \
         than a channel operation.",
        best_batched.map_or_else(String::new, |(name, m)| format!(
            " (the fastest batched pipeline here, `{name}`, runs at {} the loop's time at work {first})",
            ratio(Some(m), floor)
        ))
    );
    let _ = writeln!(
        out,
        "- **Inside an async application:** adapters over a stream in one task cost little beyond the loop; a task \
         per stage buys parallelism only when batched, and a source that yields periodically is the polite default \
         when other tasks share the runtime."
    );
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
}
