//! What the lab's tests share.
//!
//! - [`own_process!`]: tests whose checks count the whole process's threads, sockets, file descriptors, memory
//!   maps, CPU time or `may`'s one scheduler run each in a fresh process of the test binary, as the lab runs each
//!   contestant alone in a fresh trial process. Several such tests in one process would see each other's threads
//!   (a check then fails, or passes, by chance); a lock around them would only hide the overlap. The re-execution
//!   is rusty-fork's, with a bound on the child.
//! - [`each_in_own_process`]: one test that runs a check on every contestant of a scenario, each contestant in
//!   a fresh process of the test binary, one after another, and fails naming every contestant that failed.
//! - [`wait_within`] and [`output_within`]: every wait on a child process is bounded, so a child in a wrong state
//!   fails the test (killed, with what it printed) instead of hanging it.
//! - [`with_default_signals`]: a child started from a test gets SIGINT, SIGTERM and SIGHUP at their default
//!   dispositions, whatever the test runner inherited (a job started in the background by a script starts with
//!   SIGINT ignored, and its children inherit that).
//! - [`checks`]: what the conformance tests share (a check by name, every check passed, a rejected check, a
//!   registry's names, one test per contestant).
//! - [`fixture`]: made-up runs for the tests of claims, reports and tables: a [`measure::summary::Summary`] built
//!   by hand, its contestants, and the statistics of a median ([`fixture::stats`]).
//! - [`text`]: which sentences a rendered report holds and which it leaves out.

use std::io::Read;
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::Duration;

use wait_timeout::ChildExt;

pub mod checks;
pub mod fixture;
pub mod text;

#[doc(hidden)]
pub use rusty_fork;

/// How long one test in its own process may take before its child is killed and the test fails: the slowest
/// such test (a scenario's whole conformance on one contestant, debug build) takes well under a minute alone.
pub const OWN_PROCESS_TIMEOUT_MS: u64 = 300_000;

/// Declares `#[test]` functions that each run in a fresh process of this test binary (rusty-fork re-executes
/// the binary with the test's exact name), killed and failed after [`OWN_PROCESS_TIMEOUT_MS`].
///
/// ```ignore
/// testkit::own_process! {
///     #[test]
///     fn counts_only_its_own_threads() { /* ... */ }
/// }
/// ```
#[macro_export]
macro_rules! own_process {
    ($($body:tt)*) => {
        $crate::rusty_fork::rusty_fork_test! {
            #![rusty_fork(timeout_ms = $crate::OWN_PROCESS_TIMEOUT_MS)]
            $($body)*
        }
    };
}

/// The environment variables that tell a re-executed test binary which test and which item it runs.
const ITEM_TEST: &str = "TESTKIT_OWN_PROCESS_TEST";
const ITEM: &str = "TESTKIT_OWN_PROCESS_ITEM";
/// The line a child prints once its item's check returned, so the parent knows the check ran (a child whose test
/// filter matched nothing would exit 0 having checked nothing).
const RAN: &str = "testkit: checked ";

/// Runs `check` on every one of `items`, each in a fresh process of this test binary (the test named `test`,
/// its full libtest name, re-executed with `--exact` and the item in its environment), one after another, each
/// bounded by [`OWN_PROCESS_TIMEOUT_MS`]. In the parent it panics naming every item whose process failed (a
/// panic in `check`, a crash, a hang, or a check that never ran); in a child it runs `check` on its one item.
///
/// This is how the lab runs contestants: each alone in a fresh trial process. A check that counts the whole
/// process's threads, sockets or `may` carriers then sees only its own contestant.
pub fn each_in_own_process(test: &str, items: &[String], check: impl Fn(&str)) {
    if let (Ok(child_test), Ok(item)) = (std::env::var(ITEM_TEST), std::env::var(ITEM)) {
        assert_eq!(child_test, test, "this child was started for another test");
        check(&item);
        // On a line of its own: libtest has printed `test NAME ... ` without its line end.
        println!("\n{RAN}{item}");
        return;
    }
    assert!(!items.is_empty(), "{test}: no items to check");
    let exe = std::env::current_exe().unwrap_or_else(|e| panic!("this test binary: {e}"));
    let within = Duration::from_millis(OWN_PROCESS_TIMEOUT_MS);
    let mut failed = Vec::new();
    for item in items {
        let mut command = Command::new(&exe);
        command.args([test, "--exact", "--nocapture", "--test-threads=1"]).env(ITEM_TEST, test).env(ITEM, item);
        let output = output_within(&mut command, within, &format!("{test} for {item}"));
        let stdout = String::from_utf8_lossy(&output.stdout);
        let ran = stdout.lines().any(|line| line.trim_end().ends_with(&format!("{RAN}{item}")));
        if !output.status.success() || !ran {
            let why = if ran { format!("{:?}", output.status) } else { "the check never ran".to_string() };
            failed.push(format!(
                "{item} ({why}):\n{}{}",
                tail(&stdout),
                tail(&String::from_utf8_lossy(&output.stderr))
            ));
        }
    }
    assert!(failed.is_empty(), "{} of {} failed:\n{}", failed.len(), items.len(), failed.join("\n"));
}

/// The last lines of a child's output: enough to read its failure.
fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.len().saturating_sub(40);
    lines[start..].iter().map(|l| format!("  {l}\n")).collect()
}

/// Resets SIGINT, SIGTERM and SIGHUP to their default dispositions in `command`'s child before it runs, so a
/// test that signals the child sees what a user at a terminal sees, even when the test runner itself was started
/// with a signal ignored.
pub fn with_default_signals(command: &mut Command) -> &mut Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec only signal(2), which is async-signal-safe, allocates nothing and takes no
    // lock.
    unsafe {
        command.pre_exec(|| {
            for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                if libc::signal(signal, libc::SIG_DFL) == libc::SIG_ERR {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        })
    }
}

