//! The testbed beyond the CPU model, cores and memory — SMT, virtualisation, the frequency governor, the CPUs the
//! lab may use and its cgroup's CPU limits — and every default limit a contestant can hit, each as a
//! [`Setting`] with where its value came from.
//!
//! Reading is split from parsing: [`capture`] reads `/proc`, `/sys` and `getrlimit`, and hands the texts to pure
//! functions that the tests feed fixed strings.

use measure::setup::{cpu_list, Setting, Testbed, NOT_READABLE};

use crate::cpus::allowed_cpus;
use crate::environment::{field, SYSCTLS};

/// Where the kernel says whether SMT is active (`1`) or not (`0`).
const SMT_ACTIVE: &str = "/sys/devices/system/cpu/smt/active";

/// Where the firmware names the machine's maker and model (a hypervisor's name, in a virtual machine).
const DMI_VENDOR: &str = "/sys/class/dmi/id/sys_vendor";

/// The machine's model name from its firmware.
const DMI_PRODUCT: &str = "/sys/class/dmi/id/product_name";

/// CPU 0's frequency governor.
const GOVERNOR: &str = "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor";

/// The backlog the network server's listeners pass to `listen(2)`: tokio's `TcpListener::bind` leaves it to
/// mio, whose `TcpListener::bind` passes std's value, 128 on Linux.
const LISTEN_BACKLOG: u32 = 128;

/// tokio's default most threads of a runtime's blocking pool (`Builder::max_blocking_threads`).
const TOKIO_MAX_BLOCKING_THREADS: u32 = 512;

/// What Rust's `std` gives a thread it starts without a stack size, in bytes, when `RUST_MIN_STACK` is unset.
const STD_THREAD_STACK_BYTES: u64 = 2 * 1024 * 1024;

/// Read the testbed now.
pub(crate) fn capture() -> Testbed {
    let file = |path: &str| std::fs::read_to_string(path).ok();
    let cpuinfo = file("/proc/cpuinfo").unwrap_or_default();
    let locked = crate::environment::locked_version("mio");
    Testbed {
        smt: smt(&cpuinfo, file(SMT_ACTIVE).as_deref()),
        virtualised: virtualised(&cpuinfo, file(DMI_VENDOR).as_deref(), file(DMI_PRODUCT).as_deref()),
        governor: governor(file(GOVERNOR).as_deref()),
        cpuset: cpuset(&allowed_cpus()),
        cgroup: cgroup(&file("/proc/self/cgroup").unwrap_or_default(), file),
        limits: limits(file, &Rlimits::read(), std::env::var("RUST_MIN_STACK").ok().as_deref(), locked.as_deref()),
    }
}

/// Hardware threads per core: `siblings` (threads per package) over `cpu cores` (cores per package) of
/// `/proc/cpuinfo`, else whether `/sys/devices/system/cpu/smt/active` says SMT is on.
pub(crate) fn smt(cpuinfo: &str, smt_active: Option<&str>) -> Setting {
    let number = |key: &str| field(cpuinfo, key, ':').and_then(|v| v.parse::<u32>().ok());
    let active = smt_active.map(str::trim).filter(|a| *a == "0" || *a == "1");
    let active_note = active.map(|a| format!("; {SMT_ACTIVE}: {a}")).unwrap_or_default();
    if let (Some(siblings), Some(cores)) = (number("siblings"), number("cpu cores")) {
        if cores > 0 && siblings >= cores {
            return Setting::new(
                "smt",
                (siblings / cores).to_string(),
                format!("/proc/cpuinfo: siblings {siblings} ÷ cpu cores {cores}{active_note}"),
            );
        }
    }
    match active {
        Some("0") => Setting::new("smt", "1", format!("{SMT_ACTIVE}: 0 (SMT off)")),
        Some(_) => Setting::new("smt", "2 or more", format!("{SMT_ACTIVE}: 1 (SMT on)")),
        None => Setting::new("smt", NOT_READABLE, format!("/proc/cpuinfo (no siblings or cpu cores); {SMT_ACTIVE}")),
    }
}

