//! The command line: `<program> --items N --capacity C --iterations K [--work W]`, parsed by hand ([`Args::parse`])
//! and written by the same type ([`Args::to_argv`]), so what the lab asks for is what the binary reads.

/// Which program to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Program {
    /// `crossbeam`: a producer thread sends `0..items` into `crossbeam_channel::bounded(capacity)`; the main
    /// thread receives.
    Crossbeam,
    /// `flume-async`: on a multi-thread tokio runtime, a producer task `send_async`s into
    /// `flume::bounded(capacity)` and a consumer task `recv_async`s.
    FlumeAsync,
    /// `tokio-mpsc`: on a multi-thread tokio runtime, a producer task `send`s into
    /// `tokio::sync::mpsc::channel(capacity)` and a consumer task `recv`s.
    TokioMpsc,
    /// `loop`: the chain's plain loop over `0..items` (map1 with `work` mixing rounds, keep the even values, map2,
    /// wrapping sum) on the main thread; no hand-off.
    Loop,
}

impl Program {
    /// Every program, in the order the usage lists them.
    pub const ALL: [Program; 4] = [Program::Crossbeam, Program::FlumeAsync, Program::TokioMpsc, Program::Loop];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Program::Crossbeam => "crossbeam",
            Program::FlumeAsync => "flume-async",
            Program::TokioMpsc => "tokio-mpsc",
            Program::Loop => "loop",
        }
    }

    /// Its two ends are tasks on a multi-thread tokio runtime.
    pub fn tasks(self) -> bool {
        matches!(self, Program::FlumeAsync | Program::TokioMpsc)
    }
}

/// One run of the binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Args {
    /// The program.
    pub program: Program,
    /// Items per iteration (`0..items`).
    pub items: u64,
    /// Messages the channel holds (ignored by `loop`).
    pub capacity: usize,
    /// Iterations, each timed and printed.
    pub iterations: u32,
    /// Mixing rounds of the loop's map1 (ignored by the hand-offs).
    pub work: u32,
}

/// The usage line, printed with a bad command line.
pub const USAGE: &str =
    "usage: standalone crossbeam|flume-async|tokio-mpsc|loop --items N --capacity C --iterations K [--work W]";

impl Args {
    /// The command line that asks for these arguments (without the program's path).
    pub fn to_argv(&self) -> Vec<String> {
        let mut argv = vec![self.program.name().to_string()];
        argv.extend(["--items".to_string(), self.items.to_string()]);
        argv.extend(["--capacity".to_string(), self.capacity.to_string()]);
        argv.extend(["--iterations".to_string(), self.iterations.to_string()]);
        argv.extend(["--work".to_string(), self.work.to_string()]);
        argv
    }

    /// Read a command line (without the program's path). Every flag but `--work` (0) must be given once, with a
    /// whole number of at least 1; the error names what is wrong.
    pub fn parse(argv: impl IntoIterator<Item = String>) -> Result<Args, String> {
        let mut argv = argv.into_iter();
        let name = argv.next().ok_or("no program named")?;
        let program = Program::ALL.into_iter().find(|p| p.name() == name).ok_or(format!("no program `{name}`"))?;
        let (mut items, mut capacity, mut iterations, mut work) = (None, None, None, None);
        while let Some(flag) = argv.next() {
            let value = argv.next().ok_or(format!("`{flag}` needs a value"))?;
            let number: u64 = value.parse().map_err(|_| format!("`{flag} {value}`: not a whole number"))?;
            let slot = match flag.as_str() {
                "--items" => &mut items,
                "--capacity" => &mut capacity,
                "--iterations" => &mut iterations,
                "--work" => &mut work,
                _ => return Err(format!("unknown flag `{flag}`")),
            };
            if slot.replace(number).is_some() {
                return Err(format!("`{flag}` given twice"));
            }
        }
        let positive = |value: Option<u64>, flag: &str| match value {
            None => Err(format!("`{flag}` is missing")),
            Some(0) => Err(format!("`{flag}` must be at least 1")),
            Some(n) => Ok(n),
        };
        let fits = |n: u64, flag: &str| format!("`{flag} {n}` is too large");
        let capacity = positive(capacity, "--capacity")?;
        let iterations = positive(iterations, "--iterations")?;
        let work = work.unwrap_or(0);
        Ok(Args {
            program,
            items: positive(items, "--items")?,
            capacity: usize::try_from(capacity).map_err(|_| fits(capacity, "--capacity"))?,
            iterations: u32::try_from(iterations).map_err(|_| fits(iterations, "--iterations"))?,
            work: u32::try_from(work).map_err(|_| fits(work, "--work"))?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Args, String> {
        Args::parse(line.split_whitespace().map(str::to_string))
    }

    #[test]
    fn what_the_lab_writes_is_what_the_binary_reads() {
        for program in Program::ALL {
            let args = Args { program, items: 250_000, capacity: 256, iterations: 4, work: 64 };
            assert_eq!(Args::parse(args.to_argv()), Ok(args));
        }
    }

    #[test]
    fn work_defaults_to_zero() {
        let args = parse("loop --items 10 --capacity 1 --iterations 2").map(|a| a.work);
        assert_eq!(args, Ok(0));
    }

    #[test]
    fn a_bad_command_line_says_what_is_wrong() {
        assert_eq!(parse(""), Err("no program named".into()));
        assert_eq!(parse("rayon --items 1"), Err("no program `rayon`".into()));
        assert_eq!(parse("crossbeam --items"), Err("`--items` needs a value".into()));
        assert_eq!(parse("crossbeam --items x"), Err("`--items x`: not a whole number".into()));
        assert_eq!(parse("crossbeam --items -5"), Err("`--items -5`: not a whole number".into()));
        assert_eq!(parse("crossbeam --batch 4"), Err("unknown flag `--batch`".into()));
        assert_eq!(parse("crossbeam --items 1 --items 2"), Err("`--items` given twice".into()));
        assert_eq!(parse("crossbeam --items 1 --iterations 1"), Err("`--capacity` is missing".into()));
        assert_eq!(
            parse("crossbeam --items 1 --capacity 0 --iterations 1"),
            Err("`--capacity` must be at least 1".into())
        );
        assert_eq!(
            parse("crossbeam --items 1 --capacity 1 --iterations 99999999999"),
            Err("`--iterations 99999999999` is too large".into())
        );
    }
}
