//! Records what built the lab, so every report can say it: the compiler version, and the git revision of the
//! source with whether it had uncommitted changes (`reports/` left out: it holds only generated files).

use std::path::Path;
use std::process::Command;

/// The workspace's source, watched so that an edit rebuilds the lab and refreshes its dirty flag.
const SOURCE: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    "lab",
    "measure",
    "pipelines",
    "chain",
    "handoff",
    "dependency",
    "overload",
    "device",
    "costs",
    "network",
    "render",
    "service",
];

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let version = Command::new(rustc)
        .arg("-V")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=LAB_RUSTC_VERSION={version}");
    println!("cargo:rerun-if-env-changed=RUSTC");

    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".to_string());
    let repo = Path::new(&manifest).parent().unwrap_or(Path::new(".")).to_path_buf();
    println!("cargo:rustc-env=LAB_BUILD_PROFILE={}", build_profile(&repo));
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(&repo)
            .args(args)
            .output()
            .ok()
            .filter(|out| out.status.success())
            .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let (rev, dirty) = match git(&["rev-parse", "--short", "HEAD"]) {
        Some(rev) => {
            let status = git(&["status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)reports"]);
            (rev, status.is_some_and(|s| !s.is_empty()))
        }
        None => ("unknown".to_string(), false),
    };
    println!("cargo:rustc-env=LAB_GIT_REV={rev}");
    println!("cargo:rustc-env=LAB_GIT_DIRTY={dirty}");
    // A commit moves HEAD or the branch it names; staging rewrites the index; an edit touches the source.
    for git_path in ["HEAD", "index"] {
        if let Some(path) = git(&["rev-parse", "--git-path", git_path]) {
            println!("cargo:rerun-if-changed={}", repo.join(path).display());
        }
    }
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        if let Some(path) = git(&["rev-parse", "--git-path", &branch]) {
            println!("cargo:rerun-if-changed={}", repo.join(path).display());
        }
    }
    for source in SOURCE {
        println!("cargo:rerun-if-changed={}", repo.join(source).display());
    }
}

/// The profile this build uses, in words: its name (from the target folder cargo builds into: `release`, `debug`
/// for the dev profile, or a custom profile's name), the `OPT_LEVEL` and `DEBUG` cargo hands build scripts, and
/// the `lto` and `codegen-units` declared for it in the workspace's Cargo.toml or overridden by
/// `CARGO_PROFILE_<NAME>_LTO` / `_CODEGEN_UNITS` (cargo does not hand those to build scripts; undeclared ones are
/// cargo's defaults and say so).
fn build_profile(repo: &Path) -> String {
    let env = |key: &str| std::env::var(key).ok();
    // OUT_DIR is <target>/<profile folder>/build/<crate>-<hash>/out.
    let folder = env("OUT_DIR")
        .and_then(|out| {
            Path::new(&out).ancestors().nth(3).and_then(|p| p.file_name()).map(|n| n.to_string_lossy().to_string())
        })
        .unwrap_or_else(|| env("PROFILE").unwrap_or_else(|| "unknown".to_string()));
    let name = if folder == "debug" { "dev".to_string() } else { folder.clone() };
    let manifest = std::fs::read_to_string(repo.join("Cargo.toml")).unwrap_or_default();
    let declared = |key: &str| {
        let var =
            format!("CARGO_PROFILE_{}_{}", name.to_uppercase().replace('-', "_"), key.to_uppercase().replace('-', "_"));
        println!("cargo:rerun-if-env-changed={var}");
        env(&var).or_else(|| profile_key(&manifest, &name, key))
    };
    let lto = declared("lto").unwrap_or_else(|| "false (cargo's default)".to_string());
    let default_units = if name == "dev" { "256 (cargo's default)" } else { "16 (cargo's default)" };
    let units = declared("codegen-units").unwrap_or_else(|| default_units.to_string());
    let debug = declared("debug").unwrap_or_else(|| env("DEBUG").unwrap_or_else(|| "unknown".to_string()));
    let opt = env("OPT_LEVEL").unwrap_or_else(|| "unknown".to_string());
    format!("{folder} (opt-level {opt}, lto {lto}, codegen-units {units}, debug {debug})")
}

/// The value of `key` in `[profile.<name>]` of a Cargo.toml text, quotes removed, if declared there.
fn profile_key(manifest: &str, name: &str, key: &str) -> Option<String> {
    let header = format!("[profile.{name}]");
    let mut inside = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == header;
        } else if inside {
            if let Some((k, v)) = line.split_once('=') {
                if k.trim() == key {
                    return Some(v.split('#').next().unwrap_or("").trim().trim_matches('"').to_string());
                }
            }
        }
    }
    None
}
