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
    "handoff",
    "dependency",
    "overload",
    "device",
    "render",
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
