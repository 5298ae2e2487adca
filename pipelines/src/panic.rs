//! Panic payloads as text, the payload of a deliberately injected panic, and a scoped way to keep injected
//! panics off standard error.

use std::any::Any;
use std::fmt;
use std::panic::{self, PanicHookInfo};
use std::sync::{Arc, Mutex, PoisonError};

/// The payload of a panic a conformance check injects into a stage (the chain's `FaultAction::Panic`), so that
/// [`QuietInjectedPanics`] can keep it off standard error and [`panic_message`] can name the stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InjectedPanic {
    /// The stage that panicked, by name (`map1`, `filter`, `map2`).
    pub stage: &'static str,
    /// The element it panicked at.
    pub at: u64,
}

impl fmt::Display for InjectedPanic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "injected panic in stage `{}` at its element {}", self.stage, self.at)
    }
}

/// The message of a panic payload: an [`InjectedPanic`]'s text, or else what
/// [`measure::watchdog::panic_message`] reads (the `&str` or `String` given to `panic!`, or a placeholder for
/// other payload types).
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    match payload.downcast_ref::<InjectedPanic>() {
        Some(injected) => injected.to_string(),
        None => measure::watchdog::panic_message(payload),
    }
}

type Hook = Box<dyn Fn(&PanicHookInfo<'_>) + Sync + Send + 'static>;

struct QuietState {
    users: usize,
    previous: Option<Arc<Hook>>,
}

static QUIET: Mutex<QuietState> = Mutex::new(QuietState { users: 0, previous: None });

/// While at least one of these lives, panics whose payload is an [`InjectedPanic`] are not printed; every other
/// panic still goes to the hook that was installed before. When the last one drops, that hook is put back.
///
/// Nesting and concurrent use from several threads are fine (the guards are counted).
#[derive(Debug)]
#[must_use = "injected panics are quiet only while the guard lives"]
pub struct QuietInjectedPanics {
    _private: (),
}

impl QuietInjectedPanics {
    /// Start hiding injected panics.
    pub fn install() -> Self {
        let mut state = QUIET.lock().unwrap_or_else(PoisonError::into_inner);
        if state.users == 0 {
            let previous: Arc<Hook> = Arc::new(panic::take_hook());
            let delegate = Arc::clone(&previous);
            panic::set_hook(Box::new(move |info| {
                if info.payload().downcast_ref::<InjectedPanic>().is_none() {
                    delegate(info);
                }
            }));
            state.previous = Some(previous);
        }
        state.users += 1;
        QuietInjectedPanics { _private: () }
    }
}

impl Drop for QuietInjectedPanics {
    fn drop(&mut self) {
        let mut state = QUIET.lock().unwrap_or_else(PoisonError::into_inner);
        state.users -= 1;
        if state.users == 0 {
            if std::thread::panicking() {
                // `take_hook` and `set_hook` panic on a panicking thread; leave the filtering hook in place.
                return;
            }
            drop(panic::take_hook());
            if let Some(previous) = state.previous.take() {
                match Arc::try_unwrap(previous) {
                    Ok(hook) => panic::set_hook(hook),
                    Err(shared) => panic::set_hook(Box::new(move |info| shared(info))),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_come_from_str_string_and_injected_payloads() {
        assert_eq!(panic_message(&"boom"), "boom");
        assert_eq!(panic_message(&String::from("bang")), "bang");
        assert_eq!(panic_message(&42_u8), "panic with a non-string payload");
        let injected = InjectedPanic { stage: "filter", at: 7 };
        assert_eq!(panic_message(&injected), "injected panic in stage `filter` at its element 7");
    }
}
