//! Runs one planned trial and returns its record. [`ProcessExecutor`] re-executes the lab in a fresh process
//! with the hidden trial subcommand, talks to it in typed JSON lines, and kills it past its time budget; tests
//! use a scripted executor instead, so scheduling, statistics and reports are tested without real timing.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStderr, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use measure::record::{MetricValues, Status, TrialMessage, TrialRecord};

use crate::child::TRIAL_SUBCOMMAND;
use crate::cpus::{cpu_set, pin};
use crate::plan::PlannedTrial;

mod external;

/// How many bytes of a failed trial's standard error the record keeps.
const STDERR_TAIL_BYTES: usize = 2000;

/// Something that can run a planned trial.
pub(crate) trait TrialExecutor {
    /// Run `trial`, calling `on_message` for each message as it arrives, and return its record.
    fn run(&mut self, trial: &PlannedTrial, on_message: &mut dyn FnMut(&TrialMessage)) -> TrialRecord;

    /// Why the last trial stopped on a setup error of the lab rather than the contestant's failure (its `may`
    /// configuration was not the one asked for), when it did: the run must stop there.
    fn setup_error(&self) -> Option<&str> {
        None
    }
}

/// Runs each trial in a fresh child process: by default the lab itself with its hidden trial subcommand.
///
/// The trial runs in a process group of its own, so that killing it at its time budget also ends anything it
/// started; Ctrl-C, SIGTERM and SIGHUP therefore reach only the lab, which notices within [`POLL`] and kills the
/// running trial. A trial also dies with the lab however the lab ends, SIGKILL included: the kernel kills it
/// when the thread that started it ends (see [`die_with_parent`]), so trials must be started from a thread that
/// lives as long as the run (the lab's main thread).
#[derive(Debug)]
pub(crate) struct ProcessExecutor {
    /// Kill the trial after this long.
    timeout: Duration,
    /// Set by the Ctrl-C handler: kill the running trial and return.
    interrupted: Arc<AtomicBool>,
    /// The trial process to start; `None` for the lab's own executable with [`TRIAL_SUBCOMMAND`].
    command: Option<(std::path::PathBuf, Vec<String>)>,
    /// CPUs every trial process is pinned to (`sched_setaffinity` before it executes); `None`: the lab's own.
    cpus: Option<Vec<usize>>,
    /// Why the last trial stopped on a setup error ([`TrialExecutor::setup_error`]).
    setup_error: Option<String>,
    /// Where the programs of external contestants are found; `None`: the folder of the lab's own executable.
    programs: Option<std::path::PathBuf>,
    /// Bytes of [`ENV_PADDING`] the next trial process gets in its environment (`lab calibrate` varies the
    /// environment's size from process to process, as Mytkowicz et al. did); `None`: the lab's environment as it is.
    env_padding: Option<usize>,
}

/// The environment variable `lab calibrate` pads a trial process's environment with: its value is that many
/// bytes, which moves the process's initial stack and so every address after it. Nothing reads it.
pub(crate) const ENV_PADDING: &str = "LAB_ENV_PADDING";

/// How often the executor looks at the Ctrl-C flag while a trial runs.
const POLL: Duration = Duration::from_millis(100);

/// How long the executor waits, once the trial process is gone, for its output pipes to close (a process it
/// started may still hold them).
const PIPE_GRACE: Duration = Duration::from_secs(1);

/// One line of the trial's standard output, or its end.
enum Event {
    /// A typed message.
    Message(TrialMessage),
    /// A line that is not one (a contestant printed to stdout); kept for the failure report.
    Garbage(String),
    /// Standard output closed.
    Eof,
}

/// What following a trial process left ([`ProcessExecutor::watch`]).
struct Watched {
    /// Why following it stopped.
    ending: Ending,
    /// It sent its closing message (a lab trial's `done`).
    done: bool,
    /// Its exit status, where it could be read.
    exit: Option<ExitStatus>,
    /// Its standard error.
    stderr: Vec<u8>,
    /// Lines of its standard output that were not what it should print.
    garbage: Vec<String>,
}

impl Watched {
    /// The tail of its standard error and stray output.
    fn tail(&self) -> Option<String> {
        tail_of(&self.stderr, &self.garbage)
    }
}