/// Whether the lab runs in a virtual machine: the `hypervisor` flag the CPU shows a guest in `/proc/cpuinfo`,
/// with the firmware's vendor and product names where readable.
pub(crate) fn virtualised(cpuinfo: &str, vendor: Option<&str>, product: Option<&str>) -> Setting {
    let flags = field(cpuinfo, "flags", ':');
    let names: Vec<&str> = [vendor, product].into_iter().flatten().map(str::trim).filter(|s| !s.is_empty()).collect();
    let read: Vec<&str> = ["`hypervisor` flag in /proc/cpuinfo"]
        .into_iter()
        .chain(vendor.map(|_| DMI_VENDOR))
        .chain(product.map(|_| DMI_PRODUCT))
        .collect();
    let answer = match flags {
        Some(flags) if flags.split_whitespace().any(|f| f == "hypervisor") => "yes",
        Some(_) => "no",
        None => NOT_READABLE,
    };
    let value = if names.is_empty() || answer == NOT_READABLE {
        answer.to_string()
    } else {
        format!("{answer} ({})", names.join(", "))
    };
    Setting::new("virtualised", value, read.join("; "))
}

/// The frequency governor of CPU 0, or [`NOT_READABLE`] (a virtual machine usually shows none).
pub(crate) fn governor(text: Option<&str>) -> Setting {
    let value = text.map(str::trim).filter(|t| !t.is_empty()).unwrap_or(NOT_READABLE);
    Setting::new("governor", value, GOVERNOR)
}

/// The CPUs the lab process may run on (its affinity mask), such as `0-1 (2 CPUs)`.
pub(crate) fn cpuset(cpus: &[usize]) -> Setting {
    let value = if cpus.is_empty() {
        NOT_READABLE.to_string()
    } else {
        format!("{} ({} CPU{})", cpu_list(cpus), cpus.len(), if cpus.len() == 1 { "" } else { "s" })
    };
    Setting::new("cpuset", value, "sched_getaffinity(2) of the lab process")
}

/// The cgroup path of `controller` in `/proc/self/cgroup`'s text: the `0::` line for cgroup v2 (`controller`
/// empty), else the v1 line whose controllers include it.
fn cgroup_path<'t>(proc_self_cgroup: &'t str, controller: &str) -> Option<&'t str> {
    proc_self_cgroup.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (_id, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let matches = if controller.is_empty() {
            controllers.is_empty()
        } else {
            controllers.split(',').any(|c| c == controller)
        };
        matches.then_some(path)
    })
}

/// The first of `candidates` (a cgroup folder, a file in it) that `read` can read, with its path.
fn first_readable(candidates: &[(String, &str)], read: &dyn Fn(&str) -> Option<String>) -> Option<(String, String)> {
    candidates.iter().find_map(|(folder, file)| {
        let path = format!("{}/{file}", folder.trim_end_matches('/'));
        read(&path).map(|text| (path, text.trim().to_string()))
    })
}

/// The cgroup's CPU limits where readable: its cpuset (`cgroup.cpuset`) and its CPU quota (`cgroup.cpu_quota`),
/// from cgroup v2's `cpuset.cpus.effective` and `cpu.max`, else v1's `cpuset.effective_cpus` and
/// `cpu.cfs_quota_us` over `cpu.cfs_period_us`; the process's own cgroup first, then the root. `read` reads a
/// file.
pub(crate) fn cgroup(proc_self_cgroup: &str, read: impl Fn(&str) -> Option<String>) -> Vec<Setting> {
    let root = "/sys/fs/cgroup";
    let folders = |mount: &str, controller: &str| -> Vec<String> {
        let base = if mount.is_empty() { root.to_string() } else { format!("{root}/{mount}") };
        let own = cgroup_path(proc_self_cgroup, controller).filter(|p| *p != "/").map(|p| format!("{base}{p}"));
        own.into_iter().chain([base]).collect()
    };
    let with = |folders: Vec<String>, file: &'static str| -> Vec<(String, &str)> {
        folders.into_iter().map(|f| (f, file)).collect()
    };
    let mut found = Vec::new();
    let mut cpuset = with(folders("", ""), "cpuset.cpus.effective");
    cpuset.extend(with(folders("cpuset", "cpuset"), "cpuset.effective_cpus"));
    if let Some((path, text)) = first_readable(&cpuset, &read) {
        let value = if text.is_empty() { "every CPU (none listed)".to_string() } else { text };
        found.push(Setting::new("cgroup.cpuset", value, path));
    }
    if let Some((path, text)) = first_readable(&with(folders("", ""), "cpu.max"), &read) {
        found.push(Setting::new("cgroup.cpu_quota", cpu_max(&text), format!("{path} (`{text}`)")));
    } else if let Some((path, quota)) = first_readable(&with(folders("cpu", "cpu"), "cpu.cfs_quota_us"), &read) {
        let period = read(&path.replace("cpu.cfs_quota_us", "cpu.cfs_period_us")).unwrap_or_default();
        let period = period.trim();
        let value = cpu_max(&format!("{} {period}", if quota == "-1" { "max" } else { &quota }));
        found.push(Setting::new(
            "cgroup.cpu_quota",
            value,
            format!("{path} (`{quota}`), cpu.cfs_period_us (`{period}`)"),
        ));
    }
    found
}

