//! No server process outlives its client: after a trial runs to its end, after the trial is interrupted (SIGINT)
//! and after it is killed (SIGKILL, as a crash). Trials run through `network-serve __trial`, which runs exactly
//! the trial code the lab's `__trial` runs and starts its server as `network-serve __serve`.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use measure::record::{TrialMessage, TrialRequest};

/// A quick request of one measured iteration of `stream-tokio-tasks` over `batches` small batches.
fn request(batches: u64) -> TrialRequest {
    let params = [("connections", 8), ("exchanges", 32), ("batches", batches), ("delay_us", 1_000)];
    testkit::fixture::quick_trial_request("tcp", "stream-tokio-tasks", &params)
}

/// How long a trial may take to report its server's placement, and to end once it was stopped or ran out.
const BOUND: Duration = Duration::from_secs(60);

/// Start a trial (with SIGINT at its default, whatever this test runner inherited); return it, the rest of its
/// standard output as lines read on a thread of their own, and the server's pid from its placement check. Every
/// caller waits for the child, each wait bounded.
#[allow(clippy::zombie_processes)]
fn start_trial(batches: u64) -> (Child, mpsc::Receiver<String>, u32) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_network-serve"));
    command.arg("__trial").stdin(Stdio::piped()).stdout(Stdio::piped());
    let mut child =
        testkit::with_default_signals(&mut command).spawn().unwrap_or_else(|e| panic!("starting the trial: {e}"));
    let json = serde_json::to_string(&request(batches)).unwrap_or_default();
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(json.as_bytes());
    }
    let stdout = BufReader::new(child.stdout.take().unwrap_or_else(|| panic!("no stdout")));
    let (lines, heard) = mpsc::channel();
    std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            if lines.send(line).is_err() {
                return;
            }
        }
    });
    let deadline = Instant::now() + BOUND;
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        let Ok(line) = heard.recv_timeout(left) else { break };
        if let Ok(TrialMessage::Check(check)) = serde_json::from_str::<TrialMessage>(&line) {
            if check.name == "placement" {
                let pid = check.detail.rsplit("server pid ").next().and_then(|p| p.trim().parse().ok());
                return (child, heard, pid.unwrap_or_else(|| panic!("no pid in {:?}", check.detail)));
            }
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("the trial reported no placement check within {BOUND:?} (or ended without one)");
}

#[test]
fn no_server_remains_after_a_run() {
    let (mut child, heard, pid) = start_trial(2);
    let status = testkit::wait_within(&mut child, BOUND, "the trial");
    let deadline = Instant::now() + BOUND;
    let mut rest = Vec::new();
    while let Some(Ok(line)) = deadline.checked_duration_since(Instant::now()).map(|left| heard.recv_timeout(left)) {
        rest.push(line);
    }
    assert!(status.success(), "{status:?}");
    assert!(rest.iter().any(|l| l.contains("\"answered_once\"")), "{rest:?}");
    assert!(common::gone_within(pid, Duration::from_secs(3)), "server {pid} outlived the trial");
}

#[test]
fn no_server_remains_after_sigint() {
    let (mut child, _heard, pid) = start_trial(1_000_000);
    assert!(network::launch::is_running(pid));
    // SAFETY: kill(2) on the trial process this test started.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    // A trial that ignored the signal would run on for minutes: the bounded wait fails the test instead.
    let _ = testkit::wait_within(&mut child, BOUND, "the trial after SIGINT");
    assert!(common::gone_within(pid, Duration::from_secs(3)), "server {pid} outlived the interrupted trial");
}

#[test]
fn no_server_remains_after_the_client_crashes() {
    let (mut child, _heard, pid) = start_trial(1_000_000);
    assert!(network::launch::is_running(pid));
    let _ = child.kill();
    let _ = testkit::wait_within(&mut child, BOUND, "the killed trial");
    assert!(common::gone_within(pid, Duration::from_secs(3)), "server {pid} outlived the killed trial");
}
