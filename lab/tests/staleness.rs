//! The committed reports were measured by the code at the head of the branch: every committed JSON under
//! `reports/` names one measuring revision, clean, and no file on a timed or judging path (the contestants, their
//! conformance, the harness, the judge, the scenarios' routines: [`MEASURED`]) differs from that revision.
//!
//! The sitting records what it measured with in `reports/sources.txt`: its revision, then `git ls-files -s` of the
//! measured paths (mode, blob hash, stage, path; a Rust file's hash is that of its text without its unit-test module). `LAB_WRITE_SOURCES=1 cargo test -p lab --test staleness` writes
//! it (`just sitting` does, first, on its clean tree); every other run compares the tree with it, so the change
//! that makes the committed reports stale fails here, where it is made, not in a reader's hands. Only the git index
//! is read with the working tree (no history), so a shallow clone checks the same.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The paths whose change changes what a committed report measured or how it was judged (git pathspecs, from
/// the workspace root): the Rust source of every crate that runs or judges a trial, the lock file, the build
/// profile and the toolchain. Left out: `render/` and every template and `report.rs` (they word and draw what
/// was judged; a re-render refreshes them), tests, benches, docs and the reports themselves.
const MEASURED: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    "rust-toolchain.toml",
    "lab/build.rs",
    "lab/src",
    "measure/src",
    "pipelines/src",
    "chain/src",
    "handoff/src",
    "dependency/src",
    "overload/src",
    "device/src",
    "costs/src",
    "network/src",
    "standalone/src",
    "service/src",
    ":(exclude)**/templates/**",
    ":(exclude)**/report.rs",
    ":(exclude)measure/src/template.rs",
    ":(exclude)measure/src/template/**",
];

