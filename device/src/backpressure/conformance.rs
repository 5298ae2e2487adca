//! The backpressure scenario's conformance checks, run at [`SIZES`] (the checks' own small sizes, not the
//! scenario's own items and limit: a check proves the shape right, the trial's own checks hold every measured
//! run to its answer and bound (`bounded_outstanding`), and the report reads `small_run_bound` beside that).
//! The scenario has no domain check of its own; it runs every shared check of [`crate::checks`]: `sum_exact`,
//! `small_run_bound`, `failed_calls`, `clean_after_failures`, `cut_short_releases`, `caller_cancel`, and for
//! contestants that start threads up front `skips_with_reason`.

use crate::checks::Sizes;

/// The backpressure scenario's check sizes: 3,000 calls of 1 ms ([`crate::checks::SERVICE`]), bound 40; the trial runs
/// every check at them before measuring ([`crate::trial::run_trial`]), the caller's cancel at the process's own
/// seeded point.
pub(crate) const SIZES: Sizes = Sizes { items: 3_000, limit: 40 };
