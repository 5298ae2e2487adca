//! A/A pairs and the smallest detectable ratio they give.
//!
//! A *pool* is one contestant's metric measured in `2F` fresh processes of one run, every process the same
//! binary, parameters and schedule (the rotation of a real run), only its environment size varied. Any split of
//! the pool into two halves of `F` processes is an A/A pair: two arms that differ in nothing but which processes
//! they drew, which is exactly the difference between two contestants' processes that is not the contestants'
//! own. [`splits`] forms them: every split when there are at most [`MAX_PAIRS`] (`C(10, 5)` = 252 at five
//! processes a side, each process in arm A in exactly half of them), else a seeded sample of that many distinct
//! ones, each drawn by shuffling the processes; pairs of one pool share processes, so they are not independent,
//! which is why a calibration counts its pools beside its pairs.
//!
//! On a pair, [`Pair::apart_by_ratio`] asks what the noise line's ratio alone would say at a threshold, and
//! [`Pair::apart_by_rule`] what the judge's whole rule says (process-median ranges apart *and* the ratio beyond
//! the threshold, [`crate::compare::compare`]). Among the splits of one pool the whole rule can call at most 2 of
//! `C(2F, F)` apart whatever the numbers (only the lowest `F` against the highest `F` have ranges apart), so its
//! rate cannot measure the testbed: the smallest detectable ratio ([`sdr`]) is the smallest threshold at which
//! the ratio alone calls at most [`FALSE_SEPARATION_LIMIT`] of the pairs apart, and the judge's rule, stricter
//! still, calls at most as many.

use std::collections::BTreeSet;

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};

use crate::stats::MIN_PROCESSES;

/// Most A/A pairs formed from one pool: every split when there are at most this many, else a seeded sample.
pub const MAX_PAIRS: usize = 252;

/// The largest share of A/A pairs a threshold may call apart for it to be a class's smallest detectable ratio.
pub const FALSE_SEPARATION_LIMIT: f64 = 0.05;

/// The largest ratio the search for a smallest detectable ratio tries: a class whose pairs differ by more is
/// given none.
pub const LARGEST_SDR: f64 = 10.0;

/// The thresholds a calibration gives the false-separation rate at: 1.00 to 1.50 in steps of 0.01.
pub fn candidates() -> Vec<f64> {
    (100..=150).map(grid).collect()
}

/// Grid point `hundredths` / 100, exactly as a ratio written with two decimals reads back.
fn grid(hundredths: u32) -> f64 {
    f64::from(hundredths) / 100.0
}

/// The splits of `n` processes (numbered from 0) into arm A and arm B of `n / 2` each (with `n` odd, the last
/// process is in neither): every split when there are at most `max`, in lexicographic order of arm A, else `max`
/// distinct splits drawn with `seed`. Empty when `n < 2`.
pub fn splits(n: usize, max: usize, seed: u64) -> Vec<(Vec<usize>, Vec<usize>)> {
    let k = n / 2;
    if k == 0 || max == 0 {
        return Vec::new();
    }
    let used: Vec<usize> = (0..2 * k).collect();
    let complement = |a: &[usize]| -> Vec<usize> { used.iter().copied().filter(|i| !a.contains(i)).collect() };
    if binomial(2 * k, k).is_some_and(|c| c <= max as f64) {
        let mut out = Vec::new();
        let mut a: Vec<usize> = (0..k).collect();
        loop {
            out.push((a.clone(), complement(&a)));
            // The next k-subset of 0..2k in lexicographic order.
            let Some(i) = (0..k).rev().find(|&i| a[i] < 2 * k - k + i) else { break };
            a[i] += 1;
            for j in i + 1..k {
                a[j] = a[j - 1] + 1;
            }
        }
        return out;
    }
    let mut rng = StdRng::seed_from_u64(seed);
    let mut seen: BTreeSet<Vec<usize>> = BTreeSet::new();
    let mut out = Vec::new();
    let mut order = used.clone();
    // More draws than pairs wanted are plenty: there are far more splits than `max` here.
    for _ in 0..max * 20 {
        if out.len() == max {
            break;
        }
        order.shuffle(&mut rng);
        let mut a = order[..k].to_vec();
        a.sort_unstable();
        if seen.insert(a.clone()) {
            let b = complement(&a);
            out.push((a, b));
        }
    }
    out
}

/// `C(n, k)` as a float, `None` when it overflows.
fn binomial(n: usize, k: usize) -> Option<f64> {
    let mut c = 1.0f64;
    for i in 0..k.min(n - k) {
        c = c * (n - i) as f64 / (i + 1) as f64;
    }
    c.is_finite().then_some(c)
}

/// One A/A pair: two arms of one pool's processes, and what the judge's numbers are on them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pair {
    /// Arm A's processes (indices into the pool's processes, from 0).
    pub a: Vec<usize>,
    /// Arm B's processes.
    pub b: Vec<usize>,
    /// Arm A's median over arm B's, each the median of every measured sample of its processes, as
    /// [`crate::compare::compare`] takes a contestant's median.
    pub ratio: f64,
    /// Whether the ranges of the arms' process medians are apart (touching is not), as the judge requires.
    pub ranges_apart: bool,
}

