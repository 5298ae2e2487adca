//! The handoff scenario's discussion: where the time goes, what differs in semantics, how the figures sit
//! against the JVM reference, and what to pick. The findings are computed here from a run's [`Summary`] (every
//! figure from the summary, every stated finding from a verdict of the run or a comparison at its noise
//! threshold); the fixed words are in `templates/discussion.md`. When a contestant or phase is missing the text
//! says so instead of guessing.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use measure::compare::{format_or_na as num, format_ratio, times_or_na as ratio, within_noise};
use measure::summary::Summary;

use crate::claims::{
    capacities, BATCHING_FACTOR, BATCH_PAIRS, BLOCKING_CRATES, CLAIM_CAPACITY, CONDVAR, CROSS_THREAD_PER_ITEM,
    CURRENT_THREAD, LOOP, RECEIVE_SIDE_FACTOR, WAKEUP_FACTOR,
};
use crate::{SERIES_CAPACITY, SMALL_CAPACITY_BELOW};

/// The discussion's template: fixed explanations, with the findings below filled in.
const TEMPLATE: &str = include_str!("templates/discussion.md");

/// The start of each claim's text, as [`crate::claims::table`] words it.
const BATCHING: &str = "Batching pays:";
const ROOM: &str = "Batching needs room:";
const WAKEUP: &str = "A channel of one item forces a wake-up per item";
const RECEIVE_SIDE: &str = "Batching only the receiving side is not enough";

/// The verdict of the claim whose text starts with `prefix`, as judged in this run: `holds`, `fails`,
/// `inconclusive`, or `not judged` when the run has no such claim.
fn verdict(summary: &Summary, prefix: &str) -> &'static str {
    summary.claims.iter().find(|c| c.text.starts_with(prefix)).map_or("not judged", |c| c.verdict.as_str())
}

/// The current-thread claim's prefix.
fn current_thread_claim() -> String {
    format!("At capacity {CLAIM_CAPACITY}, per item, the tokio pair on a current-thread")
}

/// The Condvar claim's prefix.
fn condvar_claim() -> String {
    format!("At capacity {CLAIM_CAPACITY}, per item, the hand-written Mutex")
}

