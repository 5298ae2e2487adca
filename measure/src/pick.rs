//! What a report answers, computed once from the run alone and shared by the report and the index (criterion's
//! split: analysis here, printing in the renderers): per phase, the pick among candidates (every candidate
//! within noise of the best, never a registry-order tie-break), what the pathologies and traps cost against it,
//! the trade-offs it makes on further metrics, and per dimension whether the choice changes the result beyond
//! noise with everything else equal.
//!
//! Only [`Role::Candidate`] rows are ever picked; floors are the reference the pick is measured against, and
//! pathologies and traps are shown as what they cost. Every "beyond noise" here is the lab's one rule,
//! [`crate::compare::compare`].

use std::collections::BTreeMap;

use serde::Serialize;

use crate::compare::{differs, process_range};
use crate::record::Status;
use crate::scenario::Dimension;
use crate::summary::{metric_key, ContestantSummary, Family, MetricStats, Role, Summary};

/// Whether `a` is better than `b` by median on a metric whose direction is `higher_is_better`.
pub fn better(a: f64, b: f64, higher_is_better: bool) -> bool {
    if higher_is_better {
        a > b
    } else {
        a < b
    }
}

/// A contestant's statistics for one metric key.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'s> {
    /// The contestant.
    pub contestant: &'s ContestantSummary,
    /// Its statistics on the key.
    pub stats: &'s MetricStats,
}

/// Every contestant of `role` that ran cleanly and measured `key`, best first (ties keep registry order only
/// for display; nothing is decided by it).
pub fn ranked<'s>(summary: &'s Summary, key: &str, higher_is_better: bool, role: Role) -> Vec<Entry<'s>> {
    let mut entries: Vec<Entry<'s>> = summary
        .contestants
        .iter()
        .filter(|c| c.status == Status::Ok && c.role == role)
        .filter_map(|c| c.metrics.get(key).filter(|s| s.median.is_finite()).map(|stats| Entry { contestant: c, stats }))
        .collect();
    entries.sort_by(|a, b| {
        let order = a.stats.median.total_cmp(&b.stats.median);
        if higher_is_better {
            order.reverse()
        } else {
            order
        }
    });
    entries
}

/// The best ok contestant on `key` (lowest median, or highest when `higher_is_better`), optionally within one
/// family; ties go to the first in registry order.
pub fn best<'s>(summary: &'s Summary, family: Option<Family>, key: &str, higher_is_better: bool) -> Option<Entry<'s>> {
    let mut best: Option<Entry<'s>> = None;
    for contestant in &summary.contestants {
        if contestant.status != Status::Ok || family.is_some_and(|f| f != contestant.family) {
            continue;
        }
        let Some(stats) = contestant.metrics.get(key) else { continue };
        if stats.median.is_finite() && best.is_none_or(|b| better(stats.median, b.stats.median, higher_is_better)) {
            best = Some(Entry { contestant, stats });
        }
    }
    best
}

/// The best ok [`Role::Candidate`] on `key` (lowest median, or highest when `higher_is_better`), optionally
/// within one family: the only rows a report may recommend. Ties go to the first in registry order here; the
/// answer itself lists every candidate within noise of the best ([`phase_answers`]).
pub fn best_candidate<'s>(
    summary: &'s Summary,
    family: Option<Family>,
    key: &str,
    higher_is_better: bool,
) -> Option<Entry<'s>> {
    ranked(summary, key, higher_is_better, Role::Candidate)
        .into_iter()
        .find(|e| family.is_none_or(|f| f == e.contestant.family))
}

/// Families in the order reports discuss them: the floor first, then streams, then blocking, then coroutines.
pub const FAMILY_ORDER: [Family; 4] = [Family::Baseline, Family::Stream, Family::Blocking, Family::Coroutine];

/// Each family's best on `key` in [`FAMILY_ORDER`]: the best baseline ([`best`], whatever its role: what ratios
/// are taken against) and every other family's [`best_candidate`]; a family none of whose rows measured `key`
/// is absent.
pub fn family_bests<'s>(summary: &'s Summary, key: &str, higher_is_better: bool) -> Vec<Entry<'s>> {
    FAMILY_ORDER
        .into_iter()
        .filter_map(|family| match family {
            Family::Baseline => best(summary, Some(family), key, higher_is_better),
            _ => best_candidate(summary, Some(family), key, higher_is_better),
        })
        .collect()
}

/// What ratios are taken against in a phase: the best baseline, or the best candidate on the metric when no
/// baseline ran (a reference, whether or not a question guarded it out; never a pick).
#[derive(Debug, Clone, Copy)]
pub struct Reference<'s> {
    /// The reference's statistics.
    pub entry: Entry<'s>,
    /// Whether `entry` is a baseline (otherwise the best contestant overall).
    pub is_baseline: bool,
}

