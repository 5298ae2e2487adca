//! The http scenario's claims, as a table the harness judges ([`measure::judge`]); every claim has an id.

use measure::compare::{Basis, Relation};
use measure::judge::{ClaimSpec, Comparison, Phase};

/// What `cpu_us_per_call` measures here.
const CPU_DEFINITION: &str =
    "CPU of the client (trial) process only, per call, over each timed iteration; the server's \
                              CPU is apart (`server_cpu_us_per_call`)";

/// Every claim, as rows the harness judges ([`measure::judge`]).
pub fn table() -> Vec<ClaimSpec> {
    vec![
        ClaimSpec::new(
            "An async client costs less CPU per call than a thread per connection at 500 in flight: \
             `stream-hyper` below `blocking-std` in client CPU µs per call.",
            "cpu_us_per_call",
            CPU_DEFINITION,
            (Relation::AtMost, 1.0),
            Basis::Ranges,
            vec![Comparison::contestants("stream-hyper", "blocking-std", Phase::Unphased)],
        )
        .with_id("async-client-cheaper-than-a-thread"),
        ClaimSpec::new(
            "The same for the convenience libraries: `stream-reqwest` below `blocking-ureq` in client CPU µs per \
             call.",
            "cpu_us_per_call",
            CPU_DEFINITION,
            (Relation::AtMost, 1.0),
            Basis::Ranges,
            vec![Comparison::contestants("stream-reqwest", "blocking-ureq", Phase::Unphased)],
        )
        .with_id("async-library-cheaper-than-threaded-library"),
    ]
}
