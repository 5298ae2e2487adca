//! The cost model: a contestant's wall nanoseconds per item predicted from what its own accounting counted per
//! item (hand-offs, wake-ups, allocations) times what each of those costs on this machine (`lab floor`'s figures
//! of the same sitting), plus the per-item floor: the fastest contestant of the same phase that hands nothing off
//! (the work itself), or the floor's loop where none ran. Set beside the measured cost, it says which term a
//! contestant's cost is made of, and a contestant it misses is a cost the lab does not count.
//!
//! The model has no fitted coefficient: every price is a floor figure and every quantity a measured count, so its
//! fit (R² on log cost across the contestants) is a test of the model, not of a regression. The wake-up price is
//! the floor's park → unpark wake-up on one CPU when the run had one CPU, across CPUs otherwise; the hand-off
//! price is the SPSC ring's per-item figure, paid once a message; the allocation price is one allocation and its
//! free. A tokio task's wake-up that parks no thread is not a context switch and so is not counted: stream
//! contestants whose cost is task wake-ups are what the model misses, and the report names them.

use serde::{Deserialize, Serialize};

use crate::setup::FloorUse;
use crate::summary::{metric_key, Summary};

/// The metric a scenario's routine records, per contestant and phase, to put it in the model: messages handed
/// across threads per item (the channels an item crosses over the items per message; 0 for a contestant that
/// hands nothing off). A scenario that records it gets the model in its report.
pub const HAND_OFFS_METRIC: &str = "hand_offs_per_item";

/// The R² on log cost the model must reach across the per-item contestants before the report calls its fit good;
/// below it the report names the contestants whose removal brings it there (issue 54's bar).
pub const GOOD_FIT: f64 = 0.8;

/// One term of a prediction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Term {
    /// The loop's per-item cost (`loop_item`): the work itself, nothing handed off.
    Loop,
    /// One ring hand-off (`spsc_ring_item`) per message.
    HandOff,
    /// One thread wake-up (`wake_same_cpu` or `wake_across_cpus`) per context switch counted.
    WakeUps,
    /// One allocation and its free (`alloc_free`) per allocation counted.
    Allocations,
}

impl Term {
    /// Every term, in the order a report lists them.
    pub const ALL: [Term; 4] = [Term::Loop, Term::HandOff, Term::WakeUps, Term::Allocations];

    /// The term in a reader's words.
    pub fn label(self) -> &'static str {
        match self {
            Term::Loop => "loop",
            Term::HandOff => "hand-offs",
            Term::WakeUps => "wake-ups",
            Term::Allocations => "allocations",
        }
    }
}

/// What each counted quantity costs on this machine, in wall nanoseconds: the floor figures the model multiplies.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Prices {
    /// `loop_item`.
    pub loop_item: f64,
    /// `spsc_ring_item`.
    pub hand_off: f64,
    /// `wake_same_cpu` on one CPU, `wake_across_cpus` on more.
    pub wake_up: f64,
    /// `alloc_free`.
    pub allocation: f64,
    /// Which wake-up figure [`Prices::wake_up`] is.
    pub wake_key: &'static str,
}

impl Prices {
    /// The prices of the floor a run cites, for a run on `cpus` CPUs; `Err` says why there are none (no floor
    /// cited, or a figure it lacks).
    pub fn of(floor: &FloorUse, cpus: usize) -> Result<Prices, String> {
        if let Some(why) = &floor.not_cited {
            return Err(why.clone());
        }
        let figure = |key: &str| {
            floor
                .figures
                .iter()
                .find(|f| f.key == key)
                .and_then(|f| f.ns_per_op)
                .ok_or_else(|| format!("the floor cited has no `{key}` figure"))
        };
        let wake_key = if cpus <= 1 { "wake_same_cpu" } else { "wake_across_cpus" };
        Ok(Prices {
            loop_item: figure("loop_item")?,
            hand_off: figure("spsc_ring_item")?,
            wake_up: figure(wake_key)?,
            allocation: figure("alloc_free")?,
            wake_key,
        })
    }
}

