//! The committed runs rendered with the current code, in the test's own process: the lab's modules that
//! `lab report` renders a raw file through (a test's root brings them in with
//! `use committed::{answers, environment, error, phase, raw, rendering, summarize, table, term};`, as
//! they name each other from the crate root), and the committed raw files they read.

#![allow(dead_code, unused_imports, unreachable_pub)]

#[path = "../../src/answers.rs"]
pub mod answers;
#[path = "../../src/environment.rs"]
pub mod environment;
#[path = "../../src/error.rs"]
pub mod error;
#[path = "../../src/phase.rs"]
pub mod phase;
#[path = "../../src/raw.rs"]
pub mod raw;
#[path = "../../src/registry.rs"]
pub mod registry;
#[path = "../../src/rendering.rs"]
pub mod rendering;
#[path = "../../src/summarize.rs"]
pub mod summarize;
#[path = "../../src/table.rs"]
pub mod table;
#[path = "../../src/term.rs"]
pub mod term;

use std::path::{Path, PathBuf};

/// The workspace's root folder.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The raw files (`*.jsonl`) in the workspace's `folder`, sorted; none when there is no such folder.
pub fn raw_files(folder: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(workspace().join(folder)) else { return Vec::new() };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    paths.sort();
    paths
}

/// The newest committed raw file of `scenario` in `folder`, if any: `overload-2026…` and not
/// `overload-service-2026…`.
pub fn committed(folder: &str, scenario: &str) -> Option<PathBuf> {
    raw_files(folder).into_iter().rfind(|p| {
        let name = p.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        name.strip_prefix(&format!("{scenario}-")).is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
    })
}

/// `scenario`'s newest committed run in `folder`, rendered with the current code, if there is one.
pub fn rendered(folder: &str, scenario: &str) -> Option<rendering::RenderedRun> {
    let path = committed(folder, scenario)?;
    let run = raw::read(&path).expect("a readable raw file");
    let found = registry::find(scenario).expect("a scenario of the registry");
    Some(rendering::render(&run, found, None))
}

/// The contents of the file `name` among `run`'s rendered files.
pub fn file<'r>(run: &'r rendering::RenderedRun, name: &str) -> &'r str {
    let found = run.files.files.iter().find(|f| f.path == name);
    &found.unwrap_or_else(|| panic!("no {name}")).contents
}