/// Markdown discussing `summary`: findings computed here from the run's numbers and verdicts, words from
/// `templates/discussion.md`.
pub fn discussion(summary: &Summary) -> String {
    let caps = capacities(summary);
    if caps.is_empty() {
        return "No `capacity_<n>` phase ran, so there is nothing to discuss.\n".to_string();
    }
    let c = CLAIM_CAPACITY;
    let param = |k: &str| summary.params.get(k).map_or_else(|| "?".to_string(), |v| v.to_string());
    let small: Vec<String> =
        caps.iter().filter(|&&c| c < SMALL_CAPACITY_BELOW).map(|c| format!("`capacity_{c}`")).collect();
    let mut findings = String::new();
    where_time_goes(&mut findings, summary);
    let batch_or_name = param_u64(summary, "batch").map_or_else(|| "`batch`".to_string(), |b| b.to_string());

    let wide = caps.iter().copied().max().unwrap_or(c);
    let best_blocking_batched =
        fastest(summary, ["blocking-crossbeam-batched", "blocking-flume-batched", "blocking-std-batched"], wide)
            .map_or_else(String::new, |(n, m)| format!(" (`{n}`: {} ms/M at capacity {wide})", num(Some(m))));
    let async_names = ["stream-tokio-batched", "stream-flume-batched", "stream-futures-batched"];
    let async_ms: Vec<(&str, f64)> = async_names.iter().filter_map(|n| ms(summary, n, wide).map(|m| (*n, m))).collect();
    let async_batched = if async_ms.is_empty() {
        String::new()
    } else {
        let listed: Vec<String> = async_ms.iter().map(|(n, m)| format!("`{n}` {}", num(Some(*m)))).collect();
        format!(" ({} ms/M at capacity {wide})", listed.join(", "))
    };
    let lo = async_ms.iter().map(|(_, m)| *m).fold(f64::INFINITY, f64::min);
    let hi = async_ms.iter().map(|(_, m)| *m).fold(f64::NEG_INFINITY, f64::max);
    let async_close = async_ms.len() == async_names.len() && within_noise(lo, hi, summary.method.noise_threshold);
    let flag = |b: bool| if b { "yes".to_string() } else { String::new() };

    let context: BTreeMap<&str, String> = BTreeMap::from([
        ("items", param("items")),
        ("batch", param("batch")),
        ("batch_or_name", batch_or_name),
        ("cores", summary.environment.cores.to_string()),
        ("small", small.join(" and ")),
        ("small_below", SMALL_CAPACITY_BELOW.to_string()),
        ("small_items", param("small_items")),
        (
            "small_weight",
            ratio_of_items(summary).map_or_else(|| "more".to_string(), |r| format!("{}×", format_ratio(r))),
        ),
        ("capacity", c.to_string()),
        ("findings", findings.trim_end().to_string()),
        ("best_blocking_batched", best_blocking_batched),
        ("async_batched", async_batched),
        ("async_close", flag(async_close)),
        ("batching", verdict(summary, BATCHING).to_string()),
        ("batching_factor", BATCHING_FACTOR.to_string()),
        ("room", verdict(summary, ROOM).to_string()),
        ("wakeup", verdict(summary, WAKEUP).to_string()),
        ("wakeup_factor", WAKEUP_FACTOR.to_string()),
        ("receive_side", verdict(summary, RECEIVE_SIDE).to_string()),
        ("receive_side_factor", RECEIVE_SIDE_FACTOR.to_string()),
        ("condvar", verdict(summary, &condvar_claim()).to_string()),
        ("current_thread", CURRENT_THREAD.to_string()),
        ("current_verdict", verdict(summary, &current_thread_claim()).to_string()),
        ("current_batched_ms", num(ms(summary, "baseline-tokio-current-thread-batched", c))),
        ("current_ms", num(ms(summary, CURRENT_THREAD, c))),
        ("bridge_ms", num(ms(summary, "stream-bridge-blocking-send", c))),
        ("bridge_batched_ms", num(ms(summary, "stream-bridge-blocking-send-batched", c))),
        ("condvar_ms", num(ms(summary, CONDVAR, c))),
        ("fastest_crate_ms", num(fastest(summary, BLOCKING_CRATES, c).map(|(_, m)| m))),
        ("coroutine_rules", pipelines::coroutine::rules_note(summary).unwrap_or_default()),
        ("fidelity", fidelity_table(summary, &caps)),
    ]);
    measure::template::render_or_note("handoff/discussion.md", TEMPLATE, context)
}

/// Each lab contestant beside its bare reference pair ([`crate::bare_pairs`]) at every capacity: both medians of
/// `ms_per_million` and their ratio, as a markdown table; empty when no bare pair has a figure.
fn fidelity_table(summary: &Summary, caps: &[u64]) -> String {
    let mut rows = Vec::new();
    for (lab, bare) in crate::bare_pairs() {
        for &cap in caps {
            let (Some(l), Some(b)) = (ms(summary, lab, cap), ms(summary, &bare, cap)) else { continue };
            let ratio = if b > 0.0 { format!("{}×", format_ratio(l / b)) } else { "—".to_string() };
            rows.push(format!("| `{lab}` | `{bare}` | {cap} | {} | {} | {ratio} |", num(Some(l)), num(Some(b))));
        }
    }
    if rows.is_empty() {
        return String::new();
    }
    let mut out = "| lab contestant | bare pair | capacity | lab ms/M | bare ms/M | lab ÷ bare |\n\
                   | --- | --- | ---: | ---: | ---: | ---: |\n"
        .to_string();
    out.push_str(&rows.join("\n"));
    out
}

