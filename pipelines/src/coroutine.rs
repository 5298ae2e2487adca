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
//!   once per process, so the first configuration of a process is the one in force; a different one asked later
//!   is refused ([`try_configure`], below), never silently ignored.
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
//!
//! # One configuration per process, checked
//!
//! `may` 0.3 keeps one scheduler per process, made on first use (`scheduler.rs`: `get_scheduler` behind a
//! `Once`, reached by the first spawn): only then does it read its carrier count, its pinning, its pool capacity
//! and its default stack size, and build the pool. A setting changed afterwards lands in `may`'s globals and is
//! never read by the running scheduler, with one dangerous exception: the default stack size is read again at
//! every spawn and every recycling, so after a late `set_stack_size(n)` a coroutine asking `n` words is handed a
//! pooled stack of the *old* size (an overflow into the guard page when the old one was smaller).
//!
//! So [`try_configure`] is the checked entry point: the first configuration of a process is set and kept; the
//! same settings again ([`MaySettings`]: carriers, stack words, pool capacity, pinning) are accepted; different
//! ones are refused with [`ConfigError::ConfigMismatch`], which names what was asked and what is in force, and
//! `may`'s globals are left alone. [`configure_with`], [`configure`] and [`CoroutineConfig::apply`] keep their
//! old contract for their callers (they return what is in force), but a refusal is no longer silent: it is
//! recorded for [`verify`] and handed to the hook set by [`on_refusal`], which the lab's trial process uses to
//! stop before timing anything (a setup error: the lab exits 2).
//!
//! What is detected of a scheduler started by someone else, before any configuration here:
//!
//! - a coroutine spawned through [`spawn`] before any configuration: detected (a flag [`spawn`] sets), refused
//!   with [`ConfigError::StartedUnconfigured`];
//! - `may` configured through `may::config()` directly, outside this module, with anything but `may`'s defaults
//!   for the stack size, the pool capacity or the pinning: detected when the first configuration here reads
//!   `may`'s globals, refused with [`ConfigError::ConfiguredElsewhere`]; after a configuration here, [`verify`]
//!   compares `may`'s globals with it and reports a change ([`ConfigError::ChangedElsewhere`]);
//! - the scheduler started with `may`'s defaults by a coroutine spawned outside this module (`may::coroutine::spawn`,
//!   `go!`, `may::coroutine::scope`) before any configuration here: **not detected**. `may` 0.3 exposes no way to
//!   ask whether its scheduler exists without creating it, and its globals read the same before and after such a
//!   start (`get_workers` stores the CPU count the first time it is read, by the scheduler or by anyone), so
//!   nothing tells the two apart. Only the rule keeps it from happening: in a lab process, configure before the
//!   first coroutine.
//!
//! # Why several configurations in one process hang
//!
//! A second configuration never reaches the running scheduler, so the code that asked for it runs on the
//! carriers of the first. Code that keeps `may`'s rules only parks coroutines and runs on any number of carriers;
//! code that blocks its carrier thread somewhere (a `std::sync` wait, like the bounded `Condvar` wait of the
//! caller-cancel point in [`crate::cancel`]) needs a free carrier for whatever ends that wait. On one carrier
//! kept from an earlier configuration while two were asked for, the coroutine that would end the wait is queued
//! behind the blocked carrier and cannot run: the wait lasts until its own timeout, or forever when it has none
//! (`tests/may_config.rs` shows it, bounded). More carriers do not always save it: a coroutine spawned or woken
//! from outside a carrier (by a plain thread, such as a dependency's completer) goes to one carrier's incoming
//! queue, chosen round robin, and an idle carrier steals only from the others' local queues, never from
//! their incoming ones, so it waits for its own carrier even while another is idle. The checked entry point
//! makes the silent case impossible: the second, different configuration is refused, naming both.
//!
//! Overload's conformance hang (every check of the coroutine contestants "no answer within 30 s" when all of
//! them ran in one test process, each passing alone) was not a second configuration: every coroutine contestant
//! of that scenario asked the same one (then 2 carriers, now one per CPU). It did not come back when the 25
//! conformance tests ran in one process, with 2, 8 and 25 test threads on a 2-core machine, on the code 5ddedb0
//! reported it on (its parent, f7bd552) nor on dead9e9; the starvation above (a carrier blocked in a
//! thread-blocking wait while the coroutine that ends it is queued on that same carrier) is the likeliest family,
//! but its cause was not reproduced. Those tests still run one contestant per process
//! (`testkit::own_process!`), as the lab runs trials, because their checks count process-wide resources.

use std::fmt;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use may::coroutine::{Builder, JoinHandle};

use crate::live::LiveStages;

/// `may`'s default coroutine stack, in machine words (0x1000 words: 32 KiB on 64-bit).
pub const DEFAULT_STACK_WORDS: usize = 0x1000;