/// Waits at most `within` for `child` to end; past it, kills the child, reaps it and panics naming `what`.
pub fn wait_within(child: &mut Child, within: Duration, what: &str) -> ExitStatus {
    match child.wait_timeout(within) {
        Ok(Some(status)) => status,
        Ok(None) => {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not end within {within:?}: killed");
        }
        Err(e) => panic!("waiting for {what}: {e}"),
    }
}

/// Runs `command` to its end, as [`Command::output`] does, but kills it and panics (with what it printed so far)
/// when it has not ended within `within`.
pub fn output_within(command: &mut Command, within: Duration, what: &str) -> Output {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("starting {what}: {e}"));
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let status = match child.wait_timeout(within) {
        Ok(Some(status)) => status,
        Ok(None) => {
            let _ = child.kill();
            let _ = child.wait();
            let (out, err) = (joined(stdout), joined(stderr));
            panic!(
                "{what} did not end within {within:?}: killed\n--- stdout ---\n{}\n--- stderr ---\n{}",
                String::from_utf8_lossy(&out),
                String::from_utf8_lossy(&err)
            );
        }
        Err(e) => panic!("waiting for {what}: {e}"),
    };
    Output { status, stdout: joined(stdout), stderr: joined(stderr) }
}

/// Reads a child's pipe to its end on a thread of its own, so a full pipe never stalls the child.
fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        bytes
    })
}

fn joined(reader: std::thread::JoinHandle<Vec<u8>>) -> Vec<u8> {
    reader.join().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_within_returns_what_the_child_printed() {
        let output =
            output_within(Command::new("sh").args(["-c", "echo out; echo err >&2"]), Duration::from_secs(10), "sh");
        assert!(output.status.success());
        assert_eq!(output.stdout, b"out\n");
        assert_eq!(output.stderr, b"err\n");
    }

    #[test]
    fn output_within_kills_a_child_that_does_not_end() {
        let result = std::panic::catch_unwind(|| {
            output_within(Command::new("sleep").arg("60"), Duration::from_millis(200), "sleep");
        });
        let message = result.expect_err("a child past its bound fails the test");
        let text = message.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(text.contains("did not end within"), "{text}");
    }

    #[test]
    fn each_in_own_process_runs_every_item_in_a_process_of_its_own() {
        let items: Vec<String> = ["a", "b"].iter().map(|s| s.to_string()).collect();
        each_in_own_process("tests::each_in_own_process_runs_every_item_in_a_process_of_its_own", &items, |item| {
            assert_eq!(std::env::var(ITEM).as_deref(), Ok(item), "{item} ran outside a process started for it");
        });
    }

    #[test]
    fn each_in_own_process_names_the_items_that_failed() {
        if std::env::var(ITEM).is_ok() {
            each_in_own_process("tests::each_in_own_process_names_the_items_that_failed", &[], |item| {
                assert_ne!(item, "bad", "bad is broken");
            });
            return;
        }
        let items: Vec<String> = ["good", "bad"].iter().map(|s| s.to_string()).collect();
        let result = std::panic::catch_unwind(|| {
            each_in_own_process("tests::each_in_own_process_names_the_items_that_failed", &items, |_| {});
        });
        let text =
            result.expect_err("a failed item fails the test").downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(text.contains("1 of 2 failed") && text.contains("bad (") && text.contains("bad is broken"), "{text}");
        assert!(!text.contains("good ("), "{text}");
    }

    #[test]
    fn each_in_own_process_fails_a_check_that_never_ran() {
        let items = vec!["x".to_string()];
        let result = std::panic::catch_unwind(|| each_in_own_process("tests::no_such_test", &items, |_| {}));
        let text =
            result.expect_err("a child that ran nothing fails").downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(text.contains("the check never ran"), "{text}");
    }

    /// A command whose child starts with SIGINT ignored, as a background job's children do.
    fn started_with_sigint_ignored() -> Command {
        use std::os::unix::process::CommandExt;
        let mut command = Command::new("sh");
        command.args(["-c", "kill -INT $$; exit 3"]);
        // SAFETY: signal(2) only, between fork and exec.
        unsafe {
            command.pre_exec(|| {
                libc::signal(libc::SIGINT, libc::SIG_IGN);
                Ok(())
            });
        }
        command
    }

    #[test]
    fn a_child_gets_sigint_at_its_default_even_when_it_inherited_it_ignored() {
        use std::os::unix::process::ExitStatusExt;
        let mut ignoring = started_with_sigint_ignored().spawn().expect("sh");
        let status = wait_within(&mut ignoring, Duration::from_secs(20), "sh with SIGINT ignored");
        assert_eq!(status.code(), Some(3), "with SIGINT ignored the child runs on: {status:?}");

        let mut command = started_with_sigint_ignored();
        let mut reset = with_default_signals(&mut command).spawn().expect("sh");
        let status = wait_within(&mut reset, Duration::from_secs(20), "sh with SIGINT reset");
        assert_eq!(status.signal(), Some(libc::SIGINT), "{status:?}");
    }

    #[test]
    fn wait_within_kills_a_child_that_does_not_end() {
        let mut child = Command::new("sleep").arg("60").spawn().expect("sleep");
        let pid = child.id();
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            wait_within(&mut child, Duration::from_millis(200), "sleep");
        }));
        assert!(result.is_err(), "a child past its bound fails the test");
        assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists(), "the child was killed and reaped");
    }
}
