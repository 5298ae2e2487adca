//! The http scenario's claims: every claim has an id, and the ids are unique.

use std::collections::BTreeSet;

use network::http::claims::table;

#[test]
fn every_claim_has_a_unique_id() {
    let claims = table();
    assert!(claims.iter().all(|c| !c.id.is_empty()), "a claim without an id");
    let ids: BTreeSet<&str> = claims.iter().map(|c| c.id).collect();
    assert_eq!(ids.len(), claims.len(), "duplicate claim ids: {ids:?}");
}
