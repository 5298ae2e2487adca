//! The handoff scenario's discussion: where the time goes, what differs in semantics, how the figures sit
//! against the JVM reference, and what to pick, written from a run's [`Summary`]. Every figure comes from the
//! summary; when a contestant or phase is missing the text says so instead of guessing.

use std::fmt::Write as _;

use measure::compare::{format_or_na as num, format_ratio, times_or_na as ratio};
use measure::summary::Summary;

use crate::claims::{
    capacities, BATCH_PAIRS, BLOCKING_CRATES, CLAIM_CAPACITY, CONDVAR, CROSS_THREAD_PER_ITEM, CURRENT_THREAD, LOOP,
};
use crate::{SERIES_CAPACITY, SMALL_CAPACITY_BELOW};

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

/// Markdown discussing `summary`.
pub fn discussion(summary: &Summary) -> String {
    let caps = capacities(summary);
    if caps.is_empty() {
        return "No `capacity_<n>` phase ran, so there is nothing to discuss.\n".to_string();
    }
    let mut out = String::new();
    let param = |k: &str| summary.params.get(k).map_or_else(|| "?".to_string(), |v| v.to_string());
    let small: Vec<String> =
        caps.iter().filter(|&&c| c < SMALL_CAPACITY_BELOW).map(|c| format!("`capacity_{c}`")).collect();
    let _ = writeln!(
        out,
        "Each iteration hands off {} items; batched contestants send {} items per message; the machine has {} \
         logical cores.{} Every per-item figure (ms per million, ns per item, switches per item) is normalised by \
         the items of its own iteration, so rows and phases compare. Unless a sentence names another capacity, \
         figures are medians at capacity {CLAIM_CAPACITY}.\n",
        param("items"),
        param("batch"),
        summary.environment.cores,
        if small.is_empty() {
            String::new()
        } else {
            format!(
                " In {} (capacity under {SMALL_CAPACITY_BELOW}) the contestants that send one item per message hand \
                 off {} items per iteration instead: there an item can cost a wake-up, and a million would take \
                 seconds per iteration. Fixed costs such as starting the producer thread (tens of microseconds) \
                 weigh {} as much per item in those runs, which is small beside what an item costs there.",
                small.join(" and "),
                param("small_items"),
                ratio_of_items(summary).map_or_else(|| "more".to_string(), |r| format!("{}×", format_ratio(r))),
            )
        },
    );

    out.push_str("### Where the time goes\n\n");
    where_time_goes(&mut out, summary);
    out.push_str("\n### Semantics that differ\n\n");
    semantics(&mut out, summary);
    out.push_str("\n### Against the JVM reference\n\n");
    jvm(&mut out);
    out.push_str("\n### What to pick\n\n");
    what_to_pick(&mut out, summary);
    out
}

/// `items / small_items`, when both are single numbers.
fn ratio_of_items(summary: &Summary) -> Option<f64> {
    let items = summary.params.get("items")?.as_f64()?;
    let small = summary.params.get("small_items")?.as_f64()?;
    (small > 0.0).then(|| items / small)
}

