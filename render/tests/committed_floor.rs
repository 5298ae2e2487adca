//! The committed `reports/floor.md` is what its `floor.json` renders: a change to the floor page's words or ratios
//! re-renders it (`LAB_WRITE_FLOOR=1 cargo test -p render --test committed_floor`) from the sitting's figures,
//! never by measuring again.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use measure::floor::Floor;

fn reports() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().join("reports")
}

#[test]
fn the_committed_floor_page_is_what_its_json_renders() {
    let json = std::fs::read_to_string(reports().join("floor.json")).expect("the sitting commits reports/floor.json");
    let floor: Floor = serde_json::from_str(&json).unwrap();
    let page = render::floor::render(&floor);
    let path = reports().join("floor.md");
    if std::env::var_os("LAB_WRITE_FLOOR").is_some() {
        std::fs::write(&path, &page).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap();
    assert!(
        committed == page,
        "reports/floor.md differs from what reports/floor.json renders: LAB_WRITE_FLOOR=1 re-renders it"
    );
}