/// What a contestant's accounting counted per item: the quantities the model multiplies.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Counts {
    /// Messages handed across threads per item (0 for a contestant that hands nothing off; the number of channels
    /// an item crosses over the items per message).
    pub hand_offs: f64,
    /// Context switches per item.
    pub wake_ups: f64,
    /// Allocations per item.
    pub allocations: f64,
}

/// A predicted per-item cost, term by term.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prediction {
    /// Each term's nanoseconds per item, in [`Term::ALL`] order.
    pub terms: Vec<(Term, f64)>,
    /// Their sum.
    pub total: f64,
}

impl Prediction {
    /// The nanoseconds per item of `term`.
    pub fn term(&self, term: Term) -> f64 {
        self.terms.iter().find(|(t, _)| *t == term).map_or(0.0, |&(_, ns)| ns)
    }
}

/// The model's prediction for `counts` at `prices`.
pub fn predict(prices: &Prices, counts: &Counts) -> Prediction {
    let terms = vec![
        (Term::Loop, prices.loop_item),
        (Term::HandOff, counts.hand_offs * prices.hand_off),
        (Term::WakeUps, counts.wake_ups * prices.wake_up),
        (Term::Allocations, counts.allocations * prices.allocation),
    ];
    let total = terms.iter().map(|(_, ns)| ns).sum();
    Prediction { terms, total }
}

/// One contestant measured and predicted.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// The contestant.
    pub contestant: String,
    /// Its measured wall nanoseconds per item (the median of its process medians).
    pub measured: f64,
    /// What it counted.
    pub counts: Counts,
    /// The model's prediction.
    pub predicted: Prediction,
}

impl Row {
    /// Measured over predicted.
    pub fn ratio(&self) -> f64 {
        self.measured / self.predicted.total
    }
}

/// The model's fit across a run's contestants.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fit {
    /// The prices used.
    pub prices: Prices,
    /// Every contestant with a measured cost and all its counts, in the order given.
    pub rows: Vec<Row>,
    /// R² of the predicted against the measured log cost across [`Fit::rows`] (1 − residual over total sum of
    /// squares; negative when the prediction is worse than the mean); `None` with fewer than two rows or no
    /// spread.
    pub r_squared: Option<f64>,
    /// The contestants the model misses: the fewest, largest log residuals first, whose removal brings R² to
    /// [`GOOD_FIT`]; empty when the fit is good.
    pub misses: Vec<String>,
    /// R² without the misses.
    pub r_squared_without_misses: Option<f64>,
}

/// R² of `predicted` against `measured` log costs.
fn log_r_squared(rows: &[&Row]) -> Option<f64> {
    if rows.len() < 2 {
        return None;
    }
    let measured: Vec<f64> = rows.iter().map(|r| r.measured.ln()).collect();
    let mean = measured.iter().sum::<f64>() / measured.len() as f64;
    let total: f64 = measured.iter().map(|m| (m - mean).powi(2)).sum();
    let residual: f64 = rows.iter().zip(&measured).map(|(r, m)| (m - r.predicted.total.ln()).powi(2)).sum();
    (total > 0.0).then(|| 1.0 - residual / total)
}

/// The model's fit over `rows` (contestant, measured ns per item, counts) at `prices`; rows whose measured or
/// predicted cost is not positive are left out.
pub fn fit(prices: Prices, rows: impl IntoIterator<Item = (String, f64, Counts)>) -> Fit {
    let rows: Vec<Row> = rows
        .into_iter()
        .map(|(contestant, measured, counts)| Row {
            contestant,
            measured,
            counts,
            predicted: predict(&prices, &counts),
        })
        .filter(|r| r.measured > 0.0 && r.predicted.total > 0.0)
        .collect();
    let all: Vec<&Row> = rows.iter().collect();
    let r_squared = log_r_squared(&all);
    let mut kept = all.clone();
    kept.sort_by(|a, b| a.ratio().ln().abs().total_cmp(&b.ratio().ln().abs()));
    let mut misses = Vec::new();
    while log_r_squared(&kept).is_some_and(|r2| r2 < GOOD_FIT) {
        let Some(worst) = kept.pop() else { break };
        misses.push(worst.contestant.clone());
    }
    let r_squared_without_misses = log_r_squared(&kept);
    Fit { prices, rows, r_squared, misses, r_squared_without_misses }
}