/// A small stack, in machine words (0x400 words: 8 KiB on 64-bit), enough for the lab's waiting bodies.
pub const SMALL_STACK_WORDS: usize = 0x400;

/// `may`'s default pool capacity: coroutines (with their stacks) it pre-builds when its scheduler starts and keeps
/// for reuse.
pub const DEFAULT_POOL_CAPACITY: usize = 1_000;

/// What this process configured, and the first configuration it refused.
#[derive(Debug)]
struct Registry {
    /// The configuration set by the first successful configuration of this process.
    in_force: Option<CoroutineConfig>,
    /// The first refusal, which [`verify`] reports.
    refused: Option<ConfigError>,
}

/// This process's [`Registry`].
static REGISTRY: Mutex<Registry> = Mutex::new(Registry { in_force: None, refused: None });

/// `may`'s settings when [`spawn`] first ran before any configuration here: the scheduler started with them.
static STARTED_UNCONFIGURED: OnceLock<MaySettings> = OnceLock::new();

/// Whether [`spawn`] has run before any configuration (the fast check before [`STARTED_UNCONFIGURED`]).
static SPAWNED: AtomicBool = AtomicBool::new(false);

/// Whether this process has configured `may` (the one atomic load [`spawn`] pays).
static CONFIGURED: AtomicBool = AtomicBool::new(false);

/// Called with every refusal ([`on_refusal`]).
static ON_REFUSAL: OnceLock<fn(&ConfigError)> = OnceLock::new();

fn registry() -> std::sync::MutexGuard<'static, Registry> {
    // Every update is one assignment, so a poisoned lock still holds consistent values.
    REGISTRY.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What `may` is told, and reads once when its scheduler starts: the settings a second configuration of the same
/// process must match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MaySettings {
    /// Carrier threads (`set_workers`).
    pub carriers: usize,
    /// Default coroutine stack, in machine words (`set_stack_size`): the size of the pool's stacks.
    pub stack_words: usize,
    /// Coroutines pre-built and kept for reuse (`set_pool_capacity`).
    pub pool_capacity: usize,
    /// Whether carriers are pinned to cores (`set_worker_pin`).
    pub pinned: bool,
}

impl MaySettings {
    /// What [`try_configure`] tells `may` for `config`: at least one carrier, a pool of at least one, not pinned.
    pub fn asked(config: &CoroutineConfig) -> MaySettings {
        MaySettings {
            carriers: config.carriers.max(1),
            stack_words: config.stack_words,
            pool_capacity: config.pool_capacity.max(1),
            pinned: false,
        }
    }

    /// `may`'s globals now, its carrier count aside (reading it stores the CPU count when it was never set).
    fn read_without_carriers(carriers: usize) -> MaySettings {
        let config = may::config();
        MaySettings {
            carriers,
            stack_words: config.get_stack_size(),
            pool_capacity: config.get_pool_capacity(),
            pinned: config.get_worker_pin(),
        }
    }

    /// `may`'s globals now (the carrier count included, which, when it was never set, stores the CPU count as
    /// `may`'s scheduler does when it starts).
    fn read() -> MaySettings {
        MaySettings::read_without_carriers(may::config().get_workers())
    }

    /// Whether the stack, pool and pinning are `may`'s own defaults (what they read before anyone set them).
    fn untouched(&self) -> bool {
        self.stack_words == DEFAULT_STACK_WORDS && self.pool_capacity == DEFAULT_POOL_CAPACITY && self.pinned
    }
}

impl fmt::Display for MaySettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} carrier thread{} ({}), stacks of {:#x} words ({} KiB), a pool of {} pre-built stack{}",
            self.carriers,
            if self.carriers == 1 { "" } else { "s" },
            if self.pinned { "pinned to cores" } else { "not pinned" },
            self.stack_words,
            self.stack_words * std::mem::size_of::<usize>() / 1024,
            self.pool_capacity,
            if self.pool_capacity == 1 { "" } else { "s" },
        )
    }
}

