//! `lab floor` end to end: a `--quick` measurement writes `floor.json` and `floor.md` with every probe, each
//! measured or saying why not; bad input exits 2 and writes nothing.
#![allow(clippy::unwrap_used)]

mod common;

use common::{lab, read_json};

#[test]
fn a_quick_floor_writes_every_probe_with_its_process_medians() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("floor");
    lab()
        .args(["floor", "--quick", "--processes", "2", "--samples", "2", "--out"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicates::str::contains("The floor of this machine"));
    let floor = read_json(&out.join("floor.json"));
    assert_eq!((floor["schema_version"].as_u64(), floor["processes"].as_u64()), (Some(1), Some(2)));
    let figures = floor["figures"].as_array().unwrap();
    assert_eq!(figures.len(), 10, "{floor}");
    for figure in figures {
        match figure.get("not_applicable") {
            Some(why) => assert!(why.as_str().unwrap().contains("CPU"), "{figure}"),
            None => {
                assert_eq!(figure["process_medians"].as_array().unwrap().len(), 2, "{figure}");
                assert!(figure["ns_per_op"].as_f64().unwrap() > 0.0, "{figure}");
            }
        }
    }
    let page = std::fs::read_to_string(out.join("floor.md")).unwrap();
    assert!(page.contains("| `wake_same_cpu` |") && page.contains("`--quick` smoke measurement"), "{page}");
}

#[test]
fn a_bad_count_exits_2_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("floor");
    lab().args(["floor", "--processes", "0", "--out"]).arg(&out).assert().code(2);
    assert!(!out.exists());
}
