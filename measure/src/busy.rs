//! The busy-machine guard: whether other processes used the CPU while a timed iteration ran, so that an
//! iteration measured on a shared machine is re-run, or flagged when it stays disturbed.
//!
//! Around every timed iteration the harness takes a [`CpuReading`] before the stopwatch starts and after it
//! stops: the CPU time the whole machine spent busy, from the `cpu` line of `/proc/stat` (user, nice, system,
//! irq, softirq and steal; idle and iowait are not busy), and the CPU time of the trial's own process
//! (`CLOCK_PROCESS_CPUTIME_ID`). What the machine spent beyond the trial's own is what *other* processes used
//! (the lab's parent process, which only waits on the trial's output, is among them and costs next to nothing).
//! An iteration is [`Disturbance::disturbed`] when others used more than [`OTHERS_CORE_SHARE`] of one core over
//! the iteration's wall time, plus [`TICK_SLACK`] for the coarseness of `/proc/stat`.
//!
//! Steal time (a hypervisor running another guest on this VM's core) counts as busy: to the contestant it is
//! the same as another process taking its core.
//!
//! A scenario that starts a process of its own for the trial (the network scenarios' loopback server) registers
//! it with [`count_as_own`]: its CPU is then the trial's, not another process's, and the server answering the
//! contestant's calls does not mark the contestant's iterations disturbed.
//!
//! The readings come through the [`CpuSource`] trait so the rule can be tested with fake values
//! ([`ProcStat`] is the real one).

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use crate::cpu;
use crate::units::Nanos;

/// Share of one core that other processes may use during a timed iteration before it counts as disturbed:
/// 0.25, a quarter of a core. A shell, an editor or the lab's own parent process stays far below it; a compiler,
/// a test suite or another benchmark on the same machine goes well beyond it.
pub const OTHERS_CORE_SHARE: f64 = 0.25;

/// Allowance for the coarseness of `/proc/stat`, added to what other processes may use: 30 ms. The kernel prints
/// its counters in `USER_HZ` units (10 ms) and, with tick-based accounting, books a core's time at its scheduler
/// tick (4 ms at `HZ=250`), so two readings of a 2-core machine can be off by about 2 × 10 ms + 2 × 4 ms even when
/// nothing else ran.
pub const TICK_SLACK: Duration = Duration::from_millis(30);

/// How many times the harness re-runs a disturbed measured iteration before it keeps the last run and flags it.
pub const MAX_RERUNS: u32 = 3;

/// The 1-minute load average per core above which the lab warns, before a full run, that the machine is busy:
/// 0.5 (one core's worth of runnable work on a 2-core machine).
pub const BUSY_LOAD_PER_CORE: f64 = 0.5;

/// CPU time the machine and the trial's process have used so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuReading {
    /// Busy CPU time of the whole machine, every core summed, in nanoseconds; `None` where `/proc/stat` cannot
    /// be read (the guard then judges nothing).
    pub machine_busy_ns: Option<Nanos>,
    /// CPU time of the trial's own process, every thread summed, in nanoseconds.
    pub own_ns: Nanos,
}

/// Where [`CpuReading`]s come from: [`ProcStat`] on a real machine, fixed values in tests.
pub trait CpuSource {
    /// Read the machine's and the own process's CPU time now.
    fn read(&mut self) -> CpuReading;
}

/// The real source: `/proc/stat` for the machine, `CLOCK_PROCESS_CPUTIME_ID` for the own process.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcStat;

impl CpuSource for ProcStat {
    /// Allocates nothing (the harness reads it right before a timed window, where allocation is not counted but
    /// is still the contestant's time): the first 512 bytes of `/proc/stat`, which hold its aggregate `cpu` line,
    /// go into a buffer on the stack.
    fn read(&mut self) -> CpuReading {
        use std::io::Read as _;
        let mut buf = [0u8; 512];
        let machine_busy_ns = std::fs::File::open("/proc/stat")
            .and_then(|mut file| file.read(&mut buf))
            .ok()
            .and_then(|n| std::str::from_utf8(&buf[..n]).ok().and_then(machine_busy_ns));
        let own_ns = cpu::process_cpu_clock_ns().unwrap_or_else(|| cpu::process_usage().cpu_ns());
        CpuReading { machine_busy_ns, own_ns: own_ns + companions_ns() }
    }
}

/// Processes started for the trial whose CPU counts as the trial's own ([`count_as_own`]); 0 is a free slot.
static COMPANIONS: [AtomicU32; 4] = [const { AtomicU32::new(0) }; 4];