/// The median of `metric` for `contestant` at `capacity`, if it ran cleanly.
fn median(summary: &Summary, contestant: &str, capacity: u64, metric: &str) -> Option<f64> {
    summary.metric(contestant, &format!("capacity_{capacity}.{metric}")).map(|s| s.median)
}

fn ms(summary: &Summary, contestant: &str, capacity: u64) -> Option<f64> {
    median(summary, contestant, capacity, "ms_per_million")
}

/// The contestant among `names` with the lowest median `ms_per_million` at `capacity`.
fn fastest<'a>(summary: &Summary, names: impl IntoIterator<Item = &'a str>, capacity: u64) -> Option<(&'a str, f64)> {
    names.into_iter().filter_map(|n| ms(summary, n, capacity).map(|m| (n, m))).min_by(|a, b| a.1.total_cmp(&b.1))
}

/// `` `name` X ms/M (Y ns of CPU per item on Z cores, W context switches per item) ``.
fn profile(summary: &Summary, name: &str, capacity: u64) -> Option<String> {
    let m = ms(summary, name, capacity)?;
    Some(format!(
        "`{name}` {} ms/M ({} ns of CPU per item on {} cores, {} context switches per item)",
        num(Some(m)),
        num(median(summary, name, capacity, "cpu_ns_per_item")),
        num(median(summary, name, capacity, "cores_used")),
        num(median(summary, name, capacity, "ctx_switches_per_item")),
    ))
}

