//! `lab compare`: two summaries side by side, flagging changes beyond the noise threshold.

use std::fmt::Write;
use std::path::Path;

use measure::compare::compare;
use measure::record::Status;
use measure::summary::Summary;

use crate::error::UsageError;

/// Read a summary JSON file, or say why not.
pub(crate) fn read_summary(path: &Path) -> Result<Summary, UsageError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError::new(format!("cannot read summary {}: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| UsageError::new(format!("{}: not a lab summary: {e}", path.display())))
}

/// The comparison as text: one line per contestant and metric present in both, changes flagged.
pub(crate) fn render(base: &Summary, new: &Summary) -> Result<String, UsageError> {
    if base.scenario != new.scenario {
        return Err(UsageError::new(format!(
            "the summaries are of different scenarios (`{}` and `{}`)",
            base.scenario, new.scenario
        )));
    }
    let threshold = base.method.noise_threshold.max(new.method.noise_threshold);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "scenario {}: base {} ({}) vs new {} ({})",
        base.scenario, base.git_rev, base.started_utc, new.git_rev, new.started_utc
    );
    let _ = writeln!(
        out,
        "noise threshold {:.0}%; a change counts only beyond it and beyond both 99.9% intervals",
        threshold * 100.0
    );
    let _ =
        writeln!(out, "{:<34} {:<36} {:>12} {:>12} {:>8}  verdict", "contestant", "metric", "base", "new", "new/base");
    let mut changes = 0;
    for b in &base.contestants {
        let Some(n) = new.contestant(&b.name) else { continue };
        if b.status != Status::Ok || n.status != Status::Ok {
            let _ = writeln!(out, "{:<34} status {} -> {}", b.name, b.status.as_str(), n.status.as_str());
            continue;
        }
        for (metric, bs) in &b.metrics {
            let Some(ns) = n.metrics.get(metric) else { continue };
            let cmp = compare(ns, bs, threshold);
            let verdict = if cmp.noise {
                "noise"
            } else {
                changes += 1;
                if cmp.ratio > 1.0 {
                    "HIGHER"
                } else {
                    "LOWER"
                }
            };
            let _ = writeln!(
                out,
                "{:<34} {:<36} {:>12.4} {:>12.4} {:>8.3}  {verdict}",
                b.name, metric, bs.median, ns.median, cmp.ratio
            );
        }
    }
    let _ = writeln!(out, "{changes} change(s) beyond noise");
    Ok(out)
}
