//! The lab against bare programs, the scenario's section of the appendix (`templates/details.md`): each lab
//! contestant beside its bare reference pair, and each per-cause A/B variant that ran beside its bare pair, per
//! capacity, with what the run's findings ([`findings::against`]) say of each; the main report cites its rows
//! above [`FIDELITY_BAR`].

use measure::compare::{format_or_na as num, format_p, process_range, times_or_na as ratio};
use measure::judge::Beyond;
use measure::summary::{MetricStats, Summary};
use serde::Serialize;

use super::claims::{capacities, phase};
use super::contestants::{ab_variants, bare_pairs};
use super::findings::{self, holding};
use super::HEADLINE;

/// The template of the scenario's appendix sections: the calibration against bare programs in full.
const DETAILS_TEMPLATE: &str = include_str!("templates/details.md");

/// Above this lab ÷ bare ratio of medians the report states a row's remaining cost and what the judge says of it
/// (below it the lab measures the channel and not itself).
const FIDELITY_BAR: f64 = 1.2;

/// The calibration's part of the report's and the details' contexts.
#[derive(Debug, Serialize)]
pub struct Calibration {
    /// Each lab contestant beside its bare pair, per capacity.
    pub fidelity: Vec<FidelityRow>,
    /// No row of `fidelity` has a ratio of medians above [`FIDELITY_BAR`].
    pub fidelity_within: bool,
    /// [`FIDELITY_BAR`], formatted (`1.2×`).
    pub fidelity_bar: String,
    /// The run's noise threshold as a percentage (`20%`).
    pub noise: String,
    /// Each per-cause A/B variant that ran, beside its bare pair, per capacity (empty in a default run).
    pub ab: Vec<AbRow>,
    /// The bare pairs that have per-cause variants besides a control, in listing order.
    pub ab_bares: Vec<String>,
    /// The bare pairs that have only an A/A control, in listing order.
    pub ab_control_only: Vec<String>,
}

/// What the findings say of one contestant against another ([`findings::against`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Judgement {
    /// The finding holds that it is slower, beyond noise.
    pub slower: bool,
    /// The finding holds that it is faster, beyond noise.
    pub faster: bool,
    /// A side has too few processes to judge (its process range is `n/a`).
    pub too_few: bool,
    /// The exact one-sided p of the finding that holds, formatted.
    pub p: Option<String>,
}

/// Whether the per-cause A/B covers a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AbState {
    /// No variant other than a control exists for this lab contestant.
    NoneExists,
    /// Variants exist, but none other than the control ran at this capacity.
    NotRun,
    /// At least one variant other than the control ran at this capacity.
    Ran,
}

/// A lab contestant beside its bare pair at one capacity, judged on process medians.
#[derive(Debug, Serialize)]
pub struct FidelityRow {
    /// The lab contestant.
    pub lab: String,
    /// Its bare pair.
    pub bare: String,
    /// The capacity.
    pub capacity: u64,
    /// The lab contestant's figures beside the bare pair's.
    #[serde(flatten)]
    pub beside: Beside,
    /// The ratio of medians is above [`FIDELITY_BAR`].
    pub above_bar: bool,
    /// `lab − bare` in ms/M: the measured remaining cost.
    pub cost: String,
    /// Whether the per-cause A/B covers this row.
    pub ab: AbState,
    /// The A/A control (an identical copy of the bare pair) at this capacity, when it ran.
    pub control: Option<AbRow>,
    /// The lab contestant against the A/A control, when the control ran.
    pub lab_against_control: Option<Judgement>,
    /// The variants other than the control judged slower than the bare pair at this capacity and, where the
    /// control ran, slower than the control too.
    pub causes_slower: Vec<AbRow>,
}

/// A contestant's figures beside its bare pair's at one capacity, judged against them.
#[derive(Debug, Clone, Serialize)]
pub struct Beside {
    /// Its ms/M.
    pub ms: String,
    /// The lowest and highest of its process medians (`45.1–52.3`), or `n/a`.
    pub range: String,
    /// The bare pair's ms/M.
    pub bare_ms: String,
    /// The same of the bare pair.
    pub bare_range: String,
    /// Its median over the bare pair's, such as `1.04×`.
    pub ratio: String,
    /// It against the bare pair.
    pub judged: Judgement,
}

/// A per-cause A/B variant beside its bare pair at one capacity.
#[derive(Debug, Clone, Serialize)]
pub struct AbRow {
    /// The variant.
    pub variant: String,
    /// The lab contestant whose gap it looks into.
    pub lab: String,
    /// The suffix of the cause it puts back (`control`, `lab-loops`, ...).
    pub cause: String,
    /// It is the A/A control.
    pub control: bool,
    /// Its pair's ends are tasks, not threads (what `cause` puts back is worded for tasks).
    pub tasks: bool,
    /// The capacity.
    pub capacity: u64,
    /// Its figures beside the bare pair.
    #[serde(flatten)]
    pub beside: Beside,
    /// The variant against the A/A control at this capacity, when the control ran (and this is not it).
    pub against_control: Option<Judgement>,
}

/// The scenario's sections of the appendix: [`calibration`] rendered with `templates/details.md`.
pub fn details(summary: &Summary) -> String {
    measure::template::render_or_note("handoff/details.md", DETAILS_TEMPLATE, calibration(summary))
}