/// The findings of "where the time goes", one markdown bullet each: every sentence that states a finding follows
/// from a verdict of this run or from a comparison at the noise threshold.
fn where_time_goes(out: &mut String, summary: &Summary) {
    let c = CLAIM_CAPACITY;
    let floor = ms(summary, LOOP, c);
    let wakeup = verdict(summary, WAKEUP);
    let _ = writeln!(
        out,
        "- **The work itself.** `{LOOP}` generates, sums and order-checks a \
         million items in {} ms ({} ns of CPU per item). Everything the other rows add is the hand-off.",
        num(floor),
        num(median(summary, LOOP, c, "cpu_ns_per_item"))
    );

    let per_item: Vec<String> = CROSS_THREAD_PER_ITEM.iter().filter_map(|n| profile(summary, n, c)).collect();
    if per_item.is_empty() {
        out.push_str(
            "- No cross-thread per-item pair ran cleanly, so the cost of a single hand-off is not measured here.\n",
        );
    } else {
        let lead = if wakeup == "holds" {
            format!(
                "**Per item, a hand-off costs far less while both ends are running than when one has to be \
                 woken** (every cross-thread per-item pair cost at least {WAKEUP_FACTOR}× as much at capacity 1)."
            )
        } else {
            "**Per item, the cost of a hand-off.**".to_string()
        };
        let _ = writeln!(
            out,
            "- {lead} At capacity {c}: {}. A send and a receive between two \
             running threads are a few atomic operations on cache lines that travel between the cores; an end that \
             finds the channel empty or full spins a little (crossbeam and std back off with `spin_loop` and \
             `yield_now` first; flume and the Condvar queue go to sleep at once, after the short spin inside std's \
             `Mutex`) and then parks, and waking it is a futex system call on one side and a context switch on the \
             other. `ctx_switches_per_item` counts those: at 0.01 per item a \
             wake-up happens every hundred items; near 2 per item, every item sleeps and wakes on both sides.",
            per_item.join("; ")
        );
    }

    if capacities(summary).contains(&1) {
        let one: Vec<String> = CROSS_THREAD_PER_ITEM
            .iter()
            .filter_map(|n| {
                let m1 = ms(summary, n, 1)?;
                Some(format!(
                    "`{n}` {} ms/M, {} switches per item ({} its capacity-{c} cost)",
                    num(Some(m1)),
                    num(median(summary, n, 1, "ctx_switches_per_item")),
                    ratio(Some(m1), ms(summary, n, c))
                ))
            })
            .collect();
        if !one.is_empty() {
            let lead = match wakeup {
                "holds" => format!(
                    "**A channel of one puts the two ends in lock step**, and here that cost every cross-thread \
                     per-item pair at least {WAKEUP_FACTOR}× per item (the wake-up claim holds)."
                ),
                other => format!(
                    "**A channel of one puts the two ends in lock step** (the claim that it costs at least \
                     {WAKEUP_FACTOR}× per item: {other})."
                ),
            };
            let _ = writeln!(
                out,
                "- {lead} With one slot the producer must wait for \
                 the consumer after each item: {}. A pair whose ends go to sleep (near 2 context switches per item) \
                 pays the kernel's park and unpark for every item, whatever its fast path costs; one whose ends \
                 catch each other while still spinning (near 0) pays only the spinning and the cache-line traffic, \
                 and keeps both cores busy doing it — which only works while each end has a core to itself.",
                one.join("; ")
            );
        }
    }

    let current = ms(summary, CURRENT_THREAD, c);
    let fastest_cross = fastest(summary, CROSS_THREAD_PER_ITEM, c);
    if let (Some(cur), Some((name, best))) = (current, fastest_cross) {
        let verdict = match verdict(summary, &current_thread_claim()) {
            "holds" => format!(
                "it beats every cross-thread per-item pair (that claim holds), the fastest of them being `{name}` \
                 ({} ms/M)",
                num(Some(best))
            ),
            "fails" => format!(
                "yet the claim that it beats every cross-thread pair fails: the fastest, `{name}`, takes {} ms/M \
                 with {} context switches per item, its send and receive costing less than tokio's per-item \
                 machinery while its two ends work in parallel",
                num(Some(best)),
                num(median(summary, name, c, "ctx_switches_per_item"))
            ),
            other => format!(
                "whether that beats every cross-thread pair is not settled by this run (the fastest, `{name}`, \
                 takes {} ms/M; that claim: {other})",
                num(Some(best))
            ),
        };
        let _ = writeln!(
            out,
            "- **The current-thread pair never wakes a thread.** `{CURRENT_THREAD}` takes {} \
             ms/M with {} context switches per item on {} cores. Both tasks run on the thread inside `block_on`, \
             taking turns: tokio's cooperative budget (128 channel operations per task poll) makes the producer \
             return `Pending` before the channel is full — its exact high-water mark is {} items against {} for \
             the multi-thread `stream-tokio` — and the scheduler then polls the consumer, and back. A task switch \
             is a function return and a call, not a trip through the kernel. What remains per item is tokio's \
             channel itself (a semaphore permit, a slot in its block list, a waker check on each side); {verdict}. \
             On the multi-thread runtime the same two tasks (`stream-tokio`, {} ms/M on {} cores) often run the \
             same way: a task woken by another goes into that worker's LIFO slot and runs next on the same thread, \
             so producer and consumer frequently take turns on one worker rather than run in parallel.",
            num(Some(cur)),
            num(median(summary, CURRENT_THREAD, c, "ctx_switches_per_item")),
            num(median(summary, CURRENT_THREAD, c, "cores_used")),
            num(median(summary, CURRENT_THREAD, c, "max_outstanding")),
            num(median(summary, "stream-tokio", c, "max_outstanding")),
            num(ms(summary, "stream-tokio", c)),
            num(median(summary, "stream-tokio", c, "cores_used")),
        );
    }

    let batching: Vec<String> = BATCH_PAIRS
        .iter()
        .filter_map(|(single, batched)| {
            let (a, b) = (ms(summary, single, c)?, ms(summary, batched, c)?);
            Some(format!("`{single}` {} → {} ms/M ({})", num(Some(a)), num(Some(b)), ratio(Some(a), Some(b))))
        })
        .collect();
    if !batching.is_empty() {
        let lead = match verdict(summary, BATCHING) {
            "holds" => format!(
                "**Batching divides every per-message cost by the batch**: every channel was at least \
                 {BATCHING_FACTOR}× cheaper per item batched."
            ),
            other => format!(
                "**Batching against one item per message** (the claim that batching is at least {BATCHING_FACTOR}× \
                 cheaper for every channel: {other})."
            ),
        };
        let _ = writeln!(
            out,
            "- {lead} At capacity {c}: {}. What a batched \
             message still costs is one channel operation, at most one wake-up, allocating and freeing its `Vec` \
             (`allocs_per_item` ≈ 1/batch) and the consumer's pass over its items.",
            batching.join("; ")
        );
    }

    let allocs = |n: &str| median(summary, n, c, "allocs_per_item");
    if let Some(futures) = allocs("stream-futures") {
        let others: Vec<String> = ["blocking-crossbeam", "blocking-flume", "stream-tokio", "stream-flume"]
            .iter()
            .filter_map(|n| allocs(n).map(|a| format!("`{n}` {}", num(Some(a)))))
            .collect();
        let _ = writeln!(
            out,
            "- **Allocation per message differs by crate.** `stream-futures` allocates {} times per item: \
             `futures::channel::mpsc` links every message into its queue in a node of its own. The others reuse \
             their storage ({}: crossbeam and std a fixed ring; tokio blocks of 32 slots, recycled; flume a \
             `VecDeque`, plus a small allocation when an end goes to sleep). Batched, every contestant allocates \
             the batch's `Vec`: 1/batch per item.",
            num(Some(futures)),
            others.join(", ")
        );
    }

    let caps = capacities(summary);
    if let Some(&wide) = caps.iter().filter(|&&w| w > c).max() {
        let slack: Vec<String> = BATCH_PAIRS
            .iter()
            .filter_map(|(_, batched)| {
                let (a, b) = (ms(summary, batched, c)?, ms(summary, batched, wide)?);
                Some(format!("`{batched}` {} → {} ms/M", num(Some(a)), num(Some(b))))
            })
            .collect();
        if !slack.is_empty() {
            let lead = match verdict(summary, ROOM) {
                "holds" => format!(
                    "**A batch needs room to run ahead**: with it, every channel was at least {BATCHING_FACTOR}× \
                     cheaper per item batched (that claim holds)."
                ),
                other => format!(
                    "**Room to run ahead** (the claim that batching with room is at least {BATCHING_FACTOR}× \
                     cheaper for every channel: {other})."
                ),
            };
            let _ = writeln!(
                out,
                "- {lead} At capacity {c} a batched channel holds a single batch: the producer fills one, hands it \
                 over and waits; the consumer takes it and waits for the next — a wake-up per batch on each side \
                 unless the other end is quick enough to catch it spinning. At capacity {wide} it holds {} batches \
                 and the producer can run ahead: {}.",
                param_u64(summary, "batch").map_or_else(|| "several".to_string(), |b| (wide / b.max(1)).to_string()),
                slack.join("; ")
            );
        }
    }

    let cores_at = |capacity: u64| -> Vec<String> {
        BLOCKING_CRATES
            .iter()
            .chain(&[CONDVAR, "stream-tokio"])
            .filter_map(|n| {
                let cores = median(summary, n, capacity, "cores_used")?;
                let switches = median(summary, n, capacity, "ctx_switches_per_item");
                Some(format!("`{n}` {} ({} switches/item)", num(Some(cores)), num(switches)))
            })
            .collect()
    };
    let caps = capacities(summary);
    let ends = [caps.first().copied(), caps.last().copied().filter(|&w| Some(w) != caps.first().copied())];
    let shown: Vec<String> = ends
        .into_iter()
        .flatten()
        .filter_map(|capacity| {
            let row = cores_at(capacity);
            (!row.is_empty()).then(|| format!("at capacity {capacity}, {}", row.join(", ")))
        })
        .collect();
    if !shown.is_empty() {
        let _ = writeln!(
            out,
            "- **Cores kept busy: working, spinning or waiting.** `cores_used` is CPU time over wall time, all \
             threads together, the harness's sampler excluded; per item, {}. Near 2, both ends were on a CPU the \
             whole time: working in parallel (a wide channel lets the producer run ahead), or spinning in a \
             channel's backoff waiting for the other end — at small capacities the pair with the fewest context \
             switches is the one that waits by spinning, and it pays for avoiding the kernel with a second core. \
             Near 1, the ends mostly took turns while the other slept, or shared one core because other work held \
             the second. Below 1, the process waited for a CPU held by other work on this shared machine; a \
             single-threaded contestant shows that directly (`{CURRENT_THREAD}`: {} at capacity {c}).",
            shown.join("; "),
            num(median(summary, CURRENT_THREAD, c, "cores_used"))
        );
    }

    let sys = |n: &str| median(summary, n, c, "cpu_system_ns_per_item");
    if let Some(condvar_sys) = sys(CONDVAR) {
        let crates: Vec<String> =
            BLOCKING_CRATES.iter().filter_map(|n| sys(n).map(|s| format!("`{n}` {}", num(Some(s))))).collect();
        let _ = writeln!(
            out,
            "- **The Condvar queue pays the kernel on every operation.** It spends {} ns of *system* CPU per item \
             ({}): each `send` and `recv` calls `notify_one`, and the standard library's futex-based `Condvar` \
             makes a `FUTEX_WAKE` system call for it whether or not anyone waits, and the producer and consumer \
             contend for one `Mutex` on every item. The channel crates keep a waiter count or a lock-free \
             queue and only enter the kernel to wake someone who is actually asleep. Per item it takes {} ms/M{}; \
             batched, the same costs are paid once per {} items ({} ms/M).",
            num(Some(condvar_sys)),
            crates.join(", "),
            match verdict(summary, &condvar_claim()) {
                "holds" => ", the slowest blocking channel here (that claim holds)".to_string(),
                other => format!(" (the claim that it is the slowest blocking channel: {other})"),
            },
            num(ms(summary, CONDVAR, c)),
            param_u64(summary, "batch").map_or_else(|| "batch".to_string(), |b| b.to_string()),
            num(ms(summary, "blocking-condvar-batched", c)),
        );
    }

    let (send, recv, tokio) = (
        ms(summary, "stream-bridge-blocking-send", c),
        ms(summary, "blocking-bridge-blocking-recv", c),
        ms(summary, "stream-tokio", c),
    );
    if send.is_some() || recv.is_some() {
        let _ = writeln!(
            out,
            "- **Bridges between a thread and a task.** Per item, a thread calling `blocking_send` into a \
             task takes {} ms/M and a task feeding a thread's `blocking_recv` {} ms/M, against {} ms/M for two \
             tasks (`stream-tokio`). The blocking end runs tokio's `block_on` on the calling thread for each \
             operation: whenever the channel makes it wait, that OS thread parks on a futex, and the task on the \
             other side has to unpark it, so the bridge pays the blocking style's wake-ups and the async style's \
             channel machinery at once; batched, {} and {} ms/M.",
            num(send),
            num(recv),
            num(tokio),
            num(ms(summary, "stream-bridge-blocking-send-batched", c)),
            num(ms(summary, "blocking-bridge-blocking-recv-batched", c)),
        );
    }

    let many = ms(summary, "stream-tokio-recv-many", c);
    if many.is_some() {
        let finding = match verdict(summary, RECEIVE_SIDE) {
            "holds" => format!(
                "; it still cost at least {RECEIVE_SIDE_FACTOR}× what sending whole batches does, so that side is \
                 where most of the per-item cost is (the claim holds)"
            ),
            other => format!(
                " (the claim that it still costs at least {RECEIVE_SIDE_FACTOR}× what sending whole batches does: \
                 {other})"
            ),
        };
        let _ = writeln!(
            out,
            "- **`recv_many` batches only the receiving side.** `stream-tokio-recv-many` takes {} ms/M against {} \
             for `stream-tokio` and {} for `stream-tokio-batched`: the consumer wakes once per run of queued items \
             instead of polling per item, but the producer still acquires a permit and writes a slot for every \
             item{finding}.",
            num(many),
            num(tokio),
            num(ms(summary, "stream-tokio-batched", c))
        );
    }

    let exact = median(summary, "blocking-crossbeam", c, "max_outstanding");
    let sampled = median(summary, "blocking-crossbeam", c, "max_outstanding_sampled");
    // The contestant whose 1 ms samples missed most of its exact peak.
    let missed = summary
        .contestants
        .iter()
        .filter_map(|contestant| {
            let exact = median(summary, &contestant.name, c, "max_outstanding")?;
            let sampled = median(summary, &contestant.name, c, "max_outstanding_sampled")?;
            (exact > 0.0).then(|| (contestant.name.as_str(), exact, sampled, sampled / exact))
        })
        .min_by(|a, b| a.3.total_cmp(&b.3));
    if exact.is_some() || missed.is_some() {
        let missed_text = match missed {
            Some((name, e, smp, fraction)) if fraction < 1.0 => format!(
                "a run that lasts a few milliseconds gives the sampler only a few looks, and the widest miss here is \
                 `{name}`: exact {}, sampled {}",
                num(Some(e)),
                num(Some(smp))
            ),
            _ => "in this run the samples happened to catch every peak".to_string(),
        };
        let _ = writeln!(
            out,
            "- **Outstanding work: trust the exact mark, chart the sampled one.** `max_outstanding` is the exact \
             high-water mark of items sent minus items received, kept by the gauge on every message of the \
             accounting iteration (timed iterations carry no gauge); `max_outstanding_sampled` is the highest of \
             its 1 ms samples. A per-item pair at capacity {c} fills \
             its channel whenever the consumer falls behind (`blocking-crossbeam`: exact {}, sampled {}: the \
             channel plus an item in each end's hand); {missed_text}. The outstanding chart shows the 1 ms series \
             at capacity {SERIES_CAPACITY}.",
            num(exact),
            num(sampled),
        );
    }
}