/// The reference for ratios on `key`.
pub fn reference<'s>(summary: &'s Summary, key: &str, higher_is_better: bool) -> Option<Reference<'s>> {
    if let Some(entry) = best(summary, Some(Family::Baseline), key, higher_is_better) {
        return Some(Reference { entry, is_baseline: true });
    }
    best_candidate(summary, None, key, higher_is_better).map(|entry| Reference { entry, is_baseline: false })
}

/// A ratio of medians and whether the difference is within noise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ratio {
    /// `a.median / b.median`.
    pub value: f64,
    /// The process-median ranges overlap, or the ratio is within the noise threshold of 1 (the lab's one rule).
    pub noise: bool,
    /// Which part of the rule made it noise, when it is.
    pub why: Option<NoiseWhy>,
}

/// Why a difference is within noise, as a mark says it: the run cannot tell the two apart (too few processes,
/// or their process medians overlap), or it can and they are practically equal (within the noise threshold).
/// Kept apart because they mean different things to a reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoiseWhy {
    /// A side has fewer processes than a verdict needs.
    TooFewProcesses,
    /// The process-median ranges overlap.
    Overlap,
    /// The processes separate, but the ratio is within the noise threshold of 1.
    PracticallyEqual,
}

/// Compare `a` with `b` by the lab's one noise rule, [`crate::compare::compare`]. `None` when `b.median` is
/// zero or either median is not finite, where a ratio means nothing.
pub fn ratio(a: &MetricStats, b: &MetricStats, threshold: f64) -> Option<Ratio> {
    if b.median == 0.0 || !a.median.is_finite() || !b.median.is_finite() {
        return None;
    }
    let c = crate::compare::compare(a, b, threshold);
    let why = c.noise.then(|| match (process_range(a), process_range(b)) {
        (Some((a_low, a_high)), Some((b_low, b_high))) if a_high < b_low || b_high < a_low => {
            NoiseWhy::PracticallyEqual
        }
        (Some(_), Some(_)) => NoiseWhy::Overlap,
        _ => NoiseWhy::TooFewProcesses,
    });
    Some(Ratio { value: c.ratio, noise: c.noise, why })
}

/// A contestant set against the pick (a pathology or trap) or the pick set against one (the floor).
#[derive(Debug, Clone, Copy)]
pub struct Against<'s> {
    /// The other contestant.
    pub entry: Entry<'s>,
    /// The ratio of medians: the pathology's over the pick's, or the pick's over the floor's.
    pub ratio: f64,
    /// Whether the difference is beyond noise.
    pub beyond_noise: bool,
}

/// A candidate that beats the pick beyond noise on a further metric.
#[derive(Debug, Clone)]
pub struct TradeOff<'s> {
    /// The further metric.
    pub metric: String,
    /// The candidate that beats the pick on it by most.
    pub who: &'s ContestantSummary,
    /// Its median.
    pub theirs: f64,
    /// The pick's median.
    pub pick: f64,
}

/// The answer at one phase.
#[derive(Debug, Clone)]
pub struct PhaseAnswer<'s> {
    /// The phase, or `None` without a sweep.
    pub phase: Option<&'s str>,
    /// The pick: the best candidate, then every other candidate within noise of it, best first.
    pub picks: Vec<Entry<'s>>,
    /// Pathologies and traps that ran, by name, with their median as a multiple of the pick's (always "worse"
    /// or within noise: a pathology that beats the pick is still reported as it is).
    pub avoid: Vec<Against<'s>>,
    /// The best floor that ran, with the pick's median as a multiple of it.
    pub floor: Option<Against<'s>>,
    /// The trade-offs, in the order of the further metrics.
    pub trade_offs: Vec<TradeOff<'s>>,
}

impl PhaseAnswer<'_> {
    /// The pick's best entry.
    pub fn pick(&self) -> Entry<'_> {
        self.picks[0]
    }

    /// Whether several candidates tie.
    pub fn is_tie(&self) -> bool {
        self.picks.len() > 1
    }
}

