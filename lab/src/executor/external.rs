//! A contestant that runs as a program of its own ([`measure::external`]): the executor starts its program,
//! found beside the lab's own executable, instead of the lab's trial process, under the same rules (a fresh
//! process in a group of its own, dying with the lab, pinned where the run pins, killed past the time budget), and
//! turns each line it prints (`wall_ns cpu_ns`) into a timed iteration's record.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use measure::external::{iteration, ExternalProgram};
use measure::record::{Status, TrialMessage, TrialRecord};

use super::{describe_exit, ended, Event, ProcessExecutor};
use crate::plan::PlannedTrial;

impl ProcessExecutor {
    /// The same executor, finding external programs in `dir` rather than beside the lab's own executable (tests
    /// stand a fake program there).
    #[cfg(test)]
    pub(super) fn with_programs(mut self, dir: impl Into<PathBuf>) -> Self {
        self.programs = Some(dir.into());
        self
    }

    /// Where `program` is: in [`ProcessExecutor::with_programs`]' folder, else beside the lab's own executable.
    fn program_path(&self, program: &str) -> std::io::Result<PathBuf> {
        let dir = match &self.programs {
            Some(dir) => dir.clone(),
            None => {
                let exe = std::env::current_exe()?;
                exe.parent().map(PathBuf::from).unwrap_or_default()
            }
        };
        Ok(dir.join(program))
    }