/// The term whose nanoseconds per item changed most between two predictions of one contestant (at two core
/// counts, say), with its change (`to` minus `from`).
pub fn changed_most(from: &Prediction, to: &Prediction) -> (Term, f64) {
    Term::ALL
        .into_iter()
        .map(|term| (term, to.term(term) - from.term(term)))
        .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
        .unwrap_or((Term::Loop, 0.0))
}

/// The model's fit at one phase of a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PhaseFit {
    /// The phase (`capacity_256`); `None` for a run without phases.
    pub phase: Option<String>,
    /// The contestant that hands nothing off and is fastest there, whose cost is the loop term (the work itself
    /// at this phase); `None` when none ran, and the floor's `loop_item` is the term.
    pub work_from: Option<String>,
    /// The fit across the contestants that hand items off there and counted every quantity.
    pub fit: Fit,
}

/// The CPUs a run's trials had: the pin's count, else the machine's.
pub fn cpus_of(summary: &Summary) -> usize {
    summary.environment.pin.as_ref().map_or(summary.environment.cores, |p| p.cores) as usize
}

/// Every contestant of `summary` that counted every quantity at `phase`: its name, measured `ms_per_million`
/// (nanoseconds per item) and counts.
pub fn counted(summary: &Summary, phase: Option<&str>) -> Vec<(String, f64, Counts)> {
    let median = |name: &str, metric: &str| summary.median(name, &metric_key(phase, metric));
    summary
        .contestants
        .iter()
        .filter_map(|c| {
            let counts = Counts {
                hand_offs: median(&c.name, HAND_OFFS_METRIC)?,
                wake_ups: median(&c.name, "ctx_switches_per_item")?,
                allocations: median(&c.name, "allocs_per_item")?,
            };
            Some((c.name.clone(), median(&c.name, "ms_per_million")?, counts))
        })
        .collect()
}

/// The fit of `rows` at `prices`: the fastest row that hands nothing off gives the loop term (the work itself at
/// this phase, which the floor's `loop_item` does not carry) and is named; the rows that hand items off are fitted.
pub fn fit_phase(prices: Prices, rows: Vec<(String, f64, Counts)>) -> (Option<String>, Fit) {
    let (still, moving): (Vec<_>, Vec<_>) = rows.into_iter().partition(|(_, _, c)| c.hand_offs == 0.0);
    let work = still.into_iter().filter(|(_, ns, _)| *ns > 0.0).min_by(|a, b| a.1.total_cmp(&b.1));
    let prices = Prices { loop_item: work.as_ref().map_or(prices.loop_item, |w| w.1), ..prices };
    (work.map(|w| w.0), fit(prices, moving))
}