/// Why the executor stopped following a trial's messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    /// The trial closed its standard output.
    Eof,
    /// The time budget ran out.
    TimedOut,
    /// Ctrl-C.
    Interrupted,
}

impl ProcessExecutor {
    /// Run trials in fresh processes of this lab, killing each after `timeout` or when `interrupted` is set.
    pub(crate) fn new(timeout: Duration, interrupted: Arc<AtomicBool>) -> Self {
        ProcessExecutor {
            timeout,
            interrupted,
            command: None,
            cpus: None,
            setup_error: None,
            programs: None,
            env_padding: None,
        }
    }

    /// Run trials with `program args...` instead of the lab itself (tests use this to stand in a trial process
    /// that crashes, hangs or talks nonsense).
    #[cfg(test)]
    fn with_command(timeout: Duration, program: &str, args: &[&str]) -> Self {
        let args = args.iter().map(|a| a.to_string()).collect();
        ProcessExecutor { command: Some((program.into(), args)), ..Self::new(timeout, Arc::default()) }
    }

    /// The same executor, pinning every trial process (and so every thread it starts) to `cpus`, so that a run
    /// asks what the contestants do on that many cores; runtimes that size themselves by
    /// `available_parallelism` see only these.
    pub(crate) fn pinned_to(mut self, cpus: Vec<usize>) -> Self {
        self.cpus = Some(cpus);
        self
    }

    /// Give the next trial process `bytes` of environment padding ([`ENV_PADDING`]); `None`: none.
    pub(crate) fn set_env_padding(&mut self, bytes: Option<usize>) {
        self.env_padding = bytes;
    }

    fn command(&self) -> std::io::Result<Command> {
        let mut cmd = match &self.command {
            Some((program, args)) => {
                let mut cmd = Command::new(program);
                cmd.args(args);
                cmd
            }
            None => {
                let mut cmd = Command::new(std::env::current_exe()?);
                cmd.arg(TRIAL_SUBCOMMAND);
                cmd
            }
        };
        cmd.stdin(Stdio::piped());
        Ok(self.trial_process(cmd))
    }

    /// `cmd` as every trial process runs: its output piped to the lab, in a process group of its own, dying with
    /// the lab, pinned where the run pins.
    fn trial_process(&self, mut cmd: Command) -> Command {
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
        if let Some(bytes) = self.env_padding {
            cmd.env(ENV_PADDING, "x".repeat(bytes));
        }
        let parent = std::process::id();
        // SAFETY: the closure runs in the child between fork and exec; it only makes system calls that are
        // async-signal-safe (prctl, getppid) and allocates nothing.
        unsafe { cmd.pre_exec(move || die_with_parent(parent)) };
        if let Some(cpus) = &self.cpus {
            let set = cpu_set(cpus);
            // SAFETY: as above: sched_setaffinity(2) on the child itself, with a set built before the fork.
            unsafe { cmd.pre_exec(move || pin(&set)) };
        }
        cmd
    }

    /// Follow a started trial process: its standard output read line by line through `parse` and folded into
    /// `record` (each message also handed to `on_message`) until it closes, then its exit awaited, all within the
    /// time budget (killed past it, or on Ctrl-C); with its standard error and stray output.
    fn watch(
        &self,
        child: &mut Child,
        parse: impl FnMut(String) -> Event + Send + 'static,
        record: &mut TrialRecord,
        on_message: &mut dyn FnMut(&TrialMessage),
    ) -> Watched {
        let events = spawn_stdout_reader(child.stdout.take(), parse);
        let stderr = StderrTail::spawn(child.stderr.take());
        let deadline = Instant::now() + self.timeout;
        let mut garbage = Vec::new();
        let (mut ending, done) = self.follow(deadline, &events, record, &mut garbage, on_message);
        let exit = match ending {
            Ending::Eof => {
                let (reaped, exit) = self.reap(deadline, child);
                ending = reaped;
                exit
            }
            Ending::TimedOut | Ending::Interrupted => kill_group(child),
        };
        Watched { ending, done, exit, stderr: stderr.take(), garbage }
    }

    /// How the trial ended when the time budget or Ctrl-C cut it short (its status, the reason and the tail of
    /// its output), or `None` when it ended by itself.
    fn cut_short(&self, watched: &Watched) -> Option<(Status, String, Option<String>)> {
        match watched.ending {
            Ending::TimedOut => {
                let why = format!("killed after its {:.0} s time budget", self.timeout.as_secs_f64());
                Some((Status::Timeout, why, watched.tail()))
            }
            Ending::Interrupted => Some((Status::Failed, "killed: the run was interrupted".to_string(), None)),
            Ending::Eof => None,
        }
    }