/// The answer at every phase where a candidate measured the headline `metric`, weighing the pick on each of
/// `trade_off_metrics` (a metric and whether higher is better on it).
pub fn phase_answers<'s>(
    summary: &'s Summary,
    metric: &str,
    higher_is_better: bool,
    trade_off_metrics: &[(&str, bool)],
) -> Vec<PhaseAnswer<'s>> {
    let mut answers = Vec::new();
    for phase in summary.phase_keys() {
        let key = metric_key(phase, metric);
        let threshold = summary.method.threshold(&key);
        let candidates = ranked(summary, &key, higher_is_better, Role::Candidate);
        let Some(best) = candidates.first().copied() else { continue };
        let picks: Vec<Entry<'s>> =
            candidates.iter().copied().filter(|e| !differs(e.stats, best.stats, threshold)).collect();
        let mut avoid: Vec<Against<'s>> = [Role::Pathology, Role::Trap]
            .into_iter()
            .flat_map(|role| ranked(summary, &key, higher_is_better, role))
            .map(|entry| Against {
                entry,
                ratio: entry.stats.median / best.stats.median,
                beyond_noise: differs(entry.stats, best.stats, threshold),
            })
            .collect();
        avoid.sort_by(|a, b| a.entry.contestant.name.cmp(&b.entry.contestant.name));
        let floor = ranked(summary, &key, higher_is_better, Role::Floor)
            .into_iter()
            .find(|e| e.contestant.family == Family::Baseline)
            .map(|entry| Against {
                entry,
                ratio: best.stats.median / entry.stats.median,
                beyond_noise: differs(best.stats, entry.stats, threshold),
            });
        let mut trade_offs = Vec::new();
        for (other_metric, other_higher) in trade_off_metrics {
            let other_key = metric_key(phase, other_metric);
            let other_threshold = summary.method.threshold(&other_key);
            let Some(pick_stats) = best.contestant.metrics.get(&other_key) else { continue };
            let beats: Option<(&ContestantSummary, &MetricStats)> = candidates
                .iter()
                .filter_map(|e| e.contestant.metrics.get(&other_key).map(|s| (e.contestant, s)))
                .filter(|(_, s)| {
                    better(s.median, pick_stats.median, *other_higher) && differs(s, pick_stats, other_threshold)
                })
                .reduce(|a, b| if better(b.1.median, a.1.median, *other_higher) { b } else { a });
            if let Some((who, stats)) = beats {
                trade_offs.push(TradeOff {
                    metric: other_metric.to_string(),
                    who,
                    theirs: stats.median,
                    pick: pick_stats.median,
                });
            }
        }
        answers.push(PhaseAnswer { phase, picks, avoid, floor, trade_offs });
    }
    answers
}

/// The largest difference beyond noise one dimension makes.
#[derive(Debug, Clone, PartialEq)]
pub struct Largest {
    /// The phase, or `None` without phases.
    pub phase: Option<String>,
    /// The better contestant.
    pub winner: String,
    /// Its level.
    pub winner_level: String,
    /// The worse contestant.
    pub loser: String,
    /// Its level.
    pub loser_level: String,
    /// How many times better the winner is (≥ 1).
    pub factor: f64,
}

/// What one dimension does to the headline, over every phase.
#[derive(Debug, Clone, PartialEq)]
pub struct DimensionFinding {
    /// The dimension's name, such as `limiter`.
    pub name: String,
    /// Comparisons made: pairs of levels (each the best candidate of its level) with everything else equal.
    pub comparisons: usize,
    /// How many of them are beyond noise.
    pub beyond_noise: usize,
    /// How many of them could not be told from noise whatever the numbers: a side with fewer than
    /// [`crate::stats::MIN_PROCESSES`] processes.
    pub undecidable: usize,
    /// The largest difference beyond noise.
    pub largest: Option<Largest>,
}

