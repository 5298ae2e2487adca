//! No server process outlives its client: after a trial runs to its end, after the trial is interrupted (SIGINT)
//! and after it is killed (SIGKILL, as a crash). Trials run through `network-serve __trial`, which runs exactly
//! the trial code the lab's `__trial` runs and starts its server as `network-serve __serve`.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use measure::record::{TrialMessage, TrialRequest};

fn request(batches: u64) -> TrialRequest {
    TrialRequest {
        scenario: "tcp".to_string(),
        contestant: "stream-tokio-tasks".to_string(),
        phase: None,
        params: [("connections", 8), ("exchanges", 32), ("batches", batches), ("delay_us", 1_000)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
        fork: 0,
        warmup: 0,
        iterations: 1,
        seed: 1,
        quick: true,
        accounting: 1,
    }
}

/// Start a trial; return it and the server's pid from its placement check. Every caller waits for the child.
#[allow(clippy::zombie_processes)]
fn start_trial(batches: u64) -> (Child, BufReader<std::process::ChildStdout>, u32) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_network-serve"))
        .arg("__trial")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("starting the trial: {e}"));
    let json = serde_json::to_string(&request(batches)).unwrap_or_default();
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(json.as_bytes());
    }
    let mut stdout = BufReader::new(child.stdout.take().unwrap_or_else(|| panic!("no stdout")));
    let mut line = String::new();
    while stdout.read_line(&mut line).is_ok_and(|n| n > 0) {
        if let Ok(TrialMessage::Check(check)) = serde_json::from_str::<TrialMessage>(&line) {
            if check.name == "placement" {
                let pid = check.detail.rsplit("server pid ").next().and_then(|p| p.trim().parse().ok());
                return (child, stdout, pid.unwrap_or_else(|| panic!("no pid in {:?}", check.detail)));
            }
        }
        line.clear();
    }
    panic!("the trial ended without a placement check");
}

#[test]
fn no_server_remains_after_a_run() {
    let (mut child, mut stdout, pid) = start_trial(2);
    let mut rest = String::new();
    let _ = std::io::Read::read_to_string(&mut stdout, &mut rest);
    let status = child.wait().unwrap_or_else(|e| panic!("waiting: {e}"));
    assert!(status.success(), "{status:?}");
    assert!(rest.contains("\"answered_once\""), "{rest}");
    assert!(common::gone_within(pid, Duration::from_secs(3)), "server {pid} outlived the trial");
}

#[test]
fn no_server_remains_after_sigint() {
    let (mut child, _stdout, pid) = start_trial(1_000_000);
    assert!(network::launch::is_running(pid));
    // SAFETY: kill(2) on the trial process this test started.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let _ = child.wait();
    assert!(common::gone_within(pid, Duration::from_secs(3)), "server {pid} outlived the interrupted trial");
}

#[test]
fn no_server_remains_after_the_client_crashes() {
    let (mut child, _stdout, pid) = start_trial(1_000_000);
    assert!(network::launch::is_running(pid));
    let _ = child.kill();
    let _ = child.wait();
    assert!(common::gone_within(pid, Duration::from_secs(3)), "server {pid} outlived the killed trial");
}
