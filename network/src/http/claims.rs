//! The http scenario's claims, as a table the harness judges ([`measure::judge`]); every claim has an id.

use measure::compare::Relation;
use measure::judge::ClaimSpec;

use crate::claim::pairwise;

/// `cpu_us_per_call`, and what it measures here.
const CPU: (&str, &str) = (
    "cpu_us_per_call",
    "CPU of the client (trial) process only, per call, over each timed iteration; the server's \
                              CPU is apart (`server_cpu_us_per_call`)",
);

/// Every claim, as rows the harness judges ([`measure::judge`]).
pub fn table() -> Vec<ClaimSpec> {
    vec![
        pairwise(
            "async-client-cheaper-than-a-thread",
            "An async client costs less CPU per call than a thread per connection at 500 in flight: \
             `stream-hyper` below `blocking-std` in client CPU µs per call.",
            CPU,
            (Relation::AtMost, 1.0),
            ("stream-hyper", "blocking-std"),
        ),
        pairwise(
            "async-library-cheaper-than-threaded-library",
            "The same for the convenience libraries: `stream-reqwest` below `blocking-ureq` in client CPU µs per \
             call.",
            CPU,
            (Relation::AtMost, 1.0),
            ("stream-reqwest", "blocking-ureq"),
        ),
    ]
}
