//! The output folder: atomic writes that leave no temporary files, and a raw appender that appends lines.
#![allow(clippy::unwrap_used)]

use std::fs;

use render::{OutputDir, OutputError, Rendered, RenderedFile};

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

#[test]
fn raw_files_created_with_the_same_stamp_are_different_new_files() {
    let dir = tempfile::tempdir().unwrap();
    let out = OutputDir::new(dir.path());
    let mut first = out.create_raw("chain", "20261130T100000Z").unwrap();
    let mut second = out.create_raw("chain", "20261130T100000Z").unwrap();
    assert_ne!(first.path(), second.path());
    assert!(first.rel_path().starts_with("raw/chain-20261130T100000Z-"), "{}", first.rel_path());
    first.append_line("one").unwrap();
    second.append_line("two").unwrap();
    assert_eq!(fs::read_to_string(first.path()).unwrap(), "one\n");
    assert_eq!(fs::read_to_string(second.path()).unwrap(), "two\n");
}

#[test]
fn a_folder_is_locked_by_one_holder_at_a_time_and_the_refusal_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = OutputDir::new(dir.path().join("out"));
    let held = out.lock().unwrap();
    let error = out.lock().unwrap_err();
    assert!(matches!(error, OutputError::Locked { .. }), "{error:?}");
    let message = error.to_string();
    assert!(message.contains("in use by another lab run"), "{message}");
    assert!(message.contains(&format!("pid {}", std::process::id())), "{message}");
    drop(held);
    out.lock().unwrap();
}

/// Write the old report, `prepare` the folder, then try `new` over it: the write fails naming `blocker`, the old
/// markdown and JSON stay, and the folder holds `names` and no staging folder.
fn assert_old_report_survives(
    new: Vec<RenderedFile>,
    prepare: impl FnOnce(&std::path::Path),
    blocker: &str,
    names: [&str; 3],
) {
    let dir = tempfile::tempdir().unwrap();
    let out = OutputDir::new(dir.path());
    out.write(&Rendered { files: vec![file("chain.md", "old md\n"), file("chain.json", "old json\n")] }).unwrap();
    prepare(dir.path());
    let error = out.write(&Rendered { files: new }).unwrap_err();
    assert!(error.to_string().contains(blocker), "{error}");
    assert_eq!(fs::read_to_string(dir.path().join("chain.md")).unwrap(), "old md\n");
    assert_eq!(fs::read_to_string(dir.path().join("chain.json")).unwrap(), "old json\n");
    assert_eq!(names_in(dir.path()), names, "no staging folder is left behind");
}

#[test]
fn a_report_that_cannot_be_staged_whole_replaces_nothing() {
    // `img` is a file, so the chart cannot be written: the markdown and JSON before it must stay the old ones.
    let new = vec![file("chain.md", "new md\n"), file("chain.json", "new json\n"), file("img/chain-ms.svg", "<svg/>")];
    let in_the_way = |root: &std::path::Path| fs::write(root.join("img"), "in the way").unwrap();
    assert_old_report_survives(new, in_the_way, "img", ["chain.json", "chain.md", "img"]);
}

#[test]
fn a_report_that_fails_half_way_into_place_is_rolled_back() {
    // The second destination is a folder, so renaming over it fails after the first file was replaced.
    let new = vec![file("chain.md", "new md\n"), file("chain.svg", "<svg/>"), file("chain.json", "new json\n")];
    let folder = |root: &std::path::Path| {
        fs::create_dir(root.join("chain.svg")).unwrap();
        fs::write(root.join("chain.svg").join("keep"), "x").unwrap();
    };
    assert_old_report_survives(new, folder, "chain.svg", ["chain.json", "chain.md", "chain.svg"]);
}

#[test]
fn an_append_to_a_full_device_fails_and_names_the_file() {
    // /dev/full accepts the open and refuses every write, as a full disk does.
    let mut raw = OutputDir::new("/dev").raw_appender("full").unwrap();
    let error = raw.append_line("{\"record\":\"trial\"}").unwrap_err();
    assert!(matches!(error, OutputError::Append { .. }));
    assert!(error.to_string().contains("/dev/full"), "{error}");
}