    /// Fold the trial's messages into `record` until it closes its output, its time runs out, or Ctrl-C.
    fn follow(
        &self,
        deadline: Instant,
        events: &Receiver<Event>,
        record: &mut TrialRecord,
        garbage: &mut Vec<String>,
        on_message: &mut dyn FnMut(&TrialMessage),
    ) -> (Ending, bool) {
        let mut done = false;
        loop {
            if self.interrupted.load(Ordering::SeqCst) {
                return (Ending::Interrupted, done);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return (Ending::TimedOut, done);
            }
            match events.recv_timeout(left.min(POLL)) {
                Ok(Event::Message(msg)) => {
                    on_message(&msg);
                    match msg {
                        TrialMessage::Iteration(it) => record.iterations.push(it),
                        TrialMessage::Check(check) => record.checks.push(check),
                        TrialMessage::Skipped { reason } => {
                            record.status = Status::Skipped;
                            record.reason = Some(reason);
                        }
                        TrialMessage::Done { metrics } => {
                            record.metrics = metrics;
                            done = true;
                        }
                    }
                }
                Ok(Event::Garbage(line)) => garbage.push(line),
                Ok(Event::Eof) | Err(RecvTimeoutError::Disconnected) => return (Ending::Eof, done),
                Err(RecvTimeoutError::Timeout) => {}
            }
        }
    }

    /// Wait for the trial process to exit after it closed its output, until `deadline` (the end of its budget).
    fn reap(&self, deadline: Instant, child: &mut Child) -> (Ending, Option<ExitStatus>) {
        loop {
            if self.interrupted.load(Ordering::SeqCst) {
                return (Ending::Interrupted, kill_group(child));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return (Ending::TimedOut, kill_group(child));
            }
            match wait_timeout::ChildExt::wait_timeout(child, left.min(POLL)) {
                Ok(Some(status)) => return (Ending::Eof, Some(status)),
                Ok(None) => {}
                Err(_) => return (Ending::Eof, kill_group(child)),
            }
        }
    }
}

/// The trial process's standard error, collected as it comes so that a killed trial still leaves its tail.
struct StderrTail {
    buffer: Arc<Mutex<Vec<u8>>>,
    closed: Receiver<()>,
}

impl StderrTail {
    fn spawn(stderr: Option<ChildStderr>) -> Self {
        let buffer = Arc::new(Mutex::new(Vec::new()));
        let (closed_tx, closed) = mpsc::channel();
        let sink = Arc::clone(&buffer);
        thread::spawn(move || {
            if let Some(mut stderr) = stderr {
                let mut chunk = [0u8; 4096];
                while let Ok(n) = stderr.read(&mut chunk) {
                    if n == 0 {
                        break;
                    }
                    let mut buf = sink.lock().unwrap_or_else(|e| e.into_inner());
                    buf.extend_from_slice(&chunk[..n]);
                    // Keep memory bounded: only the tail is ever reported.
                    if buf.len() > 16 * STDERR_TAIL_BYTES {
                        let cut = buf.len() - 4 * STDERR_TAIL_BYTES;
                        buf.drain(..cut);
                    }
                }
            }
            let _ = closed_tx.send(());
        });
        StderrTail { buffer, closed }
    }

    /// What arrived so far, after waiting up to [`PIPE_GRACE`] for the pipe to close.
    fn take(self) -> Vec<u8> {
        let _ = self.closed.recv_timeout(PIPE_GRACE);
        let buf = self.buffer.lock().unwrap_or_else(|e| e.into_inner());
        buf.clone()
    }
}

/// In a trial process before it executes: have the kernel SIGKILL it when the thread that started it ends (the
/// lab's, by whatever signal), and refuse to start if the lab `parent` already ended before that took hold (the
/// process then has another parent). Async-signal-safe: no allocation, no lock.
fn die_with_parent(parent: u32) -> std::io::Result<()> {
    // SAFETY: prctl(2) with PR_SET_PDEATHSIG and a signal number reads and writes no memory of ours.
    if unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: getppid(2) has no preconditions.
    let ppid = unsafe { libc::getppid() };
    if u32::try_from(ppid).ok() != Some(parent) {
        return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
    }
    Ok(())
}