/// A CPU quota from cgroup v2's `cpu.max` text (`max 100000`, `150000 100000`): `none`, or the CPUs' worth of
/// time it allows per period (`1.5 CPUs`); the text itself when it is in neither form.
pub(crate) fn cpu_max(text: &str) -> String {
    let mut parts = text.split_whitespace();
    match (parts.next(), parts.next().and_then(|p| p.parse::<f64>().ok())) {
        (Some("max"), _) => "none".to_string(),
        (Some(quota), Some(period)) if period > 0.0 => match quota.parse::<f64>() {
            Ok(quota) => {
                let cpus = quota / period;
                format!("{} CPU{}", trim_number(cpus), if cpus == 1.0 { "" } else { "s" })
            }
            Err(_) => text.to_string(),
        },
        _ => text.to_string(),
    }
}

/// A number with at most two decimals and no trailing zeros (`1.5`, `2`).
fn trim_number(x: f64) -> String {
    let text = format!("{x:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A resource limit's soft and hard values, `None` where unlimited.
type Rlimit = (Option<u64>, Option<u64>);

/// The lab's resource limits as `getrlimit(2)` gives them (its trials inherit them), and whether it runs as root.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Rlimits {
    /// `RLIMIT_NOFILE`: open files.
    pub nofile: Option<Rlimit>,
    /// `RLIMIT_NPROC`: processes (threads count) of the user.
    pub nproc: Option<Rlimit>,
    /// `RLIMIT_STACK`: the main thread's stack.
    pub stack: Option<Rlimit>,
    /// Whether the lab runs as root, to whom the kernel does not hold `RLIMIT_NPROC`.
    pub root: bool,
}

impl Rlimits {
    /// Read them now.
    fn read() -> Rlimits {
        macro_rules! getrlimit {
            ($resource:expr) => {{
                let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
                // SAFETY: `limit` is a valid, writable rlimit for the duration of the call.
                let rc = unsafe { libc::getrlimit($resource, &mut limit) };
                let finite = |v: libc::rlim_t| (v != libc::RLIM_INFINITY).then_some(v as u64);
                (rc == 0).then(|| (finite(limit.rlim_cur), finite(limit.rlim_max)))
            }};
        }
        Rlimits {
            nofile: getrlimit!(libc::RLIMIT_NOFILE),
            nproc: getrlimit!(libc::RLIMIT_NPROC),
            stack: getrlimit!(libc::RLIMIT_STACK),
            // SAFETY: geteuid has no preconditions and cannot fail.
            root: unsafe { libc::geteuid() } == 0,
        }
    }
}

/// A resource limit as `20000 soft, 20000 hard` (`unlimited` for either), or [`NOT_READABLE`].
fn rlimit_value(limit: Option<Rlimit>) -> String {
    let one = |v: Option<u64>| v.map_or_else(|| "unlimited".to_string(), |v| v.to_string());
    limit.map_or_else(|| NOT_READABLE.to_string(), |(soft, hard)| format!("{} soft, {} hard", one(soft), one(hard)))
}

/// Every default limit a contestant can hit, each with where it came from: the OS limits ([`SYSCTLS`], read with
/// `read`), the resource limits, `std`'s thread stack (`rust_min_stack`: the `RUST_MIN_STACK` variable, if set),
/// tokio's blocking pool, `may`'s stack, pool and pinning as the lab sets them, and the network server's listen
/// backlog (`mio`: the locked version of mio, which passes it).
pub(crate) fn limits(
    read: impl Fn(&str) -> Option<String>,
    rlimits: &Rlimits,
    rust_min_stack: Option<&str>,
    mio: Option<&str>,
) -> Vec<Setting> {
    let mut rows: Vec<Setting> = SYSCTLS
        .iter()
        .map(|(name, path)| {
            let value = read(path).map(|t| t.trim().to_string()).filter(|t| !t.is_empty());
            Setting::new(*name, value.unwrap_or_else(|| NOT_READABLE.to_string()), *path)
        })
        .collect();
    rows.push(Setting::new(
        "RLIMIT_NOFILE",
        rlimit_value(rlimits.nofile),
        "getrlimit(RLIMIT_NOFILE) of the lab, which its trials inherit; the network server and the HTTP clients \
         raise the soft limit to the hard one (network/src/server.rs `raise_fd_limit`)",
    ));
    let nproc_note = if rlimits.root { "; not enforced: the lab runs as root" } else { "" };
    rows.push(Setting::new(
        "RLIMIT_NPROC",
        rlimit_value(rlimits.nproc),
        format!("getrlimit(RLIMIT_NPROC) of the lab, which its trials inherit (every thread counts){nproc_note}"),
    ));
    rows.push(Setting::new(
        "RLIMIT_STACK",
        rlimit_value(rlimits.stack),
        "getrlimit(RLIMIT_STACK): the main thread's stack; a thread the lab starts takes the size of the next row",
    ));
    rows.push(match rust_min_stack {
        Some(bytes) => Setting::new(
            "std.thread_stack",
            format!("{bytes} bytes"),
            "RUST_MIN_STACK in the lab's environment, which its trials inherit",
        ),
        None => Setting::new(
            "std.thread_stack",
            format!("{} MiB", STD_THREAD_STACK_BYTES / 1024 / 1024),
            "Rust's default (docs: std::thread, \"Stack size\"; RUST_MIN_STACK unset); a contestant that sets its \
             own says so in its description",
        ),
    });
    rows.push(Setting::new(
        "tokio.max_blocking_threads",
        TOKIO_MAX_BLOCKING_THREADS.to_string(),
        "tokio's default (docs: runtime::Builder::max_blocking_threads); no runtime in the lab sets another",
    ));
    let stack_words = pipelines::coroutine::DEFAULT_STACK_WORDS;
    rows.push(Setting::new(
        "may.stack",
        format!("{stack_words:#x} words ({} KiB) and a guard page", stack_words * std::mem::size_of::<usize>() / 1024),
        "set by the lab, also `may`'s default: pipelines/src/coroutine.rs `DEFAULT_STACK_WORDS` \
         (`set_stack_size`); memory's `coroutine-may-8k` uses 0x400 words (8 KiB)",
    ));
    rows.push(Setting::new(
        "may.pool_capacity",
        pipelines::coroutine::DEFAULT_POOL_CAPACITY.to_string(),
        "set by the lab, also `may`'s default: pipelines/src/coroutine.rs `DEFAULT_POOL_CAPACITY` \
         (`set_pool_capacity`); memory's coroutine contestants use 1, so every unit maps a fresh stack",
    ));
    rows.push(Setting::new(
        "may.worker_pin",
        "off",
        "set by the lab: pipelines/src/coroutine.rs `set_worker_pin(false)` (`may` pins carrier i to CPU i by \
         default)",
    ));
    let mio = mio.map_or_else(|| "mio".to_string(), |v| format!("mio {v}"));
    rows.push(Setting::new(
        "listen_backlog",
        LISTEN_BACKLOG.to_string(),
        format!(
            "the network server's two listeners: tokio `TcpListener::bind` (network/src/server.rs), whose {mio} \
             passes std's backlog to listen(2); the kernel caps it at net.core.somaxconn"
        ),
    ));
    rows
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// A reader over fixed files.
    fn files(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: BTreeMap<String, String> = pairs.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect();
        move |path: &str| map.get(path).cloned()
    }

    /// The start of this machine's `/proc/cpuinfo` (a 2-vCPU guest).
    const CPUINFO: &str = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC\nphysical id\t: 0\n\
                           siblings\t: 2\ncore id\t\t: 0\ncpu cores\t: 2\nflags\t\t: fpu vme de hypervisor lahf_lm\n";

    #[test]
    fn smt_is_siblings_over_cores() {
        let off = smt(CPUINFO, Some("0\n"));
        assert_eq!(off.value, "1");
        assert_eq!(off.source, "/proc/cpuinfo: siblings 2 ÷ cpu cores 2; /sys/devices/system/cpu/smt/active: 0");
        let on = smt("siblings\t: 16\ncpu cores\t: 8\n", None);
        assert_eq!((on.value.as_str(), on.source.as_str()), ("2", "/proc/cpuinfo: siblings 16 ÷ cpu cores 8"));
    }

    #[test]
    fn without_cpuinfo_fields_smt_comes_from_sys() {
        assert_eq!(smt("processor\t: 0\n", Some("1")).value, "2 or more");
        assert_eq!(smt("", Some("0")).value, "1");
        assert_eq!(smt("", None).value, NOT_READABLE);
        assert_eq!(smt("", Some("notsupported")).value, NOT_READABLE);
    }

    #[test]
    fn the_hypervisor_flag_says_virtualised_with_the_vendor_where_readable() {
        let guest = virtualised(CPUINFO, None, None);
        assert_eq!(guest.value, "yes");
        assert_eq!(guest.source, "`hypervisor` flag in /proc/cpuinfo");
        let named = virtualised(CPUINFO, Some("QEMU\n"), Some("Standard PC (Q35 + ICH9, 2009)\n"));
        assert_eq!(named.value, "yes (QEMU, Standard PC (Q35 + ICH9, 2009))");
        assert!(named.source.ends_with("/sys/class/dmi/id/sys_vendor; /sys/class/dmi/id/product_name"));
        assert_eq!(virtualised("flags\t: fpu vme\n", Some("Dell Inc."), None).value, "no (Dell Inc.)");
        assert_eq!(virtualised("processor\t: 0\n", None, None).value, NOT_READABLE);
    }

    #[test]
    fn the_governor_is_read_or_said_unreadable() {
        assert_eq!(governor(Some("performance\n")).value, "performance");
        assert_eq!(governor(None).value, NOT_READABLE);
        assert_eq!(governor(None).source, GOVERNOR);
    }

    #[test]
    fn the_cpuset_is_a_compact_list_with_its_count() {
        assert_eq!(cpuset(&[0, 1]).value, "0-1 (2 CPUs)");
        assert_eq!(cpuset(&[3]).value, "3 (1 CPU)");
        assert_eq!(cpuset(&[]).value, NOT_READABLE);
    }

    #[test]
    fn cgroup_v2_limits_are_read_from_the_process_own_cgroup() {
        let own = "0::/user.slice/lab.scope\n";
        let read = files(&[
            ("/sys/fs/cgroup/user.slice/lab.scope/cpuset.cpus.effective", "0-3\n"),
            ("/sys/fs/cgroup/user.slice/lab.scope/cpu.max", "150000 100000\n"),
            ("/sys/fs/cgroup/cpu.max", "max 100000\n"),
        ]);
        let rows = cgroup(own, read);
        assert_eq!(
            rows[0],
            Setting::new("cgroup.cpuset", "0-3", "/sys/fs/cgroup/user.slice/lab.scope/cpuset.cpus.effective")
        );
        assert_eq!(rows[1].value, "1.5 CPUs");
        assert_eq!(rows[1].source, "/sys/fs/cgroup/user.slice/lab.scope/cpu.max (`150000 100000`)");
    }

    #[test]
    fn cgroup_v1_limits_are_read_where_v2_has_none() {
        // This machine: cgroup v1 with every controller at its root.
        let own = "9:name=systemd:/\n3:cpuset:/\n1:cpu:/\n0::/\n";
        let read = files(&[
            ("/sys/fs/cgroup/cpuset/cpuset.effective_cpus", "0-1\n"),
            ("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "-1\n"),
            ("/sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n"),
        ]);
        let rows = cgroup(own, read);
        assert_eq!(rows[0].value, "0-1");
        assert_eq!(rows[0].source, "/sys/fs/cgroup/cpuset/cpuset.effective_cpus");
        assert_eq!(rows[1].value, "none");
        assert_eq!(rows[1].source, "/sys/fs/cgroup/cpu/cpu.cfs_quota_us (`-1`), cpu.cfs_period_us (`100000`)");
        let quota = files(&[
            ("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", "200000\n"),
            ("/sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n"),
        ]);
        assert_eq!(cgroup(own, quota)[0].value, "2 CPUs");
        assert!(cgroup(own, files(&[])).is_empty(), "nothing readable, nothing listed");
    }

    #[test]
    fn cpu_max_reads_as_cpus_of_time() {
        assert_eq!(cpu_max("max 100000"), "none");
        assert_eq!(cpu_max("100000 100000"), "1 CPU");
        assert_eq!(cpu_max("50000 100000"), "0.5 CPUs");
        assert_eq!(cpu_max("junk"), "junk");
    }

    #[test]
    fn every_limit_is_listed_with_its_source() {
        let read = files(&[
            ("/proc/sys/vm/max_map_count", "65530\n"),
            ("/proc/sys/kernel/pid_max", "32768\n"),
            ("/proc/sys/net/core/somaxconn", "4096\n"),
        ]);
        let rlimits = Rlimits {
            nofile: Some((Some(1024), Some(524_288))),
            nproc: Some((Some(96_369), Some(96_369))),
            stack: Some((Some(8_388_608), None)),
            root: true,
        };
        let rows = limits(read, &rlimits, None, Some("1.2.5"));
        let row = |name: &str| rows.iter().find(|r| r.name == name).cloned().unwrap_or_default();
        assert_eq!(row("vm.max_map_count"), Setting::new("vm.max_map_count", "65530", "/proc/sys/vm/max_map_count"));
        assert_eq!(row("kernel.threads-max").value, NOT_READABLE);
        assert_eq!(row("net.core.somaxconn").value, "4096");
        assert_eq!(row("RLIMIT_NOFILE").value, "1024 soft, 524288 hard");
        assert!(row("RLIMIT_NOFILE").source.starts_with("getrlimit(RLIMIT_NOFILE)"));
        assert!(row("RLIMIT_NPROC").source.ends_with("not enforced: the lab runs as root"));
        assert_eq!(row("RLIMIT_STACK").value, "8388608 soft, unlimited hard");
        assert_eq!(row("std.thread_stack").value, "2 MiB");
        assert_eq!(row("tokio.max_blocking_threads").value, "512");
        assert_eq!(row("may.stack").value, "0x1000 words (32 KiB) and a guard page");
        assert_eq!(row("may.pool_capacity").value, "1000");
        assert_eq!(row("may.worker_pin").value, "off");
        assert_eq!(row("listen_backlog").value, "128");
        assert!(row("listen_backlog").source.contains("mio 1.2.5"));
        let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names.len(), 13, "{names:?}");
        let custom = limits(files(&[]), &Rlimits::default(), Some("65536"), None);
        assert!(custom.iter().any(|r| r.name == "std.thread_stack" && r.value == "65536 bytes"));
        assert!(custom.iter().any(|r| r.name == "RLIMIT_NOFILE" && r.value == NOT_READABLE));
    }

    #[test]
    fn this_machine_reads() {
        let testbed = capture();
        assert_eq!(testbed.rows().count(), 4 + testbed.cgroup.len() + testbed.limits.len());
        if cfg!(target_os = "linux") {
            assert_ne!(testbed.cpuset.value, NOT_READABLE);
        }
    }

    /// The Rust files of the workspace (outside `target/`), as (path, text).
    fn workspace_sources() -> Vec<(std::path::PathBuf, String)> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut out = Vec::new();
        let mut stack = vec![root];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for entry in entries.flatten() {
                let path = entry.path();
                let name = entry.file_name();
                if path.is_dir() {
                    if name != "target" && name != ".git" && name != "reports" {
                        stack.push(path);
                    }
                } else if path.extension().is_some_and(|e| e == "rs") {
                    if let Ok(text) = std::fs::read_to_string(&path) {
                        out.push((path, text));
                    }
                }
            }
        }
        out
    }

    #[test]
    fn no_code_in_the_workspace_changes_the_defaults_the_report_calls_defaults() {
        // tokio's blocking pool stays at its default; `may` is configured in one place only.
        for (path, text) in workspace_sources() {
            if path.ends_with("lab/src/testbed.rs") {
                continue;
            }
            assert!(!text.contains(".max_blocking_threads("), "{} sets max_blocking_threads", path.display());
            if !path.ends_with("pipelines/src/coroutine.rs") && !path.to_string_lossy().contains("/tests/") {
                for call in [".set_stack_size(", ".set_pool_capacity(", ".set_worker_pin("] {
                    assert!(!text.contains(call), "{} calls {call}", path.display());
                }
            }
        }
    }
}
