//! The coroutine family's common ground: stackful coroutines from the `may` crate (0.3), configured in the open.
//!
//! `may` runs coroutines on a fixed pool of **carrier threads** (its "workers", work-stealing, each also running
//! an I/O event loop) plus one timer thread, which resumes a coroutine whose timer fired (`coroutine::sleep`,
//! `park_timeout`) and runs it until its next wait, so timer-woken code runs on that extra thread; a coroutine that blocks in one of `may`'s primitives
//! (channel `recv`, `Semphore::wait`, `coroutine::sleep`, `coroutine::park`, a `JoinHandle::join` inside a
//! coroutine) parks the coroutine, and its carrier runs another. Two settings matter and both are set here,
//! explicitly, never left to defaults a reader cannot see:
//!
//! - **Carriers**: [`configure`] calls `may::config().set_workers(n)` (and turns `may`'s default pinning of
//!   carriers to cores off, as tokio does not pin) before the scheduler first starts. `may` reads the setting
//!   once per process: the first [`configure`] wins and later calls report the count actually in force, which
//!   in a lab trial (one contestant per process) is always the one asked for.
//! - **Stack size**: every coroutine here is spawned with an explicit `Builder::stack_size` ([`spawn`]), in
//!   machine words as `may` counts it. [`DEFAULT_STACK_WORDS`] is `may`'s own default (0x1000 words = 32 KiB on
//!   64-bit, plus a guard page).
//! - **Stack pool**: when its scheduler starts, `may` builds a pool of pre-made coroutines (1,000 by default,
//!   `set_pool_capacity`) whose stacks have `may`'s *configured* default size, and it draws a new coroutine from
//!   the pool, and returns an ended one to it, only when the requested stack equals that size; any other size
//!   maps a fresh stack and unmaps it at the end. [`configure_with`] therefore sets `may`'s default stack to the
//!   contestant's own, so a pool, if any, holds stacks of the size the contestant spawns: every stack size is
//!   treated alike. A contestant that measures memory sets the pool's capacity to 1
//!   ([`CoroutineConfig::with_pool_capacity`]), so every unit it measures maps a fresh stack.
//!
//! What `may` asks of its users (its README's "Caveat"): do not call thread-blocking APIs inside a coroutine
//! (`std::thread::sleep`, `std::sync` locks held for long, `std::sync::mpsc`, blocking I/O) — they block the
//! carrier and every coroutine queued on it; do not hold a thread-local across a point where the coroutine may be
//! rescheduled (it may resume on another carrier: spawning is `unsafe` for that reason); do not run long
//! CPU-bound stretches without yielding if fairness matters; do not overflow the fixed stack (a guard page turns
//! overflow into a segfault). The lab's coroutine bodies use only `may`'s primitives to wait and keep no
//! thread-local across a wait, which is the safety argument of [`spawn`].

use std::fmt;
use std::io;
use std::sync::{Arc, OnceLock};

use may::coroutine::{Builder, JoinHandle};

use crate::live::LiveStages;

/// `may`'s default coroutine stack, in machine words (0x1000 words: 32 KiB on 64-bit).
pub const DEFAULT_STACK_WORDS: usize = 0x1000;

/// A small stack, in machine words (0x400 words: 8 KiB on 64-bit), enough for the lab's waiting bodies.
pub const SMALL_STACK_WORDS: usize = 0x400;

/// `may`'s default pool capacity: coroutines (with their stacks) it pre-builds when its scheduler starts and keeps
/// for reuse.
pub const DEFAULT_POOL_CAPACITY: usize = 1_000;

/// The configuration set by the first [`configure_with`] of this process.
static CONFIGURED: OnceLock<CoroutineConfig> = OnceLock::new();

/// How a coroutine contestant configures `may`: carrier threads, stack size and stack pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoroutineConfig {
    /// Carrier (worker) threads `may` schedules coroutines on; at least 1.
    pub carriers: usize,
    /// Stack of each coroutine, in machine words (even: `may` prints usage for odd sizes); also `may`'s default
    /// stack, the size its pool holds.
    pub stack_words: usize,
    /// Coroutines `may` pre-builds and keeps for reuse (at least 1; `may`'s default is
    /// [`DEFAULT_POOL_CAPACITY`]).
    pub pool_capacity: usize,
    /// `carriers` is one per CPU this process may use ([`CoroutineConfig::per_core`]): the description says so
    /// rather than a count, since the lab describes a contestant in its own process, whose CPUs a `--cores` pin
    /// of the trial process does not change.
    pub per_core: bool,
}