    /// Run `trial` as `program`: skipped (with how to build it) where it is missing; failed when it cannot start,
    /// exits non-zero (its own checks found a wrong result; its last line of standard error is the reason), prints
    /// a line that is not an iteration, or prints too few or too many; timed out past the budget. A clean run
    /// reports `program`'s checks.
    pub(super) fn run_external(
        &mut self,
        mut record: TrialRecord,
        trial: &PlannedTrial,
        program: &ExternalProgram,
        on_message: &mut dyn FnMut(&TrialMessage),
    ) -> TrialRecord {
        let path = match self.program_path(&program.program) {
            Ok(path) => path,
            Err(e) => return ended(record, Status::Failed, format!("cannot find the lab's own folder: {e}"), None),
        };
        if !path.is_file() {
            let why = format!(
                "`{}` is not built beside the lab ({}): build it with `{}`",
                program.program,
                path.display(),
                program.build
            );
            return ended(record, Status::Skipped, why, None);
        }
        let mut cmd = Command::new(&path);
        cmd.args(&program.args).stdin(Stdio::null());
        let shown = format!("{} {}", program.program, program.args.join(" "));
        let mut child = match self.trial_process(cmd).spawn() {
            Ok(child) => child,
            Err(e) => return ended(record, Status::Failed, format!("cannot start `{shown}`: {e}"), None),
        };
        let (warmup, items) = (trial.request.warmup, program.items);
        let mut index = 0;
        let parse = move |line: String| match iteration(&line, index, index < warmup, items) {
            Ok(record) => {
                index += 1;
                Event::Message(TrialMessage::Iteration(record))
            }
            Err(why) => Event::Garbage(why),
        };
        let watched = self.watch(&mut child, parse, &mut record, on_message);
        if let Some((status, why, tail)) = self.cut_short(&watched) {
            return ended(record, status, why, tail);
        }
        let tail = watched.tail();
        if !watched.exit.is_some_and(|status| status.success()) {
            let how = watched.exit.map_or_else(|| "ended without a readable status".to_string(), describe_exit);
            let stderr = String::from_utf8_lossy(&watched.stderr);
            let said = stderr.lines().rev().find(|l| !l.trim().is_empty()).map(|l| format!(": {}", l.trim()));
            return ended(record, Status::Failed, format!("`{shown}` {how}{}", said.unwrap_or_default()), tail);
        }
        if let Some(line) = watched.garbage.first() {
            return ended(
                record,
                Status::Failed,
                format!("`{shown}` printed a line that is not an iteration: {line}"),
                tail,
            );
        }
        let expected = trial.request.warmup + trial.request.iterations;
        let printed = record.iterations.len();
        if printed != expected as usize {
            let why = format!("`{shown}` printed {printed} iterations where {expected} were asked for");
            return ended(record, Status::Failed, why, tail);
        }
        for check in &program.checks {
            on_message(&TrialMessage::Check(check.clone()));
            record.checks.push(check.clone());
        }
        record
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::path::Path;
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use measure::record::TrialRequest;
    use measure::summary::Check;

    use super::*;

    /// A trial of 1 warm-up and 2 measured iterations of the program `program` given `args`.
    fn trial(program: &str, args: &[&str]) -> PlannedTrial {
        let program = ExternalProgram {
            program: program.to_string(),
            args: args.iter().map(|a| a.to_string()).collect(),
            items: 1_000_000,
            build: "make fake".to_string(),
            checks: vec![
                Check::new("checksum", true, "the program checked every iteration itself"),
                Check::not_applicable("early_stop", "the program has no early stop"),
            ],
        };
        PlannedTrial {
            request: TrialRequest {
                scenario: "fake".to_string(),
                contestant: "x-standalone".to_string(),
                phase: Some("capacity_256".to_string()),
                params: Default::default(),
                fork: 0,
                warmup: 1,
                iterations: 2,
                seed: 1,
                quick: true,
                accounting: 1,
            },
            order: 0,
            external: Some(Ok(program)),
        }
    }

    /// Run `trial` with programs found in `dir`, killed after `timeout_ms`; every message it hands on is counted.
    fn run_in(dir: &Path, timeout_ms: u64, trial: &PlannedTrial) -> TrialRecord {
        let mut executor = ProcessExecutor::new(Duration::from_millis(timeout_ms), Arc::default()).with_programs(dir);
        let mut seen = 0;
        let record = super::super::TrialExecutor::run(&mut executor, trial, &mut |_| seen += 1);
        assert_eq!(seen, record.iterations.len() + record.checks.len(), "every message is handed on");
        record
    }

    /// Run a trial whose program is the shell found in the system's folder running `script` (`$1 $2` read
    /// `--items 4`), killed after `timeout_ms`. The shell stands in for the program so no test writes an
    /// executable that another test's fork could hold open.
    fn run(timeout_ms: u64, script: &str) -> TrialRecord {
        let dir = ["/bin", "/usr/bin"].into_iter().find(|d| Path::new(d).join("sh").is_file()).expect("a shell");
        run_in(Path::new(dir), timeout_ms, &trial("sh", &["-c", script, "fake", "--items", "4"]))
    }

    /// What the executor calls the program of [`run`]`(_, script)` in its reasons.
    fn shown(script: &str) -> String {
        format!("`sh -c {script} fake --items 4`")
    }

    #[test]
    fn each_line_becomes_an_iteration_and_a_clean_end_reports_the_program_s_checks() {
        let record = run(
            10_000,
            "[ \"$1 $2\" = '--items 4' ] || exit 9; echo '30000000 45000000'; echo '20000000 30000000'; echo '40000000 40000000'",
        );
        assert_eq!(record.status, Status::Ok, "{record:?}");
        assert_eq!(record.iterations.iter().map(|i| i.warmup).collect::<Vec<_>>(), [true, false, false]);
        assert_eq!(record.iterations.iter().map(|i| i.index).collect::<Vec<_>>(), [0, 1, 2]);
        let second = &record.iterations[1].metrics;
        assert_eq!((second.get("ms_per_million"), second.get("cores_used")), (Some(&20.0), Some(&1.5)));
        assert_eq!(record.checks.iter().map(|c| c.outcome()).collect::<Vec<_>>(), ["passed", "not applicable"]);
        assert_eq!((record.phase.as_deref(), record.contestant.as_str()), (Some("capacity_256"), "x-standalone"));
    }

    #[test]
    fn a_missing_program_is_skipped_with_how_to_build_it() {
        let dir = tempfile::tempdir().unwrap();
        let record = run_in(dir.path(), 10_000, &trial("fake", &[]));
        assert_eq!(record.status, Status::Skipped);
        let reason = record.reason.unwrap_or_default();
        assert!(reason.starts_with("`fake` is not built beside the lab ("), "{reason}");
        assert!(reason.ends_with("): build it with `make fake`"), "{reason}");
    }

    #[test]
    fn a_wrong_result_fails_with_the_program_s_own_words() {
        let script = "echo '1 1'; echo 'error: fake iteration 1: the items summed to 7, expected 6' >&2; exit 1";
        let record = run(10_000, script);
        assert_eq!(record.status, Status::Failed);
        let why = "exited with status 1: error: fake iteration 1: the items summed to 7, expected 6";
        assert_eq!(record.reason, Some(format!("{} {why}", shown(script))));
        assert!(record.checks.is_empty(), "no check passes for a failed program: {:?}", record.checks);
    }

    #[test]
    fn a_line_that_is_not_an_iteration_fails_the_trial_and_is_quoted() {
        let script = "echo '1 1'; echo 'hello'; echo '1 1'";
        let record = run(10_000, script);
        assert_eq!(record.status, Status::Failed);
        let why = "printed a line that is not an iteration: `hello` is not `wall_ns cpu_ns` (two whole numbers)";
        assert_eq!(record.reason, Some(format!("{} {why}", shown(script))));
    }

    #[test]
    fn too_few_iterations_fail_the_trial() {
        let script = "echo '1 1'; echo '1 1'";
        let record = run(10_000, script);
        assert_eq!(record.status, Status::Failed);
        assert_eq!(record.reason, Some(format!("{} printed 2 iterations where 3 were asked for", shown(script))));
    }

    #[test]
    fn a_hang_is_killed_at_its_time_budget_and_marked_timeout() {
        let started = Instant::now();
        let record = run(300, "echo '1 1'; echo 'started' >&2; sleep 30");
        assert_eq!(record.status, Status::Timeout);
        assert!(started.elapsed() < Duration::from_secs(20), "the hung program's group was not killed");
        assert_eq!(record.iterations.len(), 1, "what it printed before is kept");
        assert!(record.stderr_tail.as_deref().is_some_and(|t| t.contains("started")), "{record:?}");
    }
}