/// Kill the trial's whole process group, then reap the trial.
fn kill_group(child: &mut Child) -> Option<ExitStatus> {
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill(2) on the process group this executor created for the trial; no memory is involved.
        unsafe { libc::kill(-pid, libc::SIGKILL) };
    }
    let _ = child.kill();
    child.wait().ok()
}

/// A line of the lab's own trial process: a typed message where it parses.
fn typed_message(line: String) -> Event {
    match serde_json::from_str::<TrialMessage>(&line) {
        Ok(msg) => Event::Message(msg),
        Err(_) => Event::Garbage(line),
    }
}

/// Read the trial's standard output line by line, each line an event by `parse`.
fn spawn_stdout_reader(
    stdout: Option<ChildStdout>,
    mut parse: impl FnMut(String) -> Event + Send + 'static,
) -> Receiver<Event> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        if let Some(stdout) = stdout {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(parse(line)).is_err() {
                    break;
                }
            }
        }
        let _ = tx.send(Event::Eof);
    });
    rx
}

impl TrialExecutor for ProcessExecutor {
    fn setup_error(&self) -> Option<&str> {
        self.setup_error.as_deref()
    }

    fn run(&mut self, trial: &PlannedTrial, on_message: &mut dyn FnMut(&TrialMessage)) -> TrialRecord {
        self.setup_error = None;
        let mut record = TrialRecord {
            contestant: trial.request.contestant.clone(),
            phase: trial.request.phase.clone(),
            fork: trial.request.fork,
            order: trial.order,
            status: Status::Ok,
            reason: None,
            checks: Vec::new(),
            iterations: Vec::new(),
            metrics: MetricValues::new(),
            stderr_tail: None,
        };
        if let Some(external) = &trial.external {
            return match external {
                Ok(program) => self.run_external(record, trial, program, on_message),
                Err(why) => {
                    ended(record, Status::Failed, format!("its program cannot be asked for this trial: {why}"), None)
                }
            };
        }
        let request = match serde_json::to_vec(&trial.request) {
            Ok(bytes) => bytes,
            Err(e) => return ended(record, Status::Failed, format!("cannot encode the trial request: {e}"), None),
        };
        let mut child = match self.command().and_then(|mut cmd| cmd.spawn()) {
            Ok(child) => child,
            Err(e) => return ended(record, Status::Failed, format!("cannot start the trial process: {e}"), None),
        };
        if let Some(mut stdin) = child.stdin.take() {
            // The child reads the whole request before doing anything; a write error shows up as its failure.
            let _ = stdin.write_all(&request);
        }
        let watched = self.watch(&mut child, typed_message, &mut record, on_message);
        if let Some((status, why, tail)) = self.cut_short(&watched) {
            return ended(record, status, why, tail);
        }
        let (exit, done, tail) = (watched.exit, watched.done, watched.tail());
        if let Some(why) = exit.and_then(|status| setup_error(status, &watched.stderr)) {
            self.setup_error = Some(format!(
                "the trial of `{}` in `{}` stopped on a setup error, not the contestant's failure: {why}",
                trial.request.contestant, trial.request.scenario
            ));
            return ended(record, Status::Failed, format!("setup error, not the contestant's failure: {why}"), tail);
        }
        let exit_ok = exit.as_ref().is_some_and(|s| s.success());
        if !exit_ok || !done {
            let how = match exit {
                Some(status) => describe_exit(status),
                None => "its exit status could not be read".to_string(),
            };
            let before = if done { "" } else { " before finishing" };
            return ended(record, Status::Failed, format!("the trial process {how}{before}"), tail);
        }
        if record.status == Status::Ok {
            if let Some(check) = record.checks.iter().find(|c| c.failed()) {
                let why = format!("check `{}` failed: {}", check.name, check.detail);
                return ended(record, Status::Failed, why, tail);
            }
        }
        record
    }
}