/// Why `may` cannot run with the configuration asked for in this process.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// `may` is already configured here with other settings: its one scheduler would keep them.
    #[error(
        "`may` is already configured in this process with {in_force}, not the {asked} asked for: `may` keeps one \
         scheduler per process and reads its configuration once, when it starts, so the second one would be \
         ignored"
    )]
    ConfigMismatch {
        /// The settings asked for.
        asked: MaySettings,
        /// The settings in force.
        in_force: MaySettings,
    },
    /// A coroutine was spawned ([`spawn`]) before any configuration: the scheduler started with `may`'s defaults.
    #[error(
        "`may`'s scheduler was started in this process by a coroutine spawned before any configuration, with \
         {started}, not the {asked} asked for: configure `may` before the first coroutine"
    )]
    StartedUnconfigured {
        /// The settings asked for.
        asked: MaySettings,
        /// `may`'s settings when the scheduler started.
        started: MaySettings,
    },
    /// `may` was configured through `may::config()` outside this module before any configuration here.
    #[error(
        "`may` was configured outside `pipelines::coroutine` before any configuration here ({found}), and its \
         scheduler may already run with that, not the {asked} asked for"
    )]
    ConfiguredElsewhere {
        /// The settings asked for.
        asked: MaySettings,
        /// `may`'s settings as found.
        found: MaySettings,
    },
    /// `may`'s settings were changed through `may::config()` after the configuration here.
    #[error(
        "`may`'s settings were changed outside `pipelines::coroutine` after it configured {in_force}: they now \
         read {found}, which the running scheduler ignores (but for the stack size, which its pool then mismatches)"
    )]
    ChangedElsewhere {
        /// The settings configured here, in force.
        in_force: MaySettings,
        /// `may`'s settings now.
        found: MaySettings,
    },
}

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

    /// Configure `may` with this configuration ([`configure_with`]); returns the carrier count in force. A
    /// different configuration already in force is not applied: the refusal is recorded for [`verify`] and handed
    /// to the hook of [`on_refusal`] (the lab's trial process stops there). [`CoroutineConfig::try_apply`] is the
    /// checked form.
    pub fn apply(&self) -> usize {
        configure_with(*self).carriers
    }

    /// Configure `may` with this configuration, checked ([`try_configure`]): the configuration in force, or why
    /// `may` cannot run with this one in this process.
    ///
    /// # Errors
    ///
    /// As [`try_configure`].
    pub fn try_apply(&self) -> Result<CoroutineConfig, ConfigError> {
        try_configure(*self)
    }

    /// What this configuration tells `may` ([`MaySettings::asked`]).
    pub fn settings(&self) -> MaySettings {
        MaySettings::asked(self)
    }
}

/// Carrier threads for one per CPU this process may use: `available_parallelism`, which honours the affinity mask
/// (the CPUs `lab --cores` pins a trial to), as tokio sizes its default runtime.
pub fn carriers_per_core() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// Set `may`'s carrier-thread count to `carriers` (at least 1), `may`'s default stack and pool, and turn carrier
/// pinning off ([`configure_with`]); returns the carrier count in force.
pub fn configure(carriers: usize) -> usize {
    configure_with(CoroutineConfig::new(carriers)).carriers
}

/// Configure `may` with `config` ([`try_configure`]) and return the configuration in force, for callers that go
/// on with it whatever it is. A refusal is not silent: it is recorded for [`verify`] and handed to the hook of
/// [`on_refusal`]; the configuration returned is then the one in force (the first one), or, when `may` was
/// started or configured elsewhere, `may`'s settings as found.
pub fn configure_with(config: CoroutineConfig) -> CoroutineConfig {
    match try_configure(config) {
        Ok(in_force) => in_force,
        Err(ConfigError::ConfigMismatch { .. } | ConfigError::ChangedElsewhere { .. }) => {
            registry().in_force.unwrap_or(config)
        }
        Err(
            ConfigError::StartedUnconfigured { started: found, .. } | ConfigError::ConfiguredElsewhere { found, .. },
        ) => CoroutineConfig {
            carriers: found.carriers,
            stack_words: found.stack_words,
            pool_capacity: found.pool_capacity,
            per_core: false,
        },
    }
}

/// Configure `may` with `config`, checked: its carriers (at least 1, not pinned), its stack as `may`'s default
/// stack (so `may`'s pool holds stacks of the size the contestant spawns) and its pool capacity, which `may`
/// reads once, when its scheduler starts. The first configuration of the process is set and returned; a later
/// one with the same [`MaySettings`] returns the configuration in force (the first one).
///
/// # Errors
///
/// Without touching `may`'s settings: [`ConfigError::ConfigMismatch`] when this process is already configured
/// with other settings; [`ConfigError::StartedUnconfigured`] when a coroutine was spawned through [`spawn`]
/// before any configuration; [`ConfigError::ConfiguredElsewhere`] when `may`'s stack size, pool capacity or
/// pinning were set outside this module first. Each refusal is also recorded for [`verify`] and handed to the
/// hook of [`on_refusal`]. A scheduler started with `may`'s defaults by a coroutine spawned outside this module
/// cannot be detected (see the module's documentation).
pub fn try_configure(config: CoroutineConfig) -> Result<CoroutineConfig, ConfigError> {
    let asked = MaySettings::asked(&config);
    let outcome = {
        let mut registry = registry();
        let outcome = match registry.in_force {
            Some(in_force) if MaySettings::asked(&in_force) == asked => Ok(in_force),
            Some(in_force) => Err(ConfigError::ConfigMismatch { asked, in_force: MaySettings::asked(&in_force) }),
            None => first_configuration(config, asked),
        };
        match &outcome {
            Ok(in_force) => {
                registry.in_force = Some(*in_force);
                CONFIGURED.store(true, Ordering::SeqCst);
            }
            Err(refusal) => {
                registry.refused.get_or_insert_with(|| refusal.clone());
            }
        }
        outcome
    };
    if let (Err(refusal), Some(hook)) = (&outcome, ON_REFUSAL.get()) {
        hook(refusal);
    }
    outcome
}