fn where_time_goes(out: &mut String, summary: &Summary) {
    let c = CLAIM_CAPACITY;
    let floor = ms(summary, LOOP, c);
    let _ = writeln!(
        out,
        "- **The work itself costs about a nanosecond per item.** `{LOOP}` generates, sums and order-checks a \
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
        let _ = writeln!(
            out,
            "- **Per item, a hand-off costs tens to hundreds of nanoseconds while both ends are running, and \
             microseconds when one has to be woken.** At capacity {c}: {}. A send and a receive between two \
             running threads are a few atomic operations on cache lines that travel between the cores; an end that \
             finds the channel empty or full spins a little (crossbeam and std back off with `spin_loop` and \
             `yield_now` first; flume and the Condvar queue go to sleep at once, after the short spin inside std's \
             `Mutex`) and then parks, and waking it is a futex system call on one side and a context switch on the \
             other, several microseconds on this VM. `ctx_switches_per_item` counts those: at 0.01 per item a \
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
            let _ = writeln!(
                out,
                "- **A channel of one puts the two ends in lock step.** With one slot the producer must wait for \
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
        let verdict = if cur < best {
            format!("it beats the fastest cross-thread pair, `{name}` ({} ms/M)", num(Some(best)))
        } else {
            format!(
                "yet the fastest cross-thread pair, `{name}`, is faster ({} ms/M, {} context switches per item): its \
                 send and receive cost less than tokio's per-item machinery, it sleeps rarely enough that wake-ups \
                 do not dominate, and its two ends work in parallel",
                num(Some(best)),
                num(median(summary, name, c, "ctx_switches_per_item"))
            )
        };
        let _ = writeln!(
            out,
            "- **The current-thread pair never wakes a thread, but it is not free.** `{CURRENT_THREAD}` takes {} \
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
        let _ = writeln!(
            out,
            "- **Batching divides every per-message cost by the batch.** At capacity {c}: {}. What a batched \
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
            let _ = writeln!(
                out,
                "- **A batch needs room to run ahead.** At capacity {c} a batched channel holds a single batch: the \
                 producer fills one, hands it over and waits; the consumer takes it and waits for the next — a \
                 wake-up per batch on each side unless the other end is quick enough to catch it spinning, which \
                 is why these rows spread so widely between their min and max. At capacity {wide} it holds {} \
                 batches and the producer runs ahead: {}.",
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
             queue and only enter the kernel to wake someone who is actually asleep. Per item it takes {} ms/M; \
             batched, the same costs are paid once per {} items ({} ms/M).",
            num(Some(condvar_sys)),
            crates.join(", "),
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
            "- **A bridge costs what its blocking end costs.** Per item, a thread calling `blocking_send` into a \
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
        let _ = writeln!(
            out,
            "- **`recv_many` batches only the receiving side.** `stream-tokio-recv-many` takes {} ms/M against {} \
             for `stream-tokio` and {} for `stream-tokio-batched`: the consumer wakes once per run of queued items \
             instead of polling per item, but the producer still acquires a permit and writes a slot for every \
             item, and that side is where most of the per-item cost is.",
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

fn param_u64(summary: &Summary, key: &str) -> Option<u64> {
    summary.params.get(key).and_then(|v| v.as_u64())
}

fn semantics(out: &mut String, summary: &Summary) {
    let batch = param_u64(summary, "batch").map_or_else(|| "`batch`".to_string(), |b| b.to_string());
    let _ = writeln!(
        out,
        "- **Capacity is counted in items, and compensated where a crate counts otherwise.** \
         `futures::channel::mpsc::channel(n)` holds `n` messages plus one per sender, so `stream-futures` is \
         created with `channel(capacity − 1)`, which with its single sender holds `capacity`; at capacity 1 that is \
         `channel(0)`, where the sender's own guaranteed slot is the whole buffer. The others take the capacity as \
         given. A batched channel holds max(1, capacity / {batch}) messages of {batch} items, so below capacity \
         {batch} it holds one whole batch — more items than its per-item twin — and the two rows of a pair at \
         capacities 1 and 16 compare different amounts of buffering (and, there, different item counts per \
         iteration).\n\
         - **The current-thread pair is concurrency without parallelism.** Producer and consumer never run at \
         the same time; anything that blocks either one (a system call, a long computation) stalls both, and the \
         runtime serves nothing else meanwhile. It is the right comparison for stages that already share a thread, \
         not a drop-in for two threads.\n\
         - **Failure travels the same way everywhere.** Every channel carries `Result<item, E>`: a producer that \
         fails sends what it has and then its error, and the consumer returns that error instead of a short sum. \
         A producer that panics cannot send anything; its consumer sees the channel close exactly as if it had \
         finished, so every contestant joins the producer (the thread's `join`, the task's `JoinHandle`) after \
         the consumer is done, and a panic there turns the run into an error. A consumer that stops early drops \
         its receiver; the producer's next send fails and it ends quietly.\n\
         - **Bridges must keep the blocking end off the runtime.** `blocking_send` and `blocking_recv` panic when \
         called from inside a tokio runtime; here the blocking end is a plain thread (a scoped producer thread, or \
         the calling thread), as it must be in an application.\n\
         - **`stream-tokio-recv-many` holds more in its consumer's hand.** It takes up to {batch} items at once, \
         so its bound is capacity + 1 + min({batch}, capacity) rather than capacity + 2.\n\
         - **Every contestant preserves order and delivers each item exactly once**; the correctness checks above \
         verify it independently of the consumer's own order check."
    );
}

fn jvm(out: &mut String) {
    let _ = writeln!(
        out,
        "The published JVM figures come from another machine and another runtime, so the published reference \
         table sets each beside this run only as a ratio to its own baseline (Reactor's `publishOn` there, \
         `stream-tokio` here). Read `publishOn` with its semantics in mind: it is not a per-item hand-off. Its \
         consumer drains a prefetched queue (256 by default) in a loop and is woken once per burst, which is \
         batching on the receiving side plus a lock-free single-producer queue — the Rust equivalents of that are \
         the batched rows (and, for the receiving side alone, `stream-tokio-recv-many`), not the per-item ones."
    );
}

fn what_to_pick(out: &mut String, summary: &Summary) {
    let c = CLAIM_CAPACITY;
    let caps = capacities(summary);
    let wide = caps.iter().copied().max().unwrap_or(c);
    let best_blocking_batched =
        fastest(summary, ["blocking-crossbeam-batched", "blocking-flume-batched", "blocking-std-batched"], wide);
    let async_batched: Vec<String> = ["stream-tokio-batched", "stream-flume-batched", "stream-futures-batched"]
        .iter()
        .filter_map(|n| ms(summary, n, wide).map(|m| format!("`{n}` {}", num(Some(m)))))
        .collect();
    let best_stream_batched = if async_batched.is_empty() {
        String::new()
    } else {
        format!(" ({} ms/M at capacity {wide})", async_batched.join(", "))
    };
    let describe = |x: Option<(&str, f64)>| {
        x.map_or_else(String::new, |(n, m)| format!(" (`{n}`: {} ms/M at capacity {wide})", num(Some(m))))
    };
    let _ = writeln!(
        out,
        "- **Many small items between threads:** send batches, not items, and give the channel room for several \
         batches{}. crossbeam-channel and std's `sync_channel` share one design (std's is a port, not an identical \
         one: compare their rows at capacity 1); flume \
         sleeps without spinning first, which leaves the other core alone while it waits.\n\
         - **Inside async code:** a bounded channel of `Vec`s between tasks{}: batched, the three async channels \
         are close, and tokio's is the natural default on a tokio runtime (`ReceiverStream`, a thin wrapper over \
         `poll_recv`, lets stream-shaped code consume it; futures' channel allocates a node per message). If \
         items arrive one at a time, `recv_many` on the consumer helps a little; batching at the source helps far \
         more.\n\
         - **Stages that can share a thread:** run them as tasks on one current-thread runtime: no wake-ups, no \
         context switches, no second core (`{CURRENT_THREAD}-batched` {} ms/M; per item {} ms/M).\n\
         - **Crossing between blocking code and async code:** tokio's `blocking_send` / `blocking_recv` from a \
         thread outside the runtime, carrying batches: the per-item bridge costs {} ms/M, batched {} ms/M.\n\
         - **Capacity:** 1 puts the two ends in lock step (a wake-up per item for channels that park); a few \
         batches' worth is enough to decouple them, and more only holds more memory.\n\
         - **Do not hand-write the Mutex + Condvar queue** for throughput: it is the floor the channel crates \
         exist to beat ({} ms/M per item against {} for the fastest crate here).",
        describe(best_blocking_batched),
        best_stream_batched,
        num(ms(summary, "stream-tokio-current-thread-batched", c)),
        num(ms(summary, CURRENT_THREAD, c)),
        num(ms(summary, "stream-bridge-blocking-send", c)),
        num(ms(summary, "stream-bridge-blocking-send-batched", c)),
        num(ms(summary, CONDVAR, c)),
        num(fastest(summary, BLOCKING_CRATES, c).map(|(_, m)| m)),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claims::tests::summary_with;

    #[test]
    fn every_figure_comes_from_the_summary() {
        let summary = summary_with(&[
            (LOOP, 256, 1.25),
            ("blocking-crossbeam", 256, 62.5),
            ("blocking-crossbeam-batched", 256, 3.125),
            (CURRENT_THREAD, 256, 115.0),
        ]);
        let text = discussion(&summary);
        assert!(text.contains("1.25"), "{text}");
        assert!(text.contains("20.0×"), "{text}"); // crossbeam per item over batched
        assert!(text.contains("fastest cross-thread pair, `blocking-crossbeam`, is faster"), "{text}");
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
}
