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
    assert_eq!(figures.len(), pipelines::floor::Probe::ALL.len(), "{floor}");
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

/// The one raw file under `out/raw`.
fn raw_file(out: &std::path::Path) -> std::path::PathBuf {
    let mut raws: Vec<_> = std::fs::read_dir(out.join("raw")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(raws.len(), 1, "{raws:?}");
    raws.pop().unwrap()
}

#[test]
fn a_run_cites_the_floor_of_its_folder_and_its_re_render_is_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    // A full floor, as small as it comes: one process, one sample.
    let out = dir.path().join("sitting");
    lab().args(["floor", "--processes", "1", "--samples", "1", "--out"]).arg(&out).assert().success();
    let floor = read_json(&out.join("floor.json"));
    assert_eq!(floor["quick"], false);

    // A full run into the same folder cites it: every figure with its process medians, the revision and time.
    lab().args(common::tiny_chain(&out)).args(["--calibration", "none"]).assert().success();
    let summary = read_json(&out.join("chain.json"));
    let cited = &summary["environment"]["floor"];
    assert_eq!(cited["file"], out.join("floor.json").display().to_string());
    assert!(cited.get("not_cited").is_none(), "{cited}");
    assert_eq!(cited["figures"], floor["figures"]);
    assert_eq!((&cited["git_rev"], &cited["measured_utc"]), (&floor["git_rev"], &floor["started_utc"]));
    let report = std::fs::read_to_string(out.join("chain.md")).unwrap();
    assert!(report.contains("The machine's floor of this sitting, measured by `lab floor`"), "{report}");
    assert!(report.contains("| `wake_same_cpu` |"), "{report}");

    // `lab report` into a folder with no floor renders the floor the raw file recorded: the same bytes.
    let raw = raw_file(&out);
    let again = dir.path().join("again");
    lab().arg("report").arg(&raw).arg("--out").arg(&again).assert().success();
    for file in ["chain.md", "chain.json", "chain-details.md"] {
        let (ran, rendered) = (out.join(file), again.join(file));
        assert_eq!(std::fs::read(&ran).unwrap(), std::fs::read(&rendered).unwrap(), "{file} differs");
    }

    // A run made before runs cited a floor (its header without one) cites the floor `lab report` is given.
    let text = std::fs::read_to_string(&raw).unwrap();
    let (head, rest) = text.split_once('\n').unwrap();
    let mut header: serde_json::Value = serde_json::from_str(head).unwrap();
    let method = header.get_mut("environment").unwrap();
    assert!(method.as_object_mut().unwrap().remove("floor").is_some(), "{method}");
    let old = dir.path().join("old");
    std::fs::create_dir_all(old.join("raw")).unwrap();
    let old_raw = old.join("raw").join(raw.file_name().unwrap());
    std::fs::write(&old_raw, format!("{header}\n{rest}")).unwrap();
    lab()
        .arg("report")
        .arg(&old_raw)
        .arg("--out")
        .arg(&old)
        .arg("--floor")
        .arg(out.join("floor.json"))
        .assert()
        .success();
    assert_eq!(read_json(&old.join("chain.json"))["environment"]["floor"]["figures"], floor["figures"]);
}

#[test]
fn a_quick_floor_is_not_cited_by_a_full_run_which_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let quick = dir.path().join("quick");
    lab().args(["floor", "--quick", "--processes", "1", "--samples", "1", "--out"]).arg(&quick).assert().success();
    let file = quick.join("floor.json");
    let out = dir.path().join("run");
    lab().args(common::tiny_chain(&out)).args(["--calibration", "none", "--floor"]).arg(&file).assert().success();
    let cited = &read_json(&out.join("chain.json"))["environment"]["floor"];
    let why = format!("{} is a --quick floor and this is a full run", file.display());
    assert_eq!(cited["not_cited"].as_str(), Some(why.as_str()), "{cited}");
    assert!(cited.get("figures").is_none(), "{cited}");
    let report = std::fs::read_to_string(out.join("chain.md")).unwrap();
    assert!(report.contains(&format!("No floor of this testbed is cited: {why}.")), "{report}");

    // `--floor none` cites none, and says so.
    let none = dir.path().join("none");
    lab().args(common::tiny_chain(&none)).args(["--calibration", "none", "--floor", "none"]).assert().success();
    let cited = &read_json(&none.join("chain.json"))["environment"]["floor"];
    assert_eq!(cited["not_cited"], "--floor none: the run cited no floor");
}