/// Why the trial process stopped as a setup error ([`crate::trial`]): it exited with
/// [`SETUP_ERROR_STATUS`](crate::trial::SETUP_ERROR_STATUS) and said why on the last line of its standard error
/// that starts with [`SETUP_ERROR_PREFIX`](crate::trial::SETUP_ERROR_PREFIX); `None` for any other ending.
pub(crate) fn setup_error(status: ExitStatus, stderr: &[u8]) -> Option<String> {
    if status.code() != Some(crate::trial::SETUP_ERROR_STATUS) {
        return None;
    }
    let text = String::from_utf8_lossy(stderr);
    text.lines().rev().find_map(|line| line.strip_prefix(crate::trial::SETUP_ERROR_PREFIX)).map(str::to_string)
}

/// `record` ended with `status` for `reason`, keeping `tail` of its standard error.
fn ended(mut record: TrialRecord, status: Status, reason: String, tail: Option<String>) -> TrialRecord {
    record.status = status;
    record.reason = Some(reason);
    record.stderr_tail = tail;
    record
}

fn describe_exit(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("was killed by signal {signal}");
        }
    }
    match status.code() {
        Some(code) => format!("exited with status {code}"),
        None => "ended without a status".to_string(),
    }
}

/// The last few lines of standard error (and of stray standard output), if any.
fn tail_of(stderr: &[u8], garbage: &[String]) -> Option<String> {
    let mut text = String::from_utf8_lossy(stderr).into_owned();
    if !garbage.is_empty() {
        text.push_str("\n[stray stdout]\n");
        text.push_str(&garbage.join("\n"));
    }
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let start = text.len().saturating_sub(STDERR_TAIL_BYTES);
    let start = (start..text.len()).find(|&i| text.is_char_boundary(i)).unwrap_or(text.len());
    Some(text[start..].to_string())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::cpus::{allowed_cpus, parallelism_on};

    fn trial() -> PlannedTrial {
        PlannedTrial { request: testkit::fixture::quick_trial_request("fake", "x", &[]), order: 0, external: None }
    }

    fn run(timeout_ms: u64, script: &str) -> TrialRecord {
        let mut executor = ProcessExecutor::with_command(Duration::from_millis(timeout_ms), "sh", &["-c", script]);
        executor.run(&trial(), &mut |_| {})
    }

    const DONE: &str = r#"{"msg":"done","metrics":{"peak_rss_mib":3.5}}"#;
    const CHECK_OK: &str = r#"{"msg":"check","name":"sum","passed":true,"detail":"equal"}"#;
    const CHECK_FAILED: &str = r#"{"msg":"check","name":"sum","passed":false,"detail":"1 != 2"}"#;

    #[test]
    fn a_trial_that_reports_and_exits_cleanly_is_ok() {
        let record = run(10_000, &format!("cat >/dev/null; echo '{CHECK_OK}'; echo '{DONE}'"));
        assert_eq!(record.status, Status::Ok, "{record:?}");
        assert_eq!(record.metrics.get("peak_rss_mib"), Some(&3.5));
        assert_eq!(record.checks.len(), 1);
    }

    #[test]
    fn a_pinned_trial_process_runs_on_the_cpus_asked() {
        let first = *allowed_cpus().first().unwrap();
        let mut executor = ProcessExecutor::with_command(
            Duration::from_secs(10),
            "sh",
            &["-c", "cat >/dev/null; grep Cpus_allowed_list /proc/self/status >&2; exit 1"],
        )
        .pinned_to(vec![first]);
        let record = executor.run(&trial(), &mut |_| {});
        let tail = record.stderr_tail.unwrap_or_default();
        assert!(
            tail.contains(&format!("Cpus_allowed_list:\t{first}\n")) || tail.ends_with(&format!("\t{first}")),
            "{tail}"
        );
    }

    #[test]
    fn available_parallelism_follows_a_pin() {
        let allowed = allowed_cpus();
        assert_eq!(parallelism_on(&allowed[..1]), Some(1));
        assert_eq!(parallelism_on(&allowed), std::thread::available_parallelism().ok().map(usize::from));
    }

    #[test]
    fn a_failed_check_fails_the_trial_and_names_the_check() {
        let record = run(10_000, &format!("cat >/dev/null; echo '{CHECK_FAILED}'; echo '{DONE}'"));
        assert_eq!(record.status, Status::Failed);
        assert_eq!(record.reason.as_deref(), Some("check `sum` failed: 1 != 2"));
    }

    #[test]
    fn a_crash_is_a_failure_with_the_tail_of_its_stderr() {
        let record = run(10_000, "cat >/dev/null; echo 'thread main panicked: boom' >&2; exit 101");
        assert_eq!(record.status, Status::Failed);
        assert_eq!(record.reason.as_deref(), Some("the trial process exited with status 101 before finishing"));
        assert!(record.stderr_tail.as_deref().is_some_and(|t| t.contains("boom")), "{record:?}");
    }

    /// The record of a trial run by `script`, and the setup error the executor then reports.
    fn run_setup(script: &str) -> (TrialRecord, Option<String>) {
        let mut executor = ProcessExecutor::with_command(Duration::from_secs(10), "sh", &["-c", script]);
        let record = executor.run(&trial(), &mut |_| {});
        (record, executor.setup_error().map(str::to_string))
    }

    #[test]
    fn a_setup_error_is_told_apart_from_a_contestant_failure_and_stops_the_run() {
        let (record, setup_error) = run_setup(&format!(
            "cat >/dev/null; echo '{CHECK_OK}'; echo 'some noise' >&2; \
             echo 'trial setup error: `may` is already configured in this process with 1 carrier thread' >&2; exit 78"
        ));
        assert!(
            setup_error.as_deref().is_some_and(|e| e.ends_with("with 1 carrier thread")),
            "the run was not told to stop: {setup_error:?}"
        );
        assert_eq!(record.status, Status::Failed);
        assert_eq!(
            record.reason.as_deref(),
            Some(
                "setup error, not the contestant's failure: `may` is already configured in this process with 1 \
                 carrier thread"
            )
        );
        // Status 78 without the line, or the line with another status, is an ordinary failure.
        let (record, setup_error) = run_setup("cat >/dev/null; exit 78");
        assert_eq!(record.reason.as_deref(), Some("the trial process exited with status 78 before finishing"));
        assert_eq!(setup_error, None);
        let (record, setup_error) = run_setup("cat >/dev/null; echo 'trial setup error: x' >&2; exit 101");
        assert_eq!(record.reason.as_deref(), Some("the trial process exited with status 101 before finishing"));
        assert_eq!(setup_error, None);
    }

    #[test]
    fn a_trial_killed_by_a_signal_says_so() {
        let record = run(10_000, "cat >/dev/null; kill -9 $$");
        assert_eq!(record.status, Status::Failed);
        assert!(record.reason.as_deref().is_some_and(|r| r.contains("signal 9")), "{record:?}");
    }

    #[test]
    fn a_hang_is_killed_at_its_time_budget_and_marked_timeout() {
        // A budget of 2 s: the shell certainly starts and says so before it is killed, however busy the machine
        // (300 ms once left that to the scheduler); the group is still killed long before `sleep` would end.
        let started = Instant::now();
        let record = run(2_000, "cat >/dev/null; echo 'started' >&2; sleep 30");
        assert_eq!(record.status, Status::Timeout);
        // The whole process group goes, `sleep` included: the executor does not wait for it to end by itself.
        assert!(started.elapsed() < Duration::from_secs(20), "the hung trial's group was not killed");
        assert!(record.stderr_tail.as_deref().is_some_and(|t| t.contains("started")), "{record:?}");
    }

    #[test]
    fn ctrl_c_kills_the_running_trial() {
        let interrupted = Arc::new(AtomicBool::new(false));
        let mut executor = ProcessExecutor {
            interrupted: Arc::clone(&interrupted),
            ..ProcessExecutor::with_command(Duration::from_secs(60), "sh", &["-c", "cat >/dev/null; sleep 30"])
        };
        let flag = Arc::clone(&interrupted);
        let setter = thread::spawn(move || {
            thread::sleep(Duration::from_millis(200));
            flag.store(true, Ordering::SeqCst);
        });
        let started = Instant::now();
        let record = executor.run(&trial(), &mut |_| {});
        setter.join().unwrap();
        assert_eq!(record.status, Status::Failed);
        assert_eq!(record.reason.as_deref(), Some("killed: the run was interrupted"));
        assert!(started.elapsed() < Duration::from_secs(20));
    }

    #[test]
    fn stray_output_on_stdout_is_kept_for_the_reader_not_parsed() {
        let record = run(10_000, "cat >/dev/null; echo 'hello from a contestant'; exit 3");
        assert_eq!(record.status, Status::Failed);
        assert!(record.stderr_tail.as_deref().is_some_and(|t| t.contains("hello from a contestant")));
    }
}