/// The first configuration of this process (the registry locked): refused when `may` was started or configured
/// elsewhere, else set.
fn first_configuration(config: CoroutineConfig, asked: MaySettings) -> Result<CoroutineConfig, ConfigError> {
    if SPAWNED.load(Ordering::SeqCst) {
        if let Some(started) = STARTED_UNCONFIGURED.get() {
            return Err(ConfigError::StartedUnconfigured { asked, started: *started });
        }
    }
    // The carrier count is left out: reading it would store the CPU count, and a count set elsewhere but never
    // started is harmless, as this configuration replaces it before the scheduler starts.
    let found = MaySettings::read_without_carriers(asked.carriers);
    if !found.untouched() {
        return Err(ConfigError::ConfiguredElsewhere { asked, found: MaySettings::read() });
    }
    may::config().set_workers(asked.carriers).set_stack_size(asked.stack_words).set_pool_capacity(asked.pool_capacity);
    may::config().set_worker_pin(asked.pinned);
    Ok(CoroutineConfig { carriers: asked.carriers, pool_capacity: asked.pool_capacity, ..config })
}

/// Whether `may` runs as this process configured it: `Ok(None)` when nothing configured it here,
/// `Ok(Some(config))` when it is configured and nothing was refused or changed since, else the first refusal, or
/// the change found in `may`'s settings. What the lab's trial process checks before timing a contestant.
///
/// # Errors
///
/// The first configuration this process refused ([`try_configure`]), or [`ConfigError::ChangedElsewhere`] when
/// `may`'s settings no longer read what was configured.
pub fn verify() -> Result<Option<CoroutineConfig>, ConfigError> {
    let registry = registry();
    if let Some(refused) = &registry.refused {
        return Err(refused.clone());
    }
    let Some(in_force) = registry.in_force else { return Ok(None) };
    let configured = MaySettings::asked(&in_force);
    let found = MaySettings::read();
    if found != configured {
        return Err(ConfigError::ChangedElsewhere { in_force: configured, found });
    }
    Ok(Some(in_force))
}

/// Call `hook` with every configuration refused in this process from now on ([`try_configure`], and the
/// unchecked [`configure_with`] and [`CoroutineConfig::apply`]), as it happens, before the refused caller goes on.
/// The lab's trial process sets one that ends the trial as a setup error. Only the first hook set counts; returns
/// whether this one was set.
pub fn on_refusal(hook: fn(&ConfigError)) -> bool {
    ON_REFUSAL.set(hook).is_ok()
}

/// The configuration in force, if [`configure_with`] has run in this process.
pub fn config_in_force() -> Option<CoroutineConfig> {
    registry().in_force
}

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
/// until its body has returned or unwound (a panic is caught by `may` and returned by `JoinHandle::join`). Spawned
/// before any configuration, it starts `may`'s scheduler with `may`'s defaults, and a later [`try_configure`] is
/// refused ([`ConfigError::StartedUnconfigured`]).
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
    if !CONFIGURED.load(Ordering::Relaxed) {
        note_unconfigured_spawn();
    }
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

/// A coroutine is about to be spawned before any configuration: `may`'s scheduler starts (if it has not) with
/// the settings its globals hold now, which a later [`try_configure`] reports.
#[cold]
fn note_unconfigured_spawn() {
    if registry().in_force.is_none() {
        STARTED_UNCONFIGURED.get_or_init(MaySettings::read);
        SPAWNED.store(true, Ordering::SeqCst);
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
        // Every test of this binary that configures `may` asks for the lab's per-core configuration.
        CoroutineConfig::per_core().try_apply().expect("one configuration in this test process");
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
        // Every test of this binary that configures `may` asks for the lab's per-core configuration.
        CoroutineConfig::per_core().try_apply().expect("one configuration in this test process");
        let live = Arc::new(LiveStages::new());
        let (tx, rx) = may::sync::mpsc::channel::<()>();
        let handle = spawn("held", DEFAULT_STACK_WORDS, &live, move || rx.recv().is_ok()).expect("spawn");
        assert_eq!(live.current(), 1);
        tx.send(()).expect("send");
        assert_eq!(handle.join().ok(), Some(true));
        assert_eq!(live.current(), 0);
    }
}
