//! `may` is configured once per process, checked: a second, different configuration is refused naming both, the
//! same one again is accepted, a refusal through the unchecked entry points is recorded and handed to the hook, a
//! scheduler started or configured elsewhere first is reported, and what a silently kept configuration did to a
//! contestant that needs the carriers it asked for (the hang) is shown on one carrier, bounded.
//!
//! Each test runs in a process of its own (`testkit::own_process!`): `may`'s one scheduler, and this module's
//! record of it, are per process.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use pipelines::coroutine::{self, ConfigError, CoroutineConfig, MaySettings, DEFAULT_STACK_WORDS, SMALL_STACK_WORDS};
use pipelines::LiveStages;

/// How long a test waits for what it expects before calling it a failure (never a speed judgement).
const DEADLINE: Duration = Duration::from_secs(20);

fn wait_until(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + DEADLINE;
    while !done() {
        assert!(Instant::now() < deadline, "gave up waiting: {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Refusals handed to the hook in this process.
static REFUSALS: AtomicUsize = AtomicUsize::new(0);

fn count_refusal(_: &ConfigError) {
    REFUSALS.fetch_add(1, Ordering::SeqCst);
}

testkit::own_process! {
    #[test]
    fn a_second_different_configuration_is_refused_naming_both() {
        let first = CoroutineConfig::new(1);
        let second = CoroutineConfig::new(2).with_stack_words(SMALL_STACK_WORDS);
        assert_eq!(coroutine::try_configure(first), Ok(first));
        let refused = coroutine::try_configure(second).expect_err("a second, different configuration");
        assert_eq!(
            refused,
            ConfigError::ConfigMismatch { asked: MaySettings::asked(&second), in_force: MaySettings::asked(&first) }
        );
        let text = refused.to_string();
        assert!(text.contains("1 carrier thread (not pinned), stacks of 0x1000 words (32 KiB)"), "{text}");
        assert!(text.contains("2 carrier threads (not pinned), stacks of 0x400 words (8 KiB)"), "{text}");
        // Nothing of the second reached `may`, and the first stays in force.
        assert_eq!(may::config().get_workers(), 1);
        assert_eq!(may::config().get_stack_size(), DEFAULT_STACK_WORDS);
        assert_eq!(coroutine::config_in_force(), Some(first));
        assert_eq!(coroutine::verify(), Err(refused));
        // Only the pool capacity differing is a mismatch too.
        let pool = coroutine::try_configure(first.with_pool_capacity(1)).expect_err("another pool capacity");
        assert!(pool.to_string().contains("a pool of 1 pre-built stack asked for"), "{pool}");
    }

    #[test]
    fn the_same_configuration_twice_is_accepted() {
        let config = CoroutineConfig::per_core().with_stack_words(SMALL_STACK_WORDS).with_pool_capacity(1);
        assert_eq!(coroutine::try_configure(config), Ok(config));
        assert_eq!(coroutine::try_configure(config), Ok(config));
        // The same settings asked another way (carriers counted rather than per core) are the same configuration.
        let carriers = coroutine::carriers_per_core();
        let counted = CoroutineConfig::new(carriers).with_stack_words(SMALL_STACK_WORDS).with_pool_capacity(1);
        assert_eq!(coroutine::try_configure(counted), Ok(config));
        assert_eq!(config.apply(), carriers);
        assert_eq!(coroutine::verify(), Ok(Some(config)));
        // And `may` runs coroutines with it.
        let live = Arc::new(LiveStages::new());
        let ran = coroutine::spawn("once", SMALL_STACK_WORDS, &live, || 7).expect("spawn");
        assert_eq!(ran.join().ok(), Some(7));
        assert_eq!(coroutine::verify(), Ok(Some(config)));
    }

    #[test]
    fn the_unchecked_entry_points_keep_their_contract_but_record_and_report_the_refusal() {
        assert!(coroutine::on_refusal(count_refusal));
        let first = CoroutineConfig::new(1);
        assert_eq!(coroutine::configure_with(first), first);
        assert_eq!(coroutine::verify(), Ok(Some(first)));
        assert_eq!(REFUSALS.load(Ordering::SeqCst), 0);
        // The second, different one returns the configuration in force, as it always did, but is no longer silent.
        assert_eq!(coroutine::configure_with(CoroutineConfig::new(2)), first);
        assert_eq!(REFUSALS.load(Ordering::SeqCst), 1);
        assert_eq!(CoroutineConfig::new(3).apply(), 1);
        assert_eq!(REFUSALS.load(Ordering::SeqCst), 2);
        // `verify` reports the first refusal.
        match coroutine::verify() {
            Err(ConfigError::ConfigMismatch { asked, in_force }) => {
                assert_eq!((asked.carriers, in_force.carriers), (2, 1));
            }
            other => panic!("expected the first refusal, got {other:?}"),
        }
    }

    #[test]
    fn a_coroutine_spawned_before_any_configuration_is_reported() {
        let live = Arc::new(LiveStages::new());
        let ran = coroutine::spawn("early", DEFAULT_STACK_WORDS, &live, || 1).expect("spawn");
        assert_eq!(ran.join().ok(), Some(1));
        let refused = coroutine::try_configure(CoroutineConfig::new(1)).expect_err("may started with its defaults");
        match &refused {
            ConfigError::StartedUnconfigured { asked, started } => {
                assert_eq!(asked.carriers, 1);
                // `may`'s defaults: pinned carriers, its default stack and pool.
                assert!(started.pinned && started.stack_words == DEFAULT_STACK_WORDS, "{started:?}");
            }
            other => panic!("expected StartedUnconfigured, got {other:?}"),
        }
        assert!(refused.to_string().contains("configure `may` before the first coroutine"), "{refused}");
        assert_eq!(coroutine::config_in_force(), None);
        assert_eq!(coroutine::verify(), Err(refused));
    }

    #[test]
    fn may_configured_elsewhere_first_is_reported() {
        may::config().set_stack_size(SMALL_STACK_WORDS);
        let refused = coroutine::try_configure(CoroutineConfig::new(1)).expect_err("configured outside");
        assert!(
            matches!(refused, ConfigError::ConfiguredElsewhere { found, .. } if found.stack_words == SMALL_STACK_WORDS),
            "{refused:?}"
        );
        assert_eq!(may::config().get_stack_size(), SMALL_STACK_WORDS, "a refusal leaves may's settings alone");
    }

    #[test]
    fn may_changed_elsewhere_after_the_configuration_is_reported() {
        let config = CoroutineConfig::new(1);
        assert_eq!(coroutine::try_configure(config), Ok(config));
        may::config().set_stack_size(SMALL_STACK_WORDS);
        match coroutine::verify() {
            Err(ConfigError::ChangedElsewhere { in_force, found }) => {
                assert_eq!((in_force.stack_words, found.stack_words), (DEFAULT_STACK_WORDS, SMALL_STACK_WORDS));
            }
            other => panic!("expected ChangedElsewhere, got {other:?}"),
        }
    }

    /// The hang, bounded: a process first configured with one carrier, then a contestant that asks for two and
    /// blocks its carrier until a second coroutine answers (a thread-blocking wait, as the caller-cancel point's
    /// `Condvar` is). The checked entry point refuses the second configuration; the unchecked one, as it always
    /// did, leaves the one carrier in force, and there the answering coroutine cannot run until the blocked one
    /// gives up: without a timeout on its wait, that is a hang.
    #[test]
    fn a_silently_kept_configuration_starves_a_contestant_that_needed_the_carriers_it_asked_for() {
        assert_eq!(coroutine::configure(1), 1);
        let asked = CoroutineConfig::new(2);
        assert!(matches!(coroutine::try_configure(asked), Err(ConfigError::ConfigMismatch { .. })));
        assert_eq!(coroutine::configure_with(asked).carriers, 1, "what the old, silent contract gave it");

        let live = Arc::new(LiveStages::new());
        let (tx, rx) = mpsc::channel::<()>();
        let blocking = Arc::new(AtomicBool::new(false));
        let answered = Arc::new(AtomicBool::new(false));
        let waiter = {
            let (blocking, answered) = (Arc::clone(&blocking), Arc::clone(&answered));
            coroutine::spawn("waiter", DEFAULT_STACK_WORDS, &live, move || {
                blocking.store(true, Ordering::SeqCst);
                // Thread-blocking, bounded: on the one carrier nothing else runs meanwhile.
                let got = rx.recv_timeout(Duration::from_secs(1));
                (got.is_ok(), answered.load(Ordering::SeqCst))
            })
            .expect("spawn the waiter")
        };
        wait_until("the waiter blocks its carrier", || blocking.load(Ordering::SeqCst));
        let answerer = {
            let answered = Arc::clone(&answered);
            coroutine::spawn("answerer", DEFAULT_STACK_WORDS, &live, move || {
                answered.store(true, Ordering::SeqCst);
                let _ = tx.send(());
            })
            .expect("spawn the answerer")
        };
        let (received, answerer_had_run) = waiter.join().expect("the waiter ends at its timeout");
        assert!(!received && !answerer_had_run, "the answerer ran while the only carrier was blocked");
        answerer.join().expect("the answerer runs once the carrier is free");
        assert!(answered.load(Ordering::SeqCst));
        assert_eq!(live.current(), 0);
    }
}