/// `items / small_items`, when both are single numbers.
fn ratio_of_items(summary: &Summary) -> Option<f64> {
    let items = summary.params.get("items")?.as_f64()?;
    let small = summary.params.get("small_items")?.as_f64()?;
    (small > 0.0).then(|| items / small)
}

fn param_u64(summary: &Summary, key: &str) -> Option<u64> {
    summary.params.get(key).and_then(|v| v.as_u64())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claims::tests::summary_with;
    use measure::summary::Verdict;

    /// `summary` with its claims judged, as the harness does before rendering.
    fn judged(mut summary: Summary) -> Summary {
        summary.claims = measure::judge::judge_all(&summary, &crate::claims::table(&summary));
        summary
    }

    #[test]
    fn each_lab_contestant_stands_beside_its_bare_pair_as_a_ratio() {
        let summary = judged(summary_with(&[
            ("blocking-crossbeam", 256, 60.0),
            ("blocking-crossbeam-bare", 256, 40.0),
            ("stream-tokio", 256, 150.0),
        ]));
        let text = discussion(&summary);
        assert!(
            text.contains("| `blocking-crossbeam` | `blocking-crossbeam-bare` | 256 | 60.0 | 40.0 | 1.50× |"),
            "{text}"
        );
        assert!(text.contains("| `stream-tokio` | `stream-tokio-bare` | 256 | 150 | 100 | 1.50× |"), "{text}");
        let mut without = summary_with(&[("blocking-crossbeam", 256, 60.0)]);
        without.contestants.retain(|c| !c.name.ends_with("-bare"));
        let none = discussion(&judged(without));
        assert!(none.contains("The bare reference pairs did not run"), "{none}");
    }

    #[test]
    fn every_figure_comes_from_the_summary() {
        let summary = judged(summary_with(&[
            (LOOP, 256, 1.25),
            ("blocking-crossbeam", 256, 62.5),
            ("blocking-crossbeam-batched", 256, 3.125),
            (CURRENT_THREAD, 256, 115.0),
        ]));
        let text = discussion(&summary);
        assert!(text.contains("1.25"), "{text}");
        assert!(text.contains("20.0×"), "{text}"); // crossbeam per item over batched
        assert!(text.contains("beats every cross-thread pair fails: the fastest, `blocking-crossbeam`"), "{text}");
        assert!(text.contains("50,000") || text.contains("50000"), "{text}");
        assert!(text.contains("### What to pick"));
    }

    #[test]
    fn a_missing_phase_is_said_not_invented() {
        let mut summary = summary_with(&[]);
        summary.phases.clear();
        assert!(discussion(&summary).contains("nothing to discuss"));
    }

    #[test]
    fn a_missing_contestant_reads_as_not_available() {
        let mut summary = summary_with(&[]);
        summary.contestants.retain(|c| c.name != CONDVAR);
        let text = discussion(&summary);
        assert!(!text.contains("pays the kernel on every operation"), "{text}");
        assert!(text.contains("n/a"), "{text}");
    }

    #[test]
    fn a_finding_is_printed_only_when_its_claim_holds() {
        // Every batched channel 20× cheaper: the batching claim holds.
        let fast: Vec<(&str, u64, f64)> = BATCH_PAIRS.iter().map(|(_, b)| (*b, 256, 5.0)).collect();
        let holds = judged(summary_with(&fast));
        assert!(holds.claims.iter().any(|c| c.text.starts_with(BATCHING) && c.verdict == Verdict::Holds));
        let text = discussion(&holds);
        assert!(text.contains("Batching divides every per-message cost by the batch"), "{text}");
        assert!(text.contains("at least 10× cheaper per item here"), "{text}");

        // The same run with the batching claim inconclusive: neither sentence is printed, the verdict is named.
        let mut unsure = holds.clone();
        for claim in unsure.claims.iter_mut().filter(|c| c.text.starts_with(BATCHING)) {
            claim.verdict = Verdict::Inconclusive;
        }
        let text = discussion(&unsure);
        assert!(!text.contains("Batching divides every per-message cost"), "{text}");
        assert!(!text.contains("cheaper per item here"), "{text}");
        assert!(text.contains("cheaper for every channel: inconclusive"), "{text}");
        assert!(!text.contains("send batches, not items"), "the recommendation needs the verdict: {text}");
        assert!(holds.claims.iter().any(|c| c.text.starts_with(BATCHING)));
        assert!(discussion(&holds).contains("send batches, not items"), "and appears with it");
    }

    #[test]
    fn the_current_thread_runtime_is_recommended_for_speed_only_when_its_claim_holds() {
        let summary = judged(summary_with(&[]));
        let mut holds = summary.clone();
        let mut fails = summary;
        for (s, v) in [(&mut holds, Verdict::Holds), (&mut fails, Verdict::Fails)] {
            for claim in s.claims.iter_mut().filter(|c| c.text.starts_with(&current_thread_claim())) {
                claim.verdict = v;
            }
        }
        assert!(discussion(&holds).contains("run them as tasks on one current-thread runtime"));
        let text = discussion(&fails);
        assert!(!text.contains("run them as tasks on one current-thread runtime"), "{text}");
        assert!(text.contains("choose it for its semantics, not for speed"), "{text}");
    }

    #[test]
    fn an_unjudged_run_states_no_finding() {
        // No claims judged: every claim-backed finding is withheld and said to be unjudged.
        let text = discussion(&summary_with(&[(CONDVAR, 256, 500.0)]));
        assert!(!text.contains("Do not hand-write"), "{text}");
        assert!(!text.contains("the slowest blocking channel here"), "{text}");
        assert!(!text.contains("is where most of the per-item cost is"), "{text}");
        assert!(text.contains("the slowest blocking channel: not judged"), "{text}");
        assert!(!text.contains("could not be rendered"), "{text}");
    }
}