/// The model at every phase of `summary` where some contestant handed items off ([`HAND_OFFS_METRIC`] above 0;
/// [`fit_phase`] of
/// [`counted`] at the prices of the floor the run cites). `Ok` and empty when no contestant recorded hand-offs
/// (the scenario is not modelled); `Err` says why a modelled run has no prices (no floor cited, or one without a
/// figure the model needs).
pub fn of_summary(summary: &Summary) -> Result<Vec<PhaseFit>, String> {
    let key = |phase: Option<&str>| metric_key(phase, HAND_OFFS_METRIC);
    let modelled = |phase: Option<&str>| {
        summary.contestants.iter().any(|c| c.metrics.get(&key(phase)).is_some_and(|m| m.median > 0.0))
    };
    let phases: Vec<Option<&str>> = summary.phase_keys().into_iter().filter(|p| modelled(*p)).collect();
    if phases.is_empty() {
        return Ok(Vec::new());
    }
    let floor = summary.environment.floor.clone().unwrap_or_else(|| FloorUse {
        not_cited: Some("the run recorded no floor".to_string()),
        ..FloorUse::default()
    });
    let prices = Prices::of(&floor, cpus_of(summary))?;
    Ok(phases
        .into_iter()
        .map(|phase| {
            let (work_from, fit) = fit_phase(prices, counted(summary, phase));
            PhaseFit { phase: phase.map(str::to_string), work_from, fit }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::setup::FloorFigure;

    fn prices() -> Prices {
        Prices { loop_item: 1.0, hand_off: 10.0, wake_up: 1000.0, allocation: 20.0, wake_key: "wake_across_cpus" }
    }

    fn counts(hand_offs: f64, wake_ups: f64, allocations: f64) -> Counts {
        Counts { hand_offs, wake_ups, allocations }
    }

    #[test]
    fn a_prediction_is_each_count_times_its_price_plus_the_loop() {
        let p = predict(&prices(), &counts(1.0, 0.01, 2.0));
        assert_eq!(p.term(Term::Loop), 1.0);
        assert_eq!(p.term(Term::HandOff), 10.0);
        assert_eq!(p.term(Term::WakeUps), 10.0);
        assert_eq!(p.term(Term::Allocations), 40.0);
        assert_eq!(p.total, 61.0);
    }

    #[test]
    fn a_model_that_predicts_every_row_fits_perfectly_and_misses_none() {
        let rows = [(1.0, 0.0, 0.0), (1.0, 0.1, 0.0), (0.1, 0.0, 1.0), (1.0, 0.01, 2.0)].map(|(h, w, a)| {
            let c = counts(h, w, a);
            (format!("{h}-{w}-{a}"), predict(&prices(), &c).total, c)
        });
        let fit = fit(prices(), rows);
        assert_eq!(fit.rows.len(), 4);
        assert!((fit.r_squared.expect("spread") - 1.0).abs() < 1e-12);
        assert!(fit.misses.is_empty());
    }

    #[test]
    fn the_rows_it_misses_are_named_largest_residual_first_until_the_fit_is_good() {
        let mut rows: Vec<(String, f64, Counts)> =
            [(1.0, 0.0, 0.0), (1.0, 0.1, 0.0), (0.1, 0.0, 1.0), (1.0, 0.01, 2.0)]
                .into_iter()
                .enumerate()
                .map(|(i, (h, w, a))| {
                    let c = counts(h, w, a);
                    (format!("fits-{i}"), predict(&prices(), &c).total * 1.05, c)
                })
                .collect();
        // Costs the model cannot see: a spinning contestant 40× its prediction, another 8×.
        rows.push(("spins".to_string(), 40.0 * 11.0, counts(1.0, 0.0, 0.0)));
        rows.push(("task-wakes".to_string(), 8.0 * 11.0, counts(1.0, 0.0, 0.0)));
        let fit = fit(prices(), rows);
        assert!(fit.r_squared.expect("spread") < GOOD_FIT);
        assert_eq!(fit.misses.first().map(String::as_str), Some("spins"));
        assert!(fit.r_squared_without_misses.expect("spread") >= GOOD_FIT);
        assert!(!fit.misses.iter().any(|m| m.starts_with("fits-")), "{:?}", fit.misses);
    }

    #[test]
    fn the_term_that_changed_most_between_two_core_counts_is_named() {
        let one = predict(&Prices { wake_up: 2000.0, ..prices() }, &counts(1.0, 0.0001, 0.0));
        let two = predict(&prices(), &counts(1.0, 0.03, 0.0));
        let (term, change) = changed_most(&one, &two);
        assert_eq!(term, Term::WakeUps);
        assert!((change - (30.0 - 0.2)).abs() < 1e-9);
    }

    #[test]
    fn prices_come_from_the_floor_cited_for_the_run_cores() {
        let figure = |key: &str, ns: f64| FloorFigure::of_processes(key, "", vec![ns], &[]);
        let floor = FloorUse {
            file: "floor.json".to_string(),
            figures: vec![
                figure("loop_item", 1.5),
                figure("spsc_ring_item", 7.0),
                figure("wake_same_cpu", 900.0),
                figure("wake_across_cpus", 30_000.0),
                figure("alloc_free", 18.0),
            ],
            ..FloorUse::default()
        };
        let one = Prices::of(&floor, 1).expect("one CPU");
        assert_eq!((one.wake_up, one.wake_key), (900.0, "wake_same_cpu"));
        assert_eq!(Prices::of(&floor, 2).expect("two CPUs").wake_up, 30_000.0);
        let old = FloorUse { figures: floor.figures[..4].to_vec(), ..floor.clone() };
        assert!(Prices::of(&old, 2).expect_err("no alloc_free").contains("alloc_free"));
        assert!(Prices::of(&FloorUse::none(), 2).is_err());
    }

    #[test]
    fn a_run_is_modelled_at_each_phase_where_contestants_counted_hand_offs() {
        use crate::question::tests::contestant;
        use crate::summary::tests::summary;
        use crate::summary::Role;
        let at = |phase: &str, metric: &str, v: f64| (format!("{phase}.{metric}"), v);
        let counted = |name: &str, ns: f64, hand_offs: f64| {
            let metrics: Vec<(String, f64)> = vec![
                at("capacity_1", "ms_per_million", ns),
                at("capacity_1", HAND_OFFS_METRIC, hand_offs),
                at("capacity_1", "ctx_switches_per_item", 0.01),
                at("capacity_1", "allocs_per_item", 0.0),
            ];
            let borrowed: Vec<(&str, Vec<f64>)> = metrics.iter().map(|(k, v)| (k.as_str(), vec![*v])).collect();
            let slices: Vec<(&str, &[f64])> = borrowed.iter().map(|(k, v)| (*k, v.as_slice())).collect();
            contestant(name, Role::Candidate, &slices)
        };
        let mut run = summary(vec![counted("a", 40.0, 1.0), counted("b", 12.0, 1.0 / 16.0), counted("loop", 3.0, 0.0)]);
        run.phases = vec!["capacity_1".to_string(), "capacity_2".to_string()];
        assert!(of_summary(&run).expect_err("no floor").contains("no floor"), "a modelled run without a floor says so");
        let figure = |key: &str, ns: f64| crate::setup::FloorFigure::of_processes(key, "", vec![ns], &[]);
        run.environment.cores = 2;
        run.environment.floor = Some(FloorUse {
            file: "floor.json".to_string(),
            figures: ["loop_item", "spsc_ring_item", "wake_same_cpu", "wake_across_cpus", "alloc_free"]
                .into_iter()
                .zip([1.0, 10.0, 500.0, 2000.0, 20.0])
                .map(|(k, ns)| figure(k, ns))
                .collect(),
            ..FloorUse::default()
        });
        let fits = of_summary(&run).expect("prices");
        assert_eq!(fits.len(), 1, "only the phase where hand-offs were counted");
        assert_eq!(fits[0].phase.as_deref(), Some("capacity_1"));
        assert_eq!(
            fits[0].work_from.as_deref(),
            Some("loop"),
            "the work itself is the contestant that hands off nothing"
        );
        assert_eq!(fits[0].fit.rows.len(), 2, "only the contestants that hand items off are fitted");
        let a = &fits[0].fit.rows[0];
        assert_eq!((a.contestant.as_str(), a.measured, a.predicted.total), ("a", 40.0, 3.0 + 10.0 + 20.0));
        assert!(of_summary(&summary(vec![])).expect("not modelled").is_empty());
    }
}