impl CoroutineConfig {
    /// `carriers` carrier threads, `may`'s default stack and pool.
    pub const fn new(carriers: usize) -> Self {
        CoroutineConfig {
            carriers,
            stack_words: DEFAULT_STACK_WORDS,
            pool_capacity: DEFAULT_POOL_CAPACITY,
            per_core: false,
        }
    }

    /// One carrier per CPU this process may use ([`carriers_per_core`]), `may`'s default stack and pool: the
    /// coroutine family's counterpart of tokio's default runtime, one worker per CPU, so both follow a `--cores`
    /// pin alike.
    pub fn per_core() -> Self {
        CoroutineConfig { per_core: true, ..Self::new(carriers_per_core()) }
    }

    /// The same with a stack of `stack_words` words.
    pub const fn with_stack_words(self, stack_words: usize) -> Self {
        CoroutineConfig { stack_words, ..self }
    }

    /// The same with a pool of `capacity` coroutines (at least 1: `may` reads 0 as its default).
    pub const fn with_pool_capacity(self, capacity: usize) -> Self {
        CoroutineConfig { pool_capacity: if capacity == 0 { 1 } else { capacity }, ..self }
    }

    /// The stack in bytes (without the guard page).
    pub const fn stack_bytes(&self) -> usize {
        self.stack_words * std::mem::size_of::<usize>()
    }

    /// The configuration in words for a contestant's description.
    pub fn describe(&self) -> String {
        let pool = if self.pool_capacity == DEFAULT_POOL_CAPACITY {
            "`may`'s default pool of 1,000 pre-built stacks of that size".to_string()
        } else {
            format!(
                "stack pool of {} (`set_pool_capacity`, not `may`'s default 1,000): every coroutine maps a fresh stack",
                self.pool_capacity
            )
        };
        let carriers = if self.per_core {
            "one carrier thread per CPU the trial may use".to_string()
        } else {
            format!("{} carrier thread{}", self.carriers, if self.carriers == 1 { "" } else { "s" })
        };
        format!(
            "`may` 0.3, {carriers} (`may::config().set_workers`, not pinned), {} KiB stack per coroutine \
             (`Builder::stack_size({:#x})` words, also `may`'s default stack), {pool}",
            self.stack_bytes() / 1024,
            self.stack_words
        )
    }

    /// Configure `may` with this configuration ([`configure_with`]); returns the carrier count in force.
    pub fn apply(&self) -> usize {
        configure_with(*self).carriers
    }
}

/// Carrier threads for one per CPU this process may use: `available_parallelism`, which honours the affinity mask
/// (the CPUs `lab --cores` pins a trial to), as tokio sizes its default runtime.
pub fn carriers_per_core() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// Set `may`'s carrier-thread count to `carriers` (at least 1), `may`'s default stack and pool, and turn carrier
/// pinning off, if this process has not configured `may` yet; returns the carrier count in force (the first
/// configured one).
pub fn configure(carriers: usize) -> usize {
    configure_with(CoroutineConfig::new(carriers)).carriers
}

/// Configure `may` with `config`, if this process has not configured it yet: its carriers (at least 1, not
/// pinned), its stack as `may`'s default stack (so `may`'s pool holds stacks of the size the contestant spawns)
/// and its pool capacity. `may` reads these once, when its scheduler starts; the configuration in force (the first
/// one) is returned.
pub fn configure_with(config: CoroutineConfig) -> CoroutineConfig {
    *CONFIGURED.get_or_init(|| {
        let config =
            CoroutineConfig { carriers: config.carriers.max(1), ..config.with_pool_capacity(config.pool_capacity) };
        may::config()
            .set_workers(config.carriers)
            .set_stack_size(config.stack_words)
            .set_pool_capacity(config.pool_capacity);
        may::config().set_worker_pin(false);
        config
    })
}

/// The carrier count in force, if [`configure`] has run in this process.
pub fn carriers_in_force() -> Option<usize> {
    CONFIGURED.get().map(|c| c.carriers)
}

