//! The sizes of the runtimes and pools inside a trial process (tokio's workers, rayon's pool, `may`'s carriers, a
//! scenario's own placement of client and server), as a scenario declares them
//! ([`Scenario::runtime_sizes`](crate::scenario::Scenario::runtime_sizes)): each with how it is decided and the
//! file and code that decide it. The lab turns the declarations into the [`Setting`](crate::setup::Setting)s every
//! run's testbed records, and a test of the lab checks that each file still holds its code.

use crate::record::RunParams;

/// Code a file of the workspace holds, where a size is decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Code {
    /// The file, from the workspace root, such as `chain/src/chain/contestants/rayon.rs`.
    pub file: &'static str,
    /// Text the file holds, such as `ThreadPoolBuilder::new()`.
    pub holds: &'static str,
}

impl Code {
    /// `holds`, in `file` (from the workspace root).
    pub const fn new(file: &'static str, holds: &'static str) -> Code {
        Code { file, holds }
    }
}

/// Where a trial process runs, as a [`Decided::Placed`] size reads it.
#[derive(Debug, Clone, Copy)]
pub struct TrialCpus<'a> {
    /// The run's parameters.
    pub params: &'a RunParams,
    /// The CPUs a trial may use, in order.
    pub cpus: &'a [usize],
}

/// A size a scenario's own placement decided: its value and where that came from, in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// The value, such as `1 (CPU 1)`.
    pub value: String,
    /// Where it came from, such as `fixed by the lab whatever the cores: …`.
    pub source: String,
}

/// How a size is decided.
#[derive(Debug, Clone, Copy)]
pub enum Decided {
    /// One per CPU the trial may use (`available_parallelism` in the trial process), unless `variable` is set in
    /// the environment the trial inherits.
    PerCpu {
        /// Who sizes it so, such as `tokio's default: one worker per CPU`.
        why: &'static str,
        /// The environment variable that overrides it, such as `TOKIO_WORKER_THREADS`.
        variable: Option<&'static str>,
    },
    /// Fixed in the lab's code, whatever the cores.
    Fixed {
        /// The value, in words if it varies by contestant.
        value: &'static str,
        /// Who fixes it and how.
        why: &'static str,
    },
    /// By the scenario's own placement of its processes on the trial's CPUs (the network scenarios' client and
    /// server): the function gives the value and its source in words.
    Placed(fn(&TrialCpus<'_>) -> Decision),
}

/// One size inside a trial process: its setting's name, how it is decided, and the code that decides it.
#[derive(Debug, Clone, Copy)]
pub struct RuntimeSize {
    /// The setting's id (`tokio.worker_threads`, `rayon.threads`, `may.carriers`, `network.server`).
    pub setting: &'static str,
    /// How it is decided.
    pub decided: Decided,
    /// The code that decides it (named in the setting's source, unless [`Decided::Placed`] words its own).
    pub code: Code,
    /// Further code the size relies on, checked but not named.
    pub also: &'static [Code],
}

impl RuntimeSize {
    /// tokio's multi-thread runtime with its default worker count, built by `code`.
    pub const fn tokio(code: Code) -> RuntimeSize {
        let why = "tokio's default: one worker per CPU";
        RuntimeSize::per_cpu("tokio.worker_threads", why, Some("TOKIO_WORKER_THREADS"), code)
    }

    /// rayon's pool with its default thread count, built in `file` by `ThreadPoolBuilder::new()`.
    pub const fn rayon(file: &'static str) -> RuntimeSize {
        let why = "rayon's default: one thread per CPU";
        RuntimeSize::per_cpu(
            "rayon.threads",
            why,
            Some("RAYON_NUM_THREADS"),
            Code::new(file, "ThreadPoolBuilder::new()"),
        )
    }

    /// `may` with one carrier per CPU the trial may use, set by `code`.
    pub const fn may_per_core(code: Code) -> RuntimeSize {
        let why = "set by the lab (`may::config().set_workers`): one carrier per CPU";
        RuntimeSize::per_cpu("may.carriers", why, None, code)
    }

    /// `may` with `carriers` carrier threads (in words), fixed by `code` whatever the cores.
    pub const fn may_fixed(carriers: &'static str, code: Code) -> RuntimeSize {
        let why = "fixed by the lab (`may::config().set_workers`), whatever the cores";
        RuntimeSize { setting: "may.carriers", decided: Decided::Fixed { value: carriers, why }, code, also: &[] }
    }

    /// Setting `setting`, decided by `place` from where the trial runs, in `code`.
    pub const fn placed(setting: &'static str, place: fn(&TrialCpus<'_>) -> Decision, code: Code) -> RuntimeSize {
        RuntimeSize { setting, decided: Decided::Placed(place), code, also: &[] }
    }

    /// The same size, relying also on `also` (checked beside [`RuntimeSize::code`]).
    pub const fn relying_on(self, also: &'static [Code]) -> RuntimeSize {
        RuntimeSize { also, ..self }
    }

    /// Setting `setting`, one per CPU (`why`), overridden by `variable`, decided by `code`.
    const fn per_cpu(
        setting: &'static str,
        why: &'static str,
        variable: Option<&'static str>,
        code: Code,
    ) -> RuntimeSize {
        RuntimeSize { setting, decided: Decided::PerCpu { why, variable }, code, also: &[] }
    }

    /// Every piece of code the size relies on: [`RuntimeSize::code`], then [`RuntimeSize::also`].
    pub fn codes(&self) -> impl Iterator<Item = &Code> {
        std::iter::once(&self.code).chain(self.also)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_size_relies_on_its_code_first_then_the_further_code() {
        const ALSO: &[Code] = &[Code::new("b.rs", "b()")];
        let size = RuntimeSize::may_per_core(Code::new("a.rs", "a()")).relying_on(ALSO);
        let files: Vec<&str> = size.codes().map(|c| c.file).collect();
        assert_eq!(files, ["a.rs", "b.rs"]);
        assert!(matches!(size.decided, Decided::PerCpu { variable: None, .. }));
        assert!(matches!(RuntimeSize::tokio(size.code).decided, Decided::PerCpu { variable: Some(_), .. }));
    }
}
