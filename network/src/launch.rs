//! Starting and stopping the server process: the lab's own binary with the hidden `__serve` subcommand (or any
//! program that serves the same way, such as this crate's `network-serve` in tests).
//!
//! No server outlives its client: the server dies with the thread that started it (`PR_SET_PDEATHSIG`, set
//! between fork and exec, with a check that the parent had not already gone), exits when its standard input
//! closes (dropping a [`ServerProcess`] closes it, waits a bounded time, then kills), and shares the trial's
//! process group, which the lab kills at a time budget or on Ctrl-C.

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::affinity::PinError;
use crate::error::NetworkError;
use crate::server::{loopback, Ready, ServeConfig};

/// Which of the server's ports a scenario talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Port {
    /// The HTTP port.
    Http,
    /// The TCP echo port.
    Tcp,
}

/// The subcommand the lab's binary serves with.
pub const SERVE_SUBCOMMAND: &str = "__serve";

/// How long a client waits for the server's ready line by default.
pub const READY_WAIT: Duration = Duration::from_secs(10);

/// How long dropping a [`ServerProcess`] waits for it to exit after closing its standard input, before killing.
pub const EXIT_WAIT: Duration = Duration::from_secs(2);

/// The program and arguments that start a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launcher {
    /// The program.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
}

impl Launcher {
    /// This very binary with `__serve`: the lab in a trial process.
    pub fn this_binary() -> Result<Launcher, NetworkError> {
        std::env::current_exe()
            .map(Launcher::program)
            .map_err(|e| NetworkError::Spawn { program: "the current executable".to_string(), source: e })
    }

    /// `program __serve`.
    pub fn program(program: impl Into<PathBuf>) -> Launcher {
        Launcher { program: program.into(), args: vec![SERVE_SUBCOMMAND.to_string()] }
    }

    fn name(&self) -> String {
        format!("{} {}", self.program.display(), self.args.join(" "))
    }
}

/// A running server process, stopped when dropped.
#[derive(Debug)]
pub struct ServerProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    ready: Ready,
}

impl ServerProcess {
    /// Start the server with `config` and wait at most `wait` for its ready line; past that, kill it and say so.
    pub fn start(launcher: &Launcher, config: &ServeConfig, wait: Duration) -> Result<ServerProcess, NetworkError> {
        let program = launcher.name();
        let parent = std::process::id() as libc::pid_t;
        let mut command = Command::new(&launcher.program);
        command.args(&launcher.args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit());
        // SAFETY: only async-signal-safe calls (prctl, getppid, _exit) between fork and exec.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
        let mut child = command.spawn().map_err(|source| NetworkError::Spawn { program: program.clone(), source })?;
        // The server answers the contestant's calls: its CPU is the trial's, not another process's, for the
        // busy-machine guard.
        measure::busy::count_as_own(child.id());
        let mut stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let line = serde_json::to_string(config).map_err(|e| NetworkError::setup("the server configuration", e))?;
        if let Some(input) = stdin.as_mut() {
            let _ = writeln!(input, "{line}").and_then(|()| input.flush());
        }
        let (tx, rx) = mpsc::channel();
        if let Some(stdout) = stdout {
            std::thread::Builder::new()
                .name("server-ready".to_string())
                .spawn(move || {
                    let mut line = String::new();
                    let read = BufReader::new(stdout).read_line(&mut line).map(|_| line);
                    let _ = tx.send(read);
                })
                .map_err(|e| NetworkError::setup("the thread reading the server's ready line", e))?;
        }
        let failure = match rx.recv_timeout(wait) {
            Ok(Ok(line)) => match serde_json::from_str::<Ready>(&line) {
                Ok(ready) => return Ok(ServerProcess { child, stdin, ready }),
                Err(e) => {
                    let detail = if line.is_empty() {
                        "it exited without a ready line".to_string()
                    } else {
                        format!("unreadable ready line {line:?}: {e}")
                    };
                    NetworkError::NotReady { program, detail }
                }
            },
            Ok(Err(e)) => NetworkError::NotReady { program, detail: format!("reading its ready line: {e}") },
            Err(_) => NetworkError::SlowStart { program, waited: wait },
        };
        let _ = child.kill();
        let _ = child.wait();
        Err(failure)
    }

    /// The address of `port`.
    pub fn addr(&self, port: Port) -> SocketAddr {
        loopback(match port {
            Port::Http => self.ready.http_port,
            Port::Tcp => self.ready.tcp_port,
        })
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.ready.pid
    }

    /// What the server said about its pinning.
    pub fn pinned(&self) -> &Result<Option<usize>, PinError> {
        &self.ready.pinned
    }

    /// The server's CPU time so far (user plus system, from `/proc/<pid>/stat`), in nanoseconds, at the
    /// kernel's tick resolution.
    pub fn cpu_ns(&self) -> Option<u64> {
        process_cpu_ns(self.ready.pid)
    }

    /// Kill the server at once (SIGKILL), as a crash would.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Close its standard input and wait for it to exit; kill it if it has not within [`EXIT_WAIT`]. Returns
    /// whether it exited by itself.
    pub fn stop(mut self) -> bool {
        self.shutdown()
    }

    fn shutdown(&mut self) -> bool {
        drop(self.stdin.take());
        let deadline = Instant::now() + EXIT_WAIT;
        while Instant::now() < deadline {
            match self.child.try_wait() {
                Ok(Some(_)) => return true,
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(_) => break,
            }
        }
        self.kill();
        false
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if self.stdin.is_some() {
            self.shutdown();
        }
        measure::busy::forget(self.child.id());
    }
}

/// User plus system CPU of process `pid` from `/proc/<pid>/stat`, in nanoseconds.
pub fn process_cpu_ns(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces) start at field 3; utime and stime are 14 and 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let ticks = u64::try_from(ticks).ok().filter(|&t| t > 0)?;
    Some((utime + stime) * 1_000_000_000 / ticks)
}

/// Whether process `pid` is still running (exists and is not a zombie).
pub fn is_running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            stat.rfind(')').and_then(|i| stat.get(i + 2..i + 3)).is_some_and(|state| state != "Z" && state != "X")
        }
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_has_cpu_time_and_runs() {
        assert!(process_cpu_ns(std::process::id()).is_some());
        assert!(is_running(std::process::id()));
        assert!(!is_running(u32::MAX));
    }

    #[test]
    fn a_missing_program_is_an_error_naming_it() {
        let config = ServeConfig { http_delay_us: 0, tcp_delay_us: 0, core: None, start_delay_ms: 0, fail_seq: None };
        let err = ServerProcess::start(&Launcher::program("/nonexistent/serve"), &config, READY_WAIT)
            .err()
            .map(|e| e.to_string());
        assert!(err.as_deref().is_some_and(|e| e.contains("/nonexistent/serve")), "{err:?}");
    }
}
