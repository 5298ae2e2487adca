//! `calibration.md`: what `lab calibrate` measured, for a person. Results in, markdown out: every number is
//! computed by [`measure::calibration`] and formatted here; `templates/calibration.md` holds the words.

use measure::calibration::pairs::Rate;
use measure::calibration::{Calibration, MetricClass, Pool};
use serde_json::{json, Value};

use crate::format;

/// The thresholds the rate table of `calibration.md` shows (every candidate is in `calibration.json`).
const SHOWN: [f64; 9] = [1.0, 1.02, 1.05, 1.08, 1.1, 1.15, 1.2, 1.3, 1.5];

/// `calibration.md` of `calibration`.
pub fn render(calibration: &Calibration) -> String {
    let e = &calibration.environment;
    let testbed = e.testbed.as_ref();
    let classes: Vec<Value> = calibration
        .classes
        .iter()
        .map(|c| {
            json!({
                "class": c.class.key(),
                "pools": c.pools,
                "pairs": c.pairs,
                "sdr": c.sdr.map(format::ratio),
                "ratio_rate": c.at_sdr.map(|r| format::percent(r.ratio_rate)),
                "rule_rate": c.at_sdr.map(|r| format::percent(r.rule_rate)),
            })
        })
        .collect();
    let rate_rows: Vec<Value> = SHOWN
        .iter()
        .map(|&t| {
            let cells: Vec<String> = calibration
                .classes
                .iter()
                .map(|c| {
                    c.rates
                        .iter()
                        .find(|r: &&Rate| (r.threshold - t).abs() < 1e-9)
                        .map_or_else(|| "—".to_string(), |r| format::percent(r.ratio_rate))
                })
                .collect();
            json!({ "threshold": format::ratio(t), "cells": cells })
        })
        .collect();
    let context = json!({
        "git_rev": calibration.provenance.git_rev,
        "git_dirty": calibration.provenance.git_dirty,
        "started": calibration.provenance.started_utc,
        "finished": calibration.provenance.finished_utc,
        "quick": calibration.method.quick,
        "forks": calibration.method.forks,
        "processes": calibration.method.processes,
        "padding": format::number(calibration.method.padding_max_bytes as f64),
        "seed": calibration.method.seed,
        "limit": format::percent(calibration.method.limit),
        "pairs_formed": calibration.method.pairs_formed,
        "cpu": e.cpu_model,
        "cores": e.cores,
        "memory_gib": e.memory_gib,
        "kernel": e.kernel,
        "rustc": e.rustc,
        "build_profile": e.build_profile,
        "smt": testbed.map(|t| t.smt.value.clone()),
        "virtualised": testbed.map(|t| t.virtualised.value.clone()),
        "cpuset": testbed.map(|t| t.cpuset.value.clone()),
        "classes": classes,
        "class_keys": calibration.classes.iter().map(|c| c.class.key()).collect::<Vec<_>>(),
        "rate_rows": rate_rows,
        "scenarios": calibration.scenarios.iter().map(|s| json!({
            "scenario": s.scenario,
            "contestants": s.contestants,
            "params": s.params.iter().map(|(k, v)| format!("--{} {v}", k.replace('_', "-"))).collect::<Vec<_>>(),
            "why": s.why,
            "report": s.report,
        })).collect::<Vec<_>>(),
        "not_offered": calibration.not_offered,
        "pools": calibration.pools.iter().map(pool_view).collect::<Vec<_>>(),
        "uncalibrated": MetricClass::ALL
            .iter()
            .filter(|c| !calibration.classes.iter().any(|k| k.class == **c && k.sdr.is_some()))
            .map(|c| c.key())
            .collect::<Vec<_>>(),
    });
    let mut text = template!("calibration.md", context);
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// One pool as the table shows it: its spread across processes (largest process median over the smallest), its
/// own smallest detectable ratio, and its note.
fn pool_view(pool: &Pool) -> Value {
    let low = pool.process_medians.iter().copied().fold(f64::INFINITY, f64::min);
    let high = pool.process_medians.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let pairs: Vec<&measure::calibration::Pair> = pool.pairs.iter().collect();
    json!({
        "scenario": pool.scenario,
        "contestant": pool.contestant,
        "metric": pool.metric,
        "class": pool.class.key(),
        "processes": pool.process_medians.len(),
        "spread": (low > 0.0 && high.is_finite()).then(|| format::ratio(high / low)),
        "pairs": pool.pairs.len(),
        "sdr": measure::calibration::pairs::sdr(&pairs).map(format::ratio),
        "note": pool.note,
    })
}