impl Pair {
    /// The pair of arms `a` and `b` of the processes whose samples are `processes` (one list per process); `None`
    /// when an arm has no finite sample or a median of 0.
    pub fn of(processes: &[Vec<f64>], a: Vec<usize>, b: Vec<usize>) -> Option<Pair> {
        let arm = |arm: &[usize]| -> Option<(f64, f64, f64)> {
            let mut pooled: Vec<f64> = Vec::new();
            let mut medians: Vec<f64> = Vec::new();
            for &i in arm {
                let finite: Vec<f64> = processes.get(i)?.iter().copied().filter(|v| v.is_finite()).collect();
                medians.push(crate::stats::median(&finite)?);
                pooled.extend(finite);
            }
            let low = medians.iter().copied().fold(f64::INFINITY, f64::min);
            let high = medians.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            Some((crate::stats::median(&pooled)?, low, high))
        };
        let ((median_a, low_a, high_a), (median_b, low_b, high_b)) = (arm(&a)?, arm(&b)?);
        let ratio = median_a / median_b;
        ratio.is_finite().then_some(Pair { ranges_apart: high_a < low_b || high_b < low_a, a, b, ratio })
    }

    /// Whether the ratio alone is beyond `threshold` (a relative difference: 0.08 for 1.08), as the noise line
    /// draws it: `|ratio − 1| ≥ threshold`.
    pub fn apart_by_ratio(&self, threshold: f64) -> bool {
        (self.ratio - 1.0).abs() >= threshold
    }

    /// Whether the judge's whole rule calls the arms apart at `threshold`: at least
    /// [`MIN_PROCESSES`] processes an arm, their process-median ranges apart, and the ratio beyond the threshold.
    pub fn apart_by_rule(&self, threshold: f64) -> bool {
        self.a.len().min(self.b.len()) >= MIN_PROCESSES && self.ranges_apart && self.apart_by_ratio(threshold)
    }
}

/// The pairs of every split ([`splits`]) of the processes whose samples are `processes`.
pub fn pairs_of(processes: &[Vec<f64>], max: usize, seed: u64) -> Vec<Pair> {
    splits(processes.len(), max, seed).into_iter().filter_map(|(a, b)| Pair::of(processes, a, b)).collect()
}

/// The share of pairs called apart at one threshold.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    /// The threshold, as a ratio (1.08).
    pub threshold: f64,
    /// The share of pairs whose ratio alone is beyond it ([`Pair::apart_by_ratio`]).
    pub ratio_rate: f64,
    /// The share the judge's whole rule calls apart ([`Pair::apart_by_rule`]).
    pub rule_rate: f64,
}

/// The false-separation rates of `pairs` at each of `thresholds` (ratios); 0 for no pairs.
pub fn rates(pairs: &[&Pair], thresholds: &[f64]) -> Vec<Rate> {
    thresholds.iter().map(|&threshold| rate(pairs, threshold)).collect()
}

/// The false-separation rates of `pairs` at `threshold` (a ratio).
pub fn rate(pairs: &[&Pair], threshold: f64) -> Rate {
    let t = threshold - 1.0;
    let share = |apart: usize| if pairs.is_empty() { 0.0 } else { apart as f64 / pairs.len() as f64 };
    Rate {
        threshold,
        ratio_rate: share(pairs.iter().filter(|p| p.apart_by_ratio(t)).count()),
        rule_rate: share(pairs.iter().filter(|p| p.apart_by_rule(t)).count()),
    }
}