/// Count process `pid`, started for this trial (a loopback server), as part of the trial: the guard adds its CPU
/// to the trial's own. Returns `false` when every one of the few slots is taken (the process then counts as
/// another's, as before). Undo with [`forget`] when the process ends.
pub fn count_as_own(pid: u32) -> bool {
    COMPANIONS.iter().any(|slot| slot.compare_exchange(0, pid, Ordering::AcqRel, Ordering::Acquire).is_ok())
}

/// Stop counting process `pid` as part of the trial.
pub fn forget(pid: u32) {
    for slot in &COMPANIONS {
        let _ = slot.compare_exchange(pid, 0, Ordering::AcqRel, Ordering::Acquire);
    }
}

/// User plus system CPU of every registered companion process, in nanoseconds, read without allocating (a
/// process that is gone counts 0).
fn companions_ns() -> Nanos {
    COMPANIONS.iter().map(|slot| slot.load(Ordering::Acquire)).filter(|&pid| pid != 0).map(companion_ns).sum()
}

/// User plus system CPU of process `pid` from `/proc/<pid>/stat` (fields 14 and 15, in `USER_HZ` ticks), read
/// into buffers on the stack.
fn companion_ns(pid: u32) -> Nanos {
    use std::io::{Read as _, Write as _};
    let mut path = [0u8; 32];
    let mut cursor = std::io::Cursor::new(&mut path[..]);
    if write!(cursor, "/proc/{pid}/stat").is_err() {
        return 0;
    }
    let len = cursor.position() as usize;
    let Ok(path) = std::str::from_utf8(&path[..len]) else { return 0 };
    let mut buf = [0u8; 1024];
    let Ok(n) = std::fs::File::open(path).and_then(|mut file| file.read(&mut buf)) else { return 0 };
    let Ok(text) = std::str::from_utf8(&buf[..n]) else { return 0 };
    stat_cpu_ticks(text).map_or(0, |ticks| ticks * 1_000_000_000 / user_hz())
}

/// utime + stime, in ticks, of a `/proc/<pid>/stat` text: fields 14 and 15, counted after the command name
/// (which may hold spaces and ends at the last `)`).
fn stat_cpu_ticks(stat: &str) -> Option<u64> {
    let rest = stat.get(stat.rfind(')')? + 1..)?;
    let mut fields = rest.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(utime + stime)
}

/// `USER_HZ`, the unit of `/proc/stat`'s counters (`sysconf(_SC_CLK_TCK)`; 100 on every Linux the lab knows).
fn user_hz() -> u64 {
    // SAFETY: sysconf reads a constant of the running system; it has no memory effects.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    u64::try_from(hz).ok().filter(|&hz| hz > 0).unwrap_or(100)
}

/// The busy CPU time, in nanoseconds, of the aggregate `cpu` line of a `/proc/stat` text: user, nice, system,
/// irq, softirq and steal (guest time is already inside user); `None` if there is no such line.
pub fn machine_busy_ns(proc_stat: &str) -> Option<Nanos> {
    let line = proc_stat.lines().find(|l| l.starts_with("cpu "))?;
    let mut fields = [0u64; 10];
    for (slot, f) in fields.iter_mut().zip(line.split_whitespace().skip(1)) {
        *slot = f.parse().unwrap_or(0);
    }
    let field = |i: usize| fields[i];
    // user nice system idle iowait irq softirq steal guest guest_nice
    let ticks = field(0) + field(1) + field(2) + field(5) + field(6) + field(7);
    Some(ticks.saturating_mul(1_000_000_000) / user_hz())
}

/// What other processes did during one timed iteration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Disturbance {
    /// CPU other processes used over the window, in cores (CPU time over wall time).
    pub others_cores: f64,
    /// Whether that was beyond [`OTHERS_CORE_SHARE`] of a core plus [`TICK_SLACK`].
    pub disturbed: bool,
}

impl Disturbance {
    /// Judge the window from `before` to `after`, which lasted `wall`; `None` when the machine's CPU could not be
    /// read at either end.
    pub fn judge(before: &CpuReading, after: &CpuReading, wall: Duration) -> Option<Disturbance> {
        let machine = after.machine_busy_ns?.saturating_sub(before.machine_busy_ns?);
        let own = after.own_ns.saturating_sub(before.own_ns);
        let others = machine.saturating_sub(own);
        let wall_ns = wall.as_nanos().max(1) as f64;
        let allowed = OTHERS_CORE_SHARE * wall_ns + TICK_SLACK.as_nanos() as f64;
        Some(Disturbance { others_cores: others as f64 / wall_ns, disturbed: others as f64 > allowed })
    }
}

/// The 1-minute load average from `/proc/loadavg`, `None` where it cannot be read.
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg").ok()?.split_whitespace().next()?.parse().ok()
}

