//! A paired run (`--paired A,B`): a user's own two contestants, only they, their processes alternating in the
//! rotation of a real run (A B, B A, A B, …, so that neither always runs first). The answer per metric and phase
//! is A's median over B's with its 95% hierarchical bootstrap interval, and the smallest ratio this pairing can
//! tell apart, from its own A/A pairs: each side's processes split into halves ([`super::pairs`]), both sides'
//! pairs together. A is told from B when their process-median ranges are apart and the ratio is beyond that
//! ratio, with the exact p of the separation.

pub use super::paired_answer::{Paired, PairedMetric};
use super::pairs::{self, Pair, MAX_PAIRS};
use crate::compare::{compare, separation_p};
use crate::summary::{metric_key, Summary};

/// The answer of a paired run of `a` and `b` on each of `metrics` (without phase prefix) at every phase of
/// `summary`; a metric either side lacks is left out.
pub fn analyse(summary: &Summary, a: &str, b: &str, metrics: &[&str]) -> Paired {
    let mut found = Vec::new();
    for phase in summary.phase_keys() {
        for metric in metrics {
            let key = metric_key(phase, metric);
            let (Some(sa), Some(sb)) = (summary.metric(a, &key), summary.metric(b, &key)) else { continue };
            let aa: Vec<Pair> =
                [sa, sb].iter().flat_map(|s| pairs::pairs_of(&s.samples, MAX_PAIRS, summary.method.seed)).collect();
            let refs: Vec<&Pair> = aa.iter().collect();
            let sdr = pairs::sdr(&refs);
            let apart = sdr.is_some_and(|s| !compare(sa, sb, s - 1.0).noise);
            found.push(PairedMetric {
                metric: key,
                ratio: sa.median / sb.median,
                ci95: crate::stats::ratio_ci95(sa, sb),
                processes: (sa.processes, sb.processes),
                sdr,
                arm: sa.samples.len().min(sb.samples.len()) / 2,
                aa_pairs: aa.len(),
                apart,
                p: apart.then(|| separation_p(sa.processes, Some(sb.processes))),
            });
        }
    }
    Paired { a: a.to_string(), b: b.to_string(), metrics: found }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::{ContestantSummary, Family};

    fn contestant(name: &str, medians: &[f64]) -> ContestantSummary {
        let forks: Vec<Vec<f64>> = medians.iter().map(|m| vec![m * 0.999, *m, m * 1.001]).collect();
        let metrics = [("ms_per_million".to_string(), crate::stats::summarize(&forks).expect("samples"))].into();
        ContestantSummary::ran(name, Family::Stream, metrics)
    }

    #[test]
    fn a_pairing_reports_its_ratio_interval_and_own_smallest_detectable_ratio() {
        let a: Vec<f64> = (0..10).map(|i| 107.0 + f64::from(i % 5) * 0.5).collect();
        let b: Vec<f64> = (0..10).map(|i| 100.0 + f64::from(i % 5) * 0.5).collect();
        let summary = crate::summary::tests::summary(vec![contestant("a", &a), contestant("b", &b)]);
        let paired = analyse(&summary, "a", "b", &["ms_per_million", "absent"]);
        assert_eq!(paired.metrics.len(), 1, "a metric neither measured is left out");
        let m = &paired.metrics[0];
        assert!((m.ratio - 1.07).abs() < 0.01, "{m:?}");
        let (low, high) = m.ci95.expect("an interval");
        assert!(low < m.ratio && m.ratio < high && high < 1.1, "{m:?}");
        assert_eq!((m.processes, m.arm, m.aa_pairs), ((10, 10), 5, 504));
        let sdr = m.sdr.expect("a ratio");
        assert!(sdr < 1.03, "tight processes tell small ratios: {sdr}");
        assert!(m.apart && m.p.is_some_and(|p| p < 0.001), "{m:?}");
    }

    #[test]
    fn a_pairing_within_its_own_noise_is_not_told_apart() {
        let a: Vec<f64> = (0..10).map(|i| 100.0 + f64::from(i) * 3.0).collect();
        let b: Vec<f64> = (0..10).map(|i| 101.0 + f64::from(i) * 3.0).collect();
        let summary = crate::summary::tests::summary(vec![contestant("a", &a), contestant("b", &b)]);
        let m = &analyse(&summary, "a", "b", &["ms_per_million"]).metrics[0];
        assert!(!m.apart && m.p.is_none(), "{m:?}");
    }
}