/// The smallest detectable ratio of `pairs`: the smallest ratio on a grid of 0.01 from 1.00 whose ratio alone
/// calls at most [`FALSE_SEPARATION_LIMIT`] of them apart; `None` without pairs or when none up to
/// [`LARGEST_SDR`] does.
pub fn sdr(pairs: &[&Pair]) -> Option<f64> {
    if pairs.is_empty() {
        return None;
    }
    let largest = (LARGEST_SDR * 100.0).round() as u32;
    (100..=largest).map(grid).find(|&ratio| rate(pairs, ratio).ratio_rate <= FALSE_SEPARATION_LIMIT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::compare;

    #[test]
    fn ten_processes_give_every_one_of_the_252_splits_each_process_in_arm_a_half_the_time() {
        let all = splits(10, MAX_PAIRS, 1);
        assert_eq!(all.len(), 252);
        let distinct: BTreeSet<&Vec<usize>> = all.iter().map(|(a, _)| a).collect();
        assert_eq!(distinct.len(), 252);
        for p in 0..10 {
            assert_eq!(all.iter().filter(|(a, _)| a.contains(&p)).count(), 126, "process {p}");
        }
        for (a, b) in &all {
            assert_eq!((a.len(), b.len()), (5, 5));
            assert!(a.iter().all(|i| !b.contains(i)));
        }
    }

    #[test]
    fn more_splits_than_wanted_are_sampled_with_the_seed_distinct_and_balanced() {
        let one = splits(20, 100, 7);
        assert_eq!(one, splits(20, 100, 7), "the same seed, the same pairs");
        assert_ne!(one, splits(20, 100, 8));
        let distinct: BTreeSet<&Vec<usize>> = one.iter().map(|(a, _)| a).collect();
        assert_eq!(distinct.len(), 100);
        assert!(one.iter().all(|(a, b)| a.len() == 10 && b.len() == 10));
    }

    #[test]
    fn an_odd_process_is_left_out_and_too_few_give_none() {
        let seven = splits(7, MAX_PAIRS, 1);
        assert_eq!(seven.len(), 20, "C(6, 3)");
        assert!(seven.iter().all(|(a, b)| !a.contains(&6) && !b.contains(&6)));
        assert!(splits(1, MAX_PAIRS, 1).is_empty());
    }

    /// One process per value, `iterations` samples each spread ±0.1% around it.
    fn pool(medians: &[f64]) -> Vec<Vec<f64>> {
        medians.iter().map(|m| vec![m * 0.999, *m, m * 1.001]).collect()
    }

    #[test]
    fn a_pair_s_verdict_is_the_judge_s_on_the_same_arms() {
        let processes = pool(&[100.0, 104.0, 99.0, 130.0, 101.0, 97.0, 125.0, 128.0, 103.0, 126.0]);
        for pair in pairs_of(&processes, MAX_PAIRS, 1) {
            let arm = |arm: &[usize]| {
                let forks: Vec<Vec<f64>> = arm.iter().map(|&i| processes[i].clone()).collect();
                crate::stats::summarize(&forks).expect("samples")
            };
            let (a, b) = (arm(&pair.a), arm(&pair.b));
            assert!((a.median / b.median - pair.ratio).abs() < 1e-12);
            for t in [0.0, 0.05, 0.1, 0.2] {
                assert_eq!(pair.apart_by_rule(t), !compare(&a, &b, t).noise, "{pair:?} at {t}");
            }
        }
    }

    #[test]
    fn the_whole_rule_calls_at_most_two_splits_of_a_pool_apart_whatever_the_numbers() {
        let processes = pool(&[1.0, 2.0, 3.0, 4.0, 5.0, 60.0, 70.0, 80.0, 90.0, 100.0]);
        let pairs = pairs_of(&processes, MAX_PAIRS, 1);
        let refs: Vec<&Pair> = pairs.iter().collect();
        assert_eq!(rate(&refs, 1.0).rule_rate, 2.0 / 252.0);
        assert!(rate(&refs, 1.0).ratio_rate > 0.5, "while the ratio alone calls most apart");
    }

    #[test]
    fn identical_arms_give_a_smallest_detectable_ratio_near_their_spread() {
        // Ten processes spread evenly over ±5% around 100: halves of them differ by a few per cent at most.
        let medians: Vec<f64> = (0..10).map(|i| 95.0 + f64::from(i) * 10.0 / 9.0).collect();
        let pairs = pairs_of(&pool(&medians), MAX_PAIRS, 1);
        let refs: Vec<&Pair> = pairs.iter().collect();
        let sdr = sdr(&refs).expect("reached");
        assert!((1.01..=1.06).contains(&sdr), "{sdr}");
        assert!(rate(&refs, sdr).ratio_rate <= FALSE_SEPARATION_LIMIT);
        assert!(rate(&refs, sdr - 0.01).ratio_rate > FALSE_SEPARATION_LIMIT, "the smallest that does");
        // Twice the spread, about twice the ratio.
        let wide: Vec<f64> = (0..10).map(|i| 90.0 + f64::from(i) * 20.0 / 9.0).collect();
        let wide_pairs = pairs_of(&pool(&wide), MAX_PAIRS, 1);
        let wide_sdr = super::sdr(&wide_pairs.iter().collect::<Vec<_>>()).expect("reached");
        assert!(wide_sdr > sdr, "{wide_sdr} against {sdr}");
    }

    #[test]
    fn the_false_separation_rate_never_rises_with_the_threshold() {
        let medians = [88.0, 131.0, 97.0, 102.0, 150.0, 99.0, 91.0, 120.0, 101.0, 96.0];
        let pairs = pairs_of(&pool(&medians), MAX_PAIRS, 1);
        let refs: Vec<&Pair> = pairs.iter().collect();
        let all = rates(&refs, &candidates());
        assert_eq!(all.len(), 51);
        assert_eq!((all[0].threshold, all[50].threshold), (1.0, 1.5));
        for w in all.windows(2) {
            assert!(w[1].ratio_rate <= w[0].ratio_rate && w[1].rule_rate <= w[0].rule_rate, "{w:?}");
            assert!(w[0].rule_rate <= w[0].ratio_rate);
        }
    }

    #[test]
    fn no_pairs_give_no_ratio() {
        assert_eq!(sdr(&[]), None);
        assert_eq!(rate(&[], 1.1), Rate { threshold: 1.1, ratio_rate: 0.0, rule_rate: 0.0 });
    }
}