/// The [`Calibration`] of `summary`.
pub fn calibration(summary: &Summary) -> Calibration {
    let (fidelity, ab) = rows(summary, &capacities(summary));
    Calibration {
        fidelity_within: fidelity.iter().all(|r| !r.above_bar),
        fidelity,
        fidelity_bar: format!("{FIDELITY_BAR}×"),
        noise: format!("{}%", (summary.method.threshold(HEADLINE) * 1000.0).round() / 10.0),
        ab,
        ab_bares: ab_bares(true),
        ab_control_only: ab_bares(false),
    }
}

/// Each lab contestant beside its bare reference pair ([`bare_pairs`]), and each per-cause A/B variant
/// ([`ab_variants`]) that ran beside its bare pair, at every capacity where both have a figure, judged on process
/// medians: the fidelity rows (one above [`FIDELITY_BAR`] gets what its A/B rows say of it) and the A/B rows, by
/// lab contestant, then capacity, then variant (the control first).
fn rows(summary: &Summary, caps: &[u64]) -> (Vec<FidelityRow>, Vec<AbRow>) {
    let variants = ab_variants();
    let (mut rows, mut ab) = (Vec::new(), Vec::new());
    for (lab, bare) in bare_pairs() {
        for &capacity in caps {
            let stats = |name: &str| ms_stats(summary, name, capacity);
            let ours = || variants.iter().filter(|v| v.lab == lab);
            let control = ours().find(|v| v.control).and_then(|v| Some((v, stats(&v.name)?)));
            let here: Vec<AbRow> = ours()
                .filter_map(|variant| {
                    let (v, b) = (stats(&variant.name)?, stats(&variant.bare)?);
                    Some(AbRow {
                        variant: variant.name.clone(),
                        lab: variant.lab.to_string(),
                        cause: variant.cause.to_string(),
                        control: variant.control,
                        tasks: variant.tasks,
                        capacity,
                        beside: beside(summary, (&variant.name, v), b, capacity),
                        against_control: control
                            .filter(|_| !variant.control)
                            .map(|(_, c)| judge(summary, (&variant.name, true), [v, c], capacity)),
                    })
                })
                .collect();
            if let (Some(l), Some(b)) = (stats(lab), stats(&bare)) {
                let above_bar = b.median > 0.0 && l.median / b.median > FIDELITY_BAR;
                let ab_state = if here.iter().any(|r| !r.control) {
                    AbState::Ran
                } else if ours().any(|v| !v.control) {
                    AbState::NotRun
                } else {
                    AbState::NoneExists
                };
                rows.push(FidelityRow {
                    lab: lab.to_string(),
                    bare: bare.clone(),
                    capacity,
                    beside: beside(summary, (lab, l), b, capacity),
                    above_bar,
                    cost: num(Some(l.median - b.median)),
                    ab: ab_state,
                    control: here.iter().find(|r| r.control).cloned(),
                    lab_against_control: control.map(|(_, c)| judge(summary, (lab, true), [l, c], capacity)),
                    causes_slower: here
                        .iter()
                        .filter(|r| !r.control && r.beside.judged.slower)
                        .filter(|r| r.against_control.as_ref().is_none_or(|j| j.slower))
                        .cloned()
                        .collect(),
                });
            }
            ab.extend(here);
        }
    }
    (rows, ab)
}

/// The bare pairs with per-cause variants besides their control (`causes`), or with only a control (`!causes`).
fn ab_bares(causes: bool) -> Vec<String> {
    let variants = ab_variants();
    let mut bares: Vec<String> = Vec::new();
    for v in &variants {
        let has_causes = variants.iter().any(|w| w.bare == v.bare && !w.control);
        if has_causes == causes && !bares.contains(&v.bare) {
            bares.push(v.bare.clone());
        }
    }
    bares
}

/// What the findings say of `name` against its bare pair (or, with `control`, its pair's A/A control) at
/// `capacity`, the two sides' statistics being `sides`.
fn judge(summary: &Summary, (name, control): (&str, bool), sides: [&MetricStats; 2], capacity: u64) -> Judgement {
    let way = |beyond| holding(summary, &findings::against(name, beyond, control, capacity));
    let (slower, faster) = (way(Beyond::Above), way(Beyond::Below));
    Judgement {
        slower: slower.is_some(),
        faster: faster.is_some(),
        too_few: sides.iter().any(|s| process_range(s).is_none()),
        p: slower.or(faster).and_then(|f| f.p).map(format_p),
    }
}

/// `name`'s figures (`a`) beside its bare pair's at `capacity`, and what the findings say of them.
fn beside(summary: &Summary, (name, a): (&str, &MetricStats), bare: &MetricStats, capacity: u64) -> Beside {
    let range = |stats: &MetricStats| {
        process_range(stats)
            .map_or_else(|| "n/a".to_string(), |(low, high)| format!("{}–{}", num(Some(low)), num(Some(high))))
    };
    Beside {
        ms: num(Some(a.median)),
        range: range(a),
        bare_ms: num(Some(bare.median)),
        bare_range: range(bare),
        ratio: ratio(Some(a.median), Some(bare.median)),
        judged: judge(summary, (name, false), [a, bare], capacity),
    }
}

/// The statistics of `ms_per_million` for `contestant` at `capacity`, if it ran cleanly.
fn ms_stats<'a>(summary: &'a Summary, contestant: &str, capacity: u64) -> Option<&'a MetricStats> {
    summary.metric(contestant, &format!("{}.{HEADLINE}", phase(capacity)))
}