/// A warning that the machine is busy, when the 1-minute `load` average is above [`BUSY_LOAD_PER_CORE`] per core
/// of `cores`; `None` when it is not.
pub fn busy_warning(load: f64, cores: u32) -> Option<String> {
    let cores = cores.max(1);
    (load > BUSY_LOAD_PER_CORE * f64::from(cores)).then(|| {
        format!(
            "the machine is busy: its 1-minute load average is {load:.2} on {cores} cores (more than {BUSY_LOAD_PER_CORE} \
             per core). Timed iterations that other processes disturb are re-run, but figures are steadiest on a \
             quiet machine: stop other work (builds, tests, benchmarks) and run again."
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn reading(machine_ms: u64, own_ms: u64) -> CpuReading {
        CpuReading { machine_busy_ns: Some(machine_ms * MS), own_ns: own_ms * MS }
    }

    /// A fake source that hands out fixed readings in turn.
    struct Fake(Vec<CpuReading>);

    impl CpuSource for Fake {
        fn read(&mut self) -> CpuReading {
            self.0.remove(0)
        }
    }

    #[test]
    fn a_quiet_machine_marks_nothing() {
        // 200 ms iteration: the trial used 380 ms of CPU (two threads), the machine 395 ms.
        let mut quiet = Fake(vec![reading(1_000, 100), reading(1_395, 480)]);
        let (before, after) = (quiet.read(), quiet.read());
        let d = Disturbance::judge(&before, &after, Duration::from_millis(200)).expect("readable");
        assert!(!d.disturbed, "{d:?}");
        assert!((d.others_cores - 15.0 / 200.0).abs() < 1e-9);
    }

    #[test]
    fn a_busy_machine_marks_the_iteration() {
        // 200 ms iteration: the trial used 200 ms, the machine 390 ms: others took 0.95 of a core.
        let mut busy = Fake(vec![reading(1_000, 100), reading(1_390, 300)]);
        let (before, after) = (busy.read(), busy.read());
        let d = Disturbance::judge(&before, &after, Duration::from_millis(200)).expect("readable");
        assert!(d.disturbed, "{d:?}");
        assert!((d.others_cores - 0.95).abs() < 1e-9);
    }

    #[test]
    fn the_slack_absorbs_a_tick_or_two_on_a_short_iteration() {
        // 20 ms iteration: 20 ms of others is within the tick slack (5 ms share + 30 ms slack).
        let d = Disturbance::judge(&reading(0, 0), &reading(40, 20), Duration::from_millis(20)).expect("readable");
        assert!(!d.disturbed, "{d:?}");
        let d = Disturbance::judge(&reading(0, 0), &reading(60, 20), Duration::from_millis(20)).expect("readable");
        assert!(d.disturbed, "{d:?}");
    }

    #[test]
    fn an_unreadable_machine_judges_nothing() {
        let unreadable = CpuReading { machine_busy_ns: None, own_ns: 0 };
        assert_eq!(Disturbance::judge(&unreadable, &reading(10, 0), Duration::from_millis(5)), None);
    }

    #[test]
    fn proc_stat_busy_time_counts_steal_and_not_idle_or_iowait() {
        let text = "cpu  100 10 50 9000 300 5 5 30 0 0\ncpu0 50 5 25 4500 150 2 2 15 0 0\n";
        let hz = user_hz();
        assert_eq!(machine_busy_ns(text), Some(200 * 1_000_000_000 / hz));
        assert_eq!(machine_busy_ns("intr 1 2 3\n"), None);
        assert!(ProcStat.read().machine_busy_ns.is_some(), "the lab runs on Linux, which has /proc/stat");
    }

    #[test]
    fn a_companion_process_counts_as_the_trial_s_own() {
        let stat = "4242 (lab __serve) S 1 4242 4242 0 -1 4194560 100 0 0 0 37 5 0 0 20 0 3 0\n";
        assert_eq!(stat_cpu_ticks(stat), Some(42));
        // This very process as its own companion: the reading grows by at least its own CPU.
        let me = std::process::id();
        let alone = ProcStat.read().own_ns;
        assert!(count_as_own(me));
        let with = ProcStat.read().own_ns;
        forget(me);
        assert!(with >= alone + companion_ns(me).saturating_sub(20_000_000), "{alone} {with}");
        assert!(COMPANIONS.iter().all(|slot| slot.load(Ordering::Acquire) != me), "forgotten");
    }

    #[test]
    fn a_load_above_half_a_core_per_core_is_busy() {
        assert_eq!(busy_warning(0.9, 2), None);
        let warning = busy_warning(1.5, 2).expect("busy");
        assert!(warning.contains("1.50") && warning.contains("stop other work"), "{warning}");
    }
}