/// For each dimension, compare the best candidate of each of its levels with every other level's best, within
/// groups of candidates that share their levels on every other dimension ("everything else equal"), at each
/// phase. A dimension with no such pair anywhere is left out.
pub fn dimension_findings(
    summary: &Summary,
    metric: &str,
    higher_is_better: bool,
    dimensions: &[Dimension],
) -> Vec<DimensionFinding> {
    let mut findings = Vec::new();
    for (index, dimension) in dimensions.iter().enumerate() {
        let mut finding = DimensionFinding {
            name: dimension.name.to_string(),
            comparisons: 0,
            beyond_noise: 0,
            undecidable: 0,
            largest: None,
        };
        for phase in summary.phase_keys() {
            let key = metric_key(phase, metric);
            let threshold = summary.method.threshold(&key);
            // Context (levels on the other dimensions) → level on this one → best candidate of that level.
            let mut groups: BTreeMap<Vec<String>, BTreeMap<String, Entry<'_>>> = BTreeMap::new();
            for entry in ranked(summary, &key, higher_is_better, Role::Candidate) {
                let name = &entry.contestant.name;
                let Some(level) = dimension.levels.get(name) else { continue };
                let context: Vec<String> = dimensions
                    .iter()
                    .enumerate()
                    .filter(|(other, _)| *other != index)
                    .map(|(_, d)| d.levels.get(name).cloned().unwrap_or_default())
                    .collect();
                // `ranked` is best first, so the first entry of a level is its best.
                groups.entry(context).or_default().entry(level.clone()).or_insert(entry);
            }
            for levels in groups.values() {
                let bests: Vec<(&String, &Entry<'_>)> = levels.iter().collect();
                for (i, (level_a, a)) in bests.iter().enumerate() {
                    for (level_b, b) in &bests[i + 1..] {
                        finding.comparisons += 1;
                        if process_range(a.stats).is_none() || process_range(b.stats).is_none() {
                            finding.undecidable += 1;
                        }
                        if !differs(a.stats, b.stats, threshold) {
                            continue;
                        }
                        finding.beyond_noise += 1;
                        let (winner, winner_level, loser, loser_level) =
                            if better(a.stats.median, b.stats.median, higher_is_better) {
                                (a, level_a, b, level_b)
                            } else {
                                (b, level_b, a, level_a)
                            };
                        let ratio = winner.stats.median / loser.stats.median;
                        let factor = if ratio >= 1.0 { ratio } else { 1.0 / ratio };
                        if finding.largest.as_ref().is_none_or(|l| factor > l.factor) {
                            finding.largest = Some(Largest {
                                phase: phase.map(str::to_string),
                                winner: winner.contestant.name.clone(),
                                winner_level: (*winner_level).clone(),
                                loser: loser.contestant.name.clone(),
                                loser_level: (*loser_level).clone(),
                                factor,
                            });
                        }
                    }
                }
            }
        }
        if finding.comparisons > 0 {
            findings.push(finding);
        }
    }
    findings
}

/// What a pathology or trap costs against the pick over every phase it ran at.
#[derive(Debug, Clone, PartialEq)]
pub struct AvoidCost {
    /// Its name.
    pub name: String,
    /// Its role.
    pub role: Role,
    /// Per phase, its factor against the pick (above 1 is worse, whichever way the metric points) and whether
    /// that is beyond noise.
    pub factors: Vec<(f64, bool)>,
}

/// A report's whole answer on its headline metric: computed once, printed by the report and the index.
#[derive(Debug, Clone)]
pub struct Analysis<'s> {
    /// Whether a larger headline metric is better.
    pub higher_is_better: bool,
    /// The answer at every phase where a candidate measured the headline.
    pub answers: Vec<PhaseAnswer<'s>>,
    /// What each dimension does to the headline.
    pub dimensions: Vec<DimensionFinding>,
}

impl<'s> Analysis<'s> {
    /// Analyse `summary` on `metric` ([`phase_answers`], [`dimension_findings`]).
    pub fn of(
        summary: &'s Summary,
        metric: &str,
        higher_is_better: bool,
        trade_off_metrics: &[(&str, bool)],
        dimensions: &[Dimension],
    ) -> Self {
        Analysis {
            higher_is_better,
            answers: phase_answers(summary, metric, higher_is_better, trade_off_metrics),
            dimensions: dimension_findings(summary, metric, higher_is_better, dimensions),
        }
    }

    /// The answer at `phase`, if a candidate measured the headline there.
    pub fn at(&self, phase: Option<&str>) -> Option<&PhaseAnswer<'s>> {
        self.answers.iter().find(|a| a.phase == phase)
    }

    /// Each pathology and trap with its factors against the pick, in order of first appearance over the phases.
    pub fn avoid_costs(&self) -> Vec<AvoidCost> {
        let mut costs: Vec<AvoidCost> = Vec::new();
        for against in self.answers.iter().flat_map(|a| &a.avoid) {
            let factor = if self.higher_is_better { 1.0 / against.ratio } else { against.ratio };
            let contestant = against.entry.contestant;
            match costs.iter_mut().find(|c| c.name == contestant.name) {
                Some(cost) => cost.factors.push((factor, against.beyond_noise)),
                None => costs.push(AvoidCost {
                    name: contestant.name.clone(),
                    role: contestant.role,
                    factors: vec![(factor, against.beyond_noise)],
                }),
            }
        }
        costs
    }

    /// Comparisons made between dimension levels and against the floor, and how many of them are beyond noise.
    pub fn comparisons(&self) -> (usize, usize) {
        let floors = self.answers.iter().filter_map(|a| a.floor);
        let made = self.dimensions.iter().map(|f| f.comparisons).sum::<usize>() + floors.clone().count();
        let beyond =
            self.dimensions.iter().map(|f| f.beyond_noise).sum::<usize>() + floors.filter(|f| f.beyond_noise).count();
        (made, beyond)
    }
}