/// Where the sitting's record of what it measured with lives.
const SOURCES: &str = "reports/sources.txt";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn git(args: &[&str]) -> String {
    let out = Command::new("git").arg("-C").arg(root()).args(args).output().expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// `git ls-files -s` of the measured paths: one line per file, mode, hash, stage and path. A Rust file's hash is
/// the git blob hash of its text without its unit tests (`#[cfg(test)]` then `mod tests`, [`without_tests`]): a
/// unit test runs nothing a trial runs, as the tests under `tests/` do not, so editing one leaves the reports
/// measured by the same code.
fn measured_files() -> Vec<String> {
    let mut args = vec!["ls-files", "-s", "--"];
    args.extend_from_slice(MEASURED);
    git(&args)
        .lines()
        .map(|line| {
            let Some((meta, path)) = line.split_once('\t') else { return line.to_string() };
            if !path.ends_with(".rs") {
                return line.to_string();
            }
            let text = std::fs::read_to_string(root().join(path)).unwrap();
            let fields: Vec<&str> = meta.split(' ').collect();
            format!("{} {} {}\t{path}", fields[0], blob_hash(&without_tests(&text)), fields[2])
        })
        .collect()
}

/// `text` without its unit-test module: from a line `#[cfg(test)]` followed by a line `mod tests` to the module's
/// closing brace, the first `}` at the start of a line after it (rustfmt indents everything inside, and `just test`
/// checks the formatting). Whatever follows the module still counts; a module never closed leaves `text` whole.
fn without_tests(text: &str) -> String {
    let Some(at) = text.find("\n#[cfg(test)]\nmod tests") else { return text.to_string() };
    match text[at..].find("\n}\n") {
        Some(close) => format!("{}{}", &text[..=at], &text[at + close + "\n}\n".len()..]),
        None => text.to_string(),
    }
}

/// The git blob hash of `text` (`git hash-object --stdin`).
fn blob_hash(text: &str) -> String {
    use std::io::Write;
    let mut child = Command::new("git")
        .arg("-C")
        .arg(root())
        .args(["hash-object", "--stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("git runs");
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "git hash-object");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// Every committed JSON under `reports/` (raw records and images left out), with its path.
fn committed_summaries() -> Vec<(String, serde_json::Value)> {
    git(&["ls-files", "--", "reports/*.json", "reports/**/*.json"])
        .lines()
        .filter(|p| !p.contains("/raw/") && !p.contains("/img/"))
        .map(|p| {
            let text = std::fs::read_to_string(root().join(p)).unwrap();
            (p.to_string(), serde_json::from_str(&text).unwrap_or(serde_json::Value::Null))
        })
        .collect()
}

#[test]
fn the_committed_reports_were_measured_by_the_code_at_head() {
    let path = root().join(SOURCES);
    if std::env::var_os("LAB_WRITE_SOURCES").is_some() {
        let clean = git(&["status", "--porcelain", "--untracked-files=no"]).is_empty();
        assert!(clean, "the sitting records its sources from a clean tree only: commit first");
        let revision = git(&["rev-parse", "--short", "HEAD"]);
        let text = format!("revision {}\n{}\n", revision.trim(), measured_files().join("\n"));
        std::fs::write(&path, text).unwrap();
        return;
    }
    let Ok(recorded) = std::fs::read_to_string(&path) else {
        println!("not applicable: {SOURCES} does not exist (no sitting has recorded what it measured with yet)");
        return;
    };
    let mut lines = recorded.lines();
    let revision =
        lines.next().and_then(|l| l.strip_prefix("revision ")).expect("sources.txt starts with its revision");
    let recorded: Vec<&str> = lines.collect();

    // Every committed JSON names that revision, built clean.
    let mut wrong = Vec::new();
    for (path, json) in committed_summaries() {
        match json.get("git_rev").and_then(|r| r.as_str()) {
            Some(rev) if rev == revision && json.get("git_dirty") != Some(&serde_json::Value::Bool(true)) => {}
            Some(rev) => wrong.push(format!("{path}: measured at {rev}{}", dirty(&json))),
            None => wrong.push(format!("{path}: names no measuring revision")),
        }
    }
    assert!(wrong.is_empty(), "committed reports not from the sitting at {revision}:\n{}", wrong.join("\n"));

    // No measured file differs from what that revision had.
    let now = measured_files();
    let changed = difference(&recorded, &now);
    assert!(
        changed.is_empty(),
        "the committed reports are stale: {} file(s) on a timed or judging path differ from the sitting's revision \
         {revision}; re-run the sitting (`just sitting`) or take the change back:\n{}",
        changed.len(),
        changed.join("\n")
    );
}

fn dirty(json: &serde_json::Value) -> &'static str {
    if json.get("git_dirty") == Some(&serde_json::Value::Bool(true)) {
        " with uncommitted changes"
    } else {
        ""
    }
}

/// The paths added, removed or changed between two `git ls-files -s` listings, each with what happened.
fn difference(before: &[&str], after: &[String]) -> Vec<String> {
    let entries = |lines: &mut dyn Iterator<Item = &str>| -> std::collections::BTreeMap<String, String> {
        lines.filter_map(|l| l.split_once('\t')).map(|(meta, path)| (path.to_string(), meta.to_string())).collect()
    };
    let before = entries(&mut before.iter().copied());
    let after = entries(&mut after.iter().map(String::as_str));
    let mut out = Vec::new();
    for (path, meta) in &after {
        match before.get(path) {
            None => out.push(format!("added: {path}")),
            Some(old) if old != meta => out.push(format!("changed: {path}")),
            Some(_) => {}
        }
    }
    out.extend(before.keys().filter(|p| !after.contains_key(*p)).map(|p| format!("removed: {p}")));
    out
}

#[test]
fn a_listing_difference_names_every_added_changed_and_removed_path() {
    let before = ["100644 aaa 0\tkeep.rs", "100644 bbb 0\tedit.rs", "100644 ccc 0\tgone.rs"];
    let after: Vec<String> = ["100644 aaa 0\tkeep.rs", "100644 bbx 0\tedit.rs", "100644 ddd 0\tnew.rs"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(difference(&before, &after), ["changed: edit.rs", "added: new.rs", "removed: gone.rs"]);
    assert!(difference(&before, &before.iter().map(|s| s.to_string()).collect::<Vec<_>>()).is_empty());
}

#[test]
fn the_measured_paths_cover_every_contestant_and_the_judge_and_leave_out_the_words() {
    let files = measured_files();
    let has = |needle: &str| files.iter().any(|l| l.ends_with(needle));
    for timed in ["measure/src/judge.rs", "measure/src/harness.rs", "pipelines/src/floor.rs", "Cargo.lock"] {
        assert!(has(timed), "{timed} is on a timed or judging path");
    }
    assert!(files.iter().any(|l| l.contains("handoff/src/handoff/contestants/")), "handoff's contestants");
    assert!(files.iter().any(|l| l.contains("handoff/src/handoff/conformance.rs")), "handoff's conformance");
    for words in ["templates/", "/report.rs", "render/src/"] {
        assert!(!files.iter().any(|l| l.contains(words)), "{words} words or draws, and is left out");
    }
}

/// Workspace members that run or judge nothing a report shows: the words and charts, and the tests' helpers.
const NOT_MEASURED: &[&str] = &["render", "testkit"];

#[test]
fn every_workspace_member_that_runs_or_judges_a_trial_is_on_a_measured_path() {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let members = manifest.lines().find(|l| l.trim_start().starts_with("members")).expect("a members line");
    let members: Vec<&str> = members.split('"').skip(1).step_by(2).collect();
    assert!(members.len() > 5, "{members:?}");
    for member in members.into_iter().filter(|m| !NOT_MEASURED.contains(m)) {
        let src = format!("{member}/src");
        assert!(MEASURED.contains(&src.as_str()), "{src} runs or judges trials: add it to MEASURED");
    }
}

#[test]
fn a_unit_test_module_is_left_out_of_a_measured_file() {
    let code = "fn f() {}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n";
    assert_eq!(without_tests(code), "fn f() {}\n");
    assert_eq!(without_tests("fn f() {}\n"), "fn f() {}\n");
    assert_eq!(blob_hash(&without_tests(code)), blob_hash("fn f() {}\n"));
    // Code after the module still counts.
    assert_eq!(without_tests(&format!("{code}fn g() {{}}\n")), "fn f() {}\nfn g() {}\n");
    assert_ne!(blob_hash("fn f() {}\n"), blob_hash("fn g() {}\n"));
}