/// The configuration in force, if [`configure_with`] has run in this process.
pub fn config_in_force() -> Option<CoroutineConfig> {
    CONFIGURED.get().copied()
}

/// What `may` asks of code that runs on its coroutines, for every report's semantics section, as tokio's
/// cooperative budget is named there: `None` when the run has no coroutine-family contestant. The words are in
/// `templates/coroutine-rules.md`; the long form, with sources, is `docs/coroutines.md`.
pub fn rules_note(summary: &measure::summary::Summary) -> Option<String> {
    let coroutines: Vec<String> = summary
        .contestants
        .iter()
        .filter(|c| c.family == measure::summary::Family::Coroutine)
        .map(|c| format!("`{}`", c.name))
        .collect();
    if coroutines.is_empty() {
        return None;
    }
    let context = serde_json::json!({ "coroutines": coroutines });
    Some(measure::template::render_or_note("coroutine-rules.md", RULES_TEMPLATE, context))
}

/// The words of [`rules_note`].
const RULES_TEMPLATE: &str = include_str!("templates/coroutine-rules.md");

/// Memory maps one `may` coroutine's stack takes: the `mmap`ed stack and its guard page.
pub const MAPS_PER_COROUTINE: u64 = 2;

/// Why `coroutines` more `may` coroutines would not fit under `vm.max_map_count` with `margin` maps left over, or
/// `None` if they fit (or the limit cannot be read). Past the limit `may` panics while allocating a stack, so a
/// contestant asks first and is skipped with this reason.
pub fn map_limit_refusal(coroutines: u64, margin: u64) -> Option<String> {
    let limits = measure::limits::ThreadLimits::read();
    let (max, used) = limits.max_map_count.zip(limits.maps_in_use)?;
    let wanted = coroutines.saturating_mul(MAPS_PER_COROUTINE);
    if used.saturating_add(wanted).saturating_add(margin) <= max {
        return None;
    }
    let allows = max.saturating_sub(used).saturating_sub(margin) / MAPS_PER_COROUTINE;
    let needed = used.saturating_add(wanted).saturating_add(margin);
    Some(format!(
        "{} may coroutines cannot exist: vm.max_map_count is {} with {} memory maps in use by this process, and \
         every coroutine stack takes {} (`generator` maps each stack and protects its guard page, which splits it \
         in two; neither `may` 0.3 nor `generator` 0.8 can drop the guard or share a map), which allows about {}; \
         raising vm.max_map_count to at least {} (`sysctl -w vm.max_map_count=...`, as root) lets them run, at no \
         cost in resident memory (the kernel keeps a few hundred bytes per map outside VmRSS)",
        measure::units::thousands(coroutines),
        measure::units::thousands(max),
        measure::units::thousands(used),
        MAPS_PER_COROUTINE,
        measure::units::thousands(allows),
        measure::units::thousands(needed)
    ))
}

/// Spawn `body` as a coroutine with a stack of `stack_words` words, counted in `live` from before it is spawned
/// until its body has returned or unwound (a panic is caught by `may` and returned by `JoinHandle::join`).
///
/// # Errors
///
/// If `may` cannot allocate the coroutine's stack.
pub fn spawn<T: Send + 'static>(
    name: &str,
    stack_words: usize,
    live: &Arc<LiveStages>,
    body: impl FnOnce() -> T + Send + 'static,
) -> io::Result<JoinHandle<T>> {
    let guard = live.enter();
    let builder = Builder::new().name(name.to_string()).stack_size(stack_words);
    // SAFETY: `may` marks spawning unsafe because a coroutine may resume on another carrier thread, so a
    // thread-local read before a wait and used after it could belong to another thread. The lab's coroutine
    // bodies hold no thread-local across a wait (they wait only in `may`'s primitives or the dependency's
    // coroutine-aware completion), and their captures are `Send + 'static`.
    unsafe {
        builder.spawn(move || {
            let _guard = guard;
            body()
        })
    }
}

