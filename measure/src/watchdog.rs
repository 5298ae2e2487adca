//! A check run on its own thread under a watchdog, so that a check that hangs or panics fails on its own instead
//! of blocking or ending the trial process.
//!
//! [`run_guarded`] runs the work on a thread named `check-<name>`, catches a panic with its message, and stops
//! waiting after a timeout. A hung thread cannot be stopped from outside, so it is left behind; the trial process
//! ends soon after. [`WatchdogError`]'s messages are what reports show as a failed check's detail.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::Duration;

use crate::check::Check;

/// Why a guarded run returned nothing.
#[derive(Debug, thiserror::Error)]
pub enum WatchdogError {
    /// The OS would not start the check thread.
    #[error("could not start the check thread: {0}")]
    Spawn(#[source] std::io::Error),
    /// The work panicked; the panic's message (see [`panic_message`]).
    #[error("the check panicked: {0}")]
    Panicked(String),
    /// The work did not answer within the timeout (whole seconds in the message); its thread is left behind.
    #[error("hung: no answer within {} s (its thread is left behind)", .0.as_secs())]
    Hung(Duration),
    /// The thread ended without answering or panicking in a way that could be caught.
    #[error("the check thread died without answering")]
    Died,
}

/// Run `work` on a new thread named `check-<name>` and wait up to `timeout` for its result.
///
/// A panic in `work` is caught and returned as [`WatchdogError::Panicked`] with its message. After `timeout`
/// the call returns [`WatchdogError::Hung`] and the thread is left running (detached): whatever it holds stays
/// alive until it ends, if it ever does.
pub fn run_guarded<T: Send + 'static>(
    name: &str,
    timeout: Duration,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, WatchdogError> {
    let (tx, rx) = mpsc::channel();
    thread::Builder::new()
        .name(format!("check-{name}"))
        .spawn(move || {
            let outcome = panic::catch_unwind(AssertUnwindSafe(work)).map_err(|payload| panic_message(&*payload));
            let _ = tx.send(outcome);
        })
        .map_err(WatchdogError::Spawn)?;
    match rx.recv_timeout(timeout) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(message)) => Err(WatchdogError::Panicked(message)),
        Err(RecvTimeoutError::Timeout) => Err(WatchdogError::Hung(timeout)),
        Err(RecvTimeoutError::Disconnected) => Err(WatchdogError::Died),
    }
}

/// [`run_guarded`] for work that can fail on its own: its own error, or the watchdog's reason (panicked, hung,
/// could not start) as the error.
pub fn guarded<T: Send + 'static>(
    name: &str,
    timeout: Duration,
    work: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    run_guarded(name, timeout, work).unwrap_or_else(|err| Err(err.to_string()))
}

/// A check named `name` from guarded `work` that returns its detail: `Ok` passes, `Err` (or the watchdog's
/// reason) fails.
pub fn guarded_check(
    name: &str,
    timeout: Duration,
    work: impl FnOnce() -> Result<String, String> + Send + 'static,
) -> Check {
    match guarded(name, timeout, work) {
        Ok(detail) => Check::new(name, true, detail),
        Err(detail) => Check::new(name, false, detail),
    }
}

/// The message of a panic payload: the `&str` or `String` given to `panic!`, or a placeholder for any other
/// payload type.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::sync::{Arc, Barrier};

    #[test]
    fn the_work_result_comes_back() {
        let result = run_guarded("answers", Duration::from_secs(10), || 6 * 7);
        assert_eq!(result.ok(), Some(42));
    }

    #[test]
    fn the_work_runs_on_a_thread_named_after_the_check() {
        let name = run_guarded("named", Duration::from_secs(10), || thread::current().name().map(str::to_string));
        assert_eq!(name.ok().flatten().as_deref(), Some("check-named"));
    }

    #[test]
    fn a_panic_is_caught_with_its_message() {
        let result: Result<(), _> = run_guarded("panics", Duration::from_secs(10), || panic!("boom {}", 7));
        let err = result.err();
        assert!(matches!(&err, Some(WatchdogError::Panicked(m)) if m == "boom 7"), "{err:?}");
        assert_eq!(err.map(|e| e.to_string()).as_deref(), Some("the check panicked: boom 7"));
    }

    #[test]
    fn a_hung_check_gives_up_after_the_timeout_and_leaves_its_thread() {
        let release = Arc::new(Barrier::new(2));
        let held = Arc::clone(&release);
        let result = run_guarded("hangs", Duration::from_millis(20), move || {
            held.wait();
        });
        let err = result.err();
        assert!(matches!(err, Some(WatchdogError::Hung(t)) if t == Duration::from_millis(20)), "{err:?}");
        // The thread is still there, waiting: let it finish.
        release.wait();
    }

    #[test]
    fn messages_are_the_ones_reports_show() {
        assert_eq!(
            WatchdogError::Hung(Duration::from_secs(20)).to_string(),
            "hung: no answer within 20 s (its thread is left behind)"
        );
        assert_eq!(WatchdogError::Died.to_string(), "the check thread died without answering");
        let refused = std::io::Error::other("no threads left");
        assert_eq!(WatchdogError::Spawn(refused).to_string(), "could not start the check thread: no threads left");
    }

    #[test]
    fn panic_messages_come_from_str_and_string_payloads() {
        assert_eq!(panic_message(&"boom"), "boom");
        assert_eq!(panic_message(&String::from("bang")), "bang");
        assert_eq!(panic_message(&42_u8), "panic with a non-string payload");
    }
}
