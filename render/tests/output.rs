//! The output folder: atomic writes that leave no temporary files, and a raw appender that appends lines.
#![allow(clippy::unwrap_used)]

use std::fs;

use reports::{OutputDir, OutputError, Rendered, RenderedFile};

fn file(path: &str, contents: &str) -> RenderedFile {
    RenderedFile { path: path.to_string(), contents: contents.to_string() }
}

fn names_in(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[test]
fn writing_a_report_creates_img_and_leaves_no_temporary_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = OutputDir::new(dir.path());
    let rendered = Rendered {
        files: vec![file("chain.md", "# report\n"), file("chain.json", "{}\n"), file("img/chain-ms.svg", "<svg/>")],
    };
    out.write(&rendered).unwrap();
    assert_eq!(names_in(dir.path()), ["chain.json", "chain.md", "img"]);
    assert_eq!(names_in(&dir.path().join("img")), ["chain-ms.svg"]);
    assert_eq!(fs::read_to_string(dir.path().join("chain.md")).unwrap(), "# report\n");
}

#[test]
fn writing_again_replaces_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = OutputDir::new(dir.path());
    out.write(&Rendered { files: vec![file("chain.md", "old, and longer\n")] }).unwrap();
    out.write(&Rendered { files: vec![file("chain.md", "new\n")] }).unwrap();
    assert_eq!(fs::read_to_string(dir.path().join("chain.md")).unwrap(), "new\n");
    assert_eq!(names_in(dir.path()), ["chain.md"]);
}

#[test]
fn a_path_leaving_the_folder_is_refused_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let out = OutputDir::new(dir.path().join("out"));
    let error = out.write(&Rendered { files: vec![file("../escape.md", "x")] }).unwrap_err();
    assert!(matches!(error, OutputError::BadPath { .. }));
    assert!(error.to_string().contains("../escape.md"));
    assert!(!dir.path().join("escape.md").exists());
}

#[test]
fn the_raw_appender_appends_one_line_per_call_and_keeps_earlier_lines() {
    let dir = tempfile::tempdir().unwrap();
    let out = OutputDir::new(dir.path());
    let rel = "raw/chain-20261130T100000Z.jsonl";
    {
        let mut raw = out.raw_appender(rel).unwrap();
        raw.append_line(r#"{"record":"run"}"#).unwrap();
        raw.append_line("{\"record\":\"trial\"}\n").unwrap();
        // Every line is on disk before the appender is dropped.
        assert_eq!(fs::read_to_string(raw.path()).unwrap().lines().count(), 2);
    }
    let mut again = out.raw_appender(rel).unwrap();
    again.append_line(r#"{"record":"end"}"#).unwrap();
    assert_eq!(
        fs::read_to_string(dir.path().join(rel)).unwrap(),
        "{\"record\":\"run\"}\n{\"record\":\"trial\"}\n{\"record\":\"end\"}\n"
    );
}

#[test]
fn an_unwritable_folder_is_named_in_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("blocker");
    fs::write(&blocker, "a file where a folder should be").unwrap();
    let out = OutputDir::new(&blocker);
    let error = out.write(&Rendered { files: vec![file("img/x.svg", "<svg/>")] }).unwrap_err();
    assert!(error.to_string().contains("blocker"), "{error}");
}