/// A bounded channel for coroutines: `may::sync::mpsc::channel` is unbounded, so a `may::sync::Semphore` of
/// `capacity` permits bounds it (a permit taken before each send, returned after each receive). Both ends park the
/// coroutine, never the carrier.
pub fn bounded<T>(capacity: usize) -> (BoundedSender<T>, BoundedReceiver<T>) {
    let (tx, rx) = may::sync::mpsc::channel();
    let permits = Arc::new(may::sync::Semphore::new(capacity.max(1)));
    (BoundedSender { tx, permits: Arc::clone(&permits) }, BoundedReceiver { rx: Some(rx), permits })
}

/// The sending end of [`bounded`].
pub struct BoundedSender<T> {
    tx: may::sync::mpsc::Sender<T>,
    permits: Arc<may::sync::Semphore>,
}

impl<T> fmt::Debug for BoundedSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BoundedSender").finish_non_exhaustive()
    }
}

impl<T> BoundedSender<T> {
    /// Send `value`, parking while the channel is full; `Err(value)` once the receiver is gone.
    pub fn send(&self, value: T) -> Result<(), T> {
        self.permits.wait();
        self.tx.send(value).map_err(|e| e.0)
    }
}

/// The receiving end of [`bounded`]. Dropping it drops the receiver first, so a send fails, then posts a permit,
/// so a sender parked for one wakes to find the receiver gone instead of waiting forever.
pub struct BoundedReceiver<T> {
    rx: Option<may::sync::mpsc::Receiver<T>>,
    permits: Arc<may::sync::Semphore>,
}

impl<T> fmt::Debug for BoundedReceiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BoundedReceiver").finish_non_exhaustive()
    }
}

impl<T> BoundedReceiver<T> {
    /// The next message, parking while the channel is empty; `None` once every sender is gone and it is empty.
    pub fn recv(&self) -> Option<T> {
        let value = self.rx.as_ref()?.recv().ok()?;
        self.permits.post();
        Some(value)
    }
}

impl<T> Drop for BoundedReceiver<T> {
    fn drop(&mut self) {
        drop(self.rx.take());
        self.permits.post();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_configuration_is_described_in_the_open() {
        let config = CoroutineConfig::new(2).with_stack_words(SMALL_STACK_WORDS);
        assert_eq!(config.stack_bytes(), SMALL_STACK_WORDS * std::mem::size_of::<usize>());
        let text = config.describe();
        assert!(text.contains("2 carrier threads"), "{text}");
        assert!(text.contains("0x400"), "{text}");
    }

    #[test]
    fn a_per_core_configuration_says_so_rather_than_the_describing_process_count() {
        let config = CoroutineConfig::per_core();
        assert_eq!(config.carriers, carriers_per_core());
        let text = config.describe();
        assert!(text.contains("one carrier thread per CPU the trial may use"), "{text}");
        assert!(!CoroutineConfig::new(1).describe().contains("per CPU"));
    }

    #[test]
    fn a_bounded_channel_holds_its_capacity_and_wakes_a_parked_sender_when_the_receiver_goes() {
        configure(2);
        let live = Arc::new(LiveStages::new());
        let (tx, rx) = bounded::<u64>(4);
        let sent = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let counted = Arc::clone(&sent);
        let sender = spawn("sender", DEFAULT_STACK_WORDS, &live, move || {
            let mut i = 0;
            while tx.send(i).is_ok() {
                i += 1;
                counted.store(i, std::sync::atomic::Ordering::Release);
            }
            i
        })
        .expect("spawn");
        // The sender parks on the fifth send: it can never have sent more than the capacity.
        while sent.load(std::sync::atomic::Ordering::Acquire) < 4 {
            std::thread::yield_now();
        }
        assert_eq!(rx.recv(), Some(0));
        drop(rx);
        let total = sender.join().expect("the sender ends once the receiver is gone");
        assert!((4..=5).contains(&total), "sent {total}");
        assert_eq!(live.current(), 0);
    }

    #[test]
    fn a_spawned_coroutine_counts_as_live_until_it_ends() {
        configure(2);
        let live = Arc::new(LiveStages::new());
        let (tx, rx) = may::sync::mpsc::channel::<()>();
        let handle = spawn("held", DEFAULT_STACK_WORDS, &live, move || rx.recv().is_ok()).expect("spawn");
        assert_eq!(live.current(), 1);
        tx.send(()).expect("send");
        assert_eq!(handle.join().ok(), Some(true));
        assert_eq!(live.current(), 0);
    }
}
