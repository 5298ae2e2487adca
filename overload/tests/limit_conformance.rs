//! The blocking and async acquire paths admit the same way for every limiter, on a script that moves each
//! adaptive limit both ways and makes both families wait.

use std::time::Duration;

use overload::limit::conformance::{self, AcquirePath};
use overload::limit::{LimiterKind, LimiterParams};

#[test]
fn every_limiter_admits_the_same_way_through_both_paths() {
    for kind in LimiterKind::ALL {
        if let Err(e) = conformance::same_admissions(kind) {
            panic!("{e}");
        }
    }
}

#[test]
fn small_limits_admit_the_same_way_too() {
    let params = LimiterParams {
        fixed_limit: 30,
        initial: 5,
        min: 5,
        max: 40,
        timeout: Duration::from_millis(4),
        no_load: Duration::from_millis(2),
        windowed: false,
    };
    for kind in LimiterKind::ALL {
        if let Err(e) = conformance::same_admissions_with(kind, &params) {
            panic!("{e}");
        }
    }
}

#[test]
fn the_script_moves_adaptive_limits_both_ways_and_makes_callers_wait() {
    // A floor below the start, so a limit that has not risen yet can still fall.
    let params = LimiterParams { min: 5, ..LimiterParams::default() };
    for kind in LimiterKind::ALL {
        for path in [AcquirePath::Blocking, AcquirePath::Async] {
            let trace = conformance::trace(kind, &params, path).unwrap_or_else(|e| panic!("{e}"));
            assert!(trace.stats.queued > 0, "{kind} {path:?}: nobody waited");
            assert!(trace.admissions.iter().all(|&(in_flight, limit)| in_flight <= limit));
            let rose = trace.history.windows(2).any(|w| w[1] > w[0]);
            let fell = trace.history.windows(2).any(|w| w[1] < w[0]);
            match kind {
                LimiterKind::Fixed => assert_eq!(trace.history, vec![500]),
                _ => assert!(rose && fell, "{kind}: limit history {:?}, {:?}", trace.history, trace.stats.decisions),
            }
        }
    }
}
