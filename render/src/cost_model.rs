//! The cost model's section of a report ([`measure::cost_model`]): each modelled contestant's measured cost per
//! item beside the model's prediction, term by term, the fit per phase and the contestants it misses with what
//! their run measured. Nothing is decided here: the model and its fit come from `measure`; this formats them.

use measure::cost_model::{self, PhaseFit, Row, Term};
use measure::summary::{metric_key, Summary};
use serde_json::{json, Value};

use crate::format;

/// The section for `summary`, in full (`details`: every row's terms) or brief (the fit and misses per phase);
/// empty when the scenario is not modelled.
pub(crate) fn section(summary: &Summary, details: bool) -> String {
    let context = match cost_model::of_summary(summary) {
        Ok(fits) if fits.is_empty() => return String::new(),
        Ok(fits) => json!({
            "details": details,
            "no_prices": null,
            "scenario": summary.scenario,
            "good_fit": format!("{:.1}", cost_model::GOOD_FIT),
            "cpus": cost_model::cpus_of(summary),
            "prices": fits.first().map(|f| prices_view(&f.fit.prices)),
            "phases": fits.iter().map(|f| phase_view(summary, f)).collect::<Vec<_>>(),
        }),
        Err(why) => json!({ "details": details, "no_prices": why }),
    };
    template!("cost-model.md", context)
}

fn prices_view(prices: &cost_model::Prices) -> Value {
    json!({
        "hand_off": format::number(prices.hand_off),
        "wake_up": format::number(prices.wake_up),
        "wake_key": prices.wake_key,
        "allocation": format::number(prices.allocation),
    })
}

fn r_squared(value: Option<f64>) -> String {
    value.map_or_else(|| "—".to_string(), |r| format!("{r:.2}"))
}

fn phase_view(summary: &Summary, phase_fit: &PhaseFit) -> Value {
    let fit = &phase_fit.fit;
    let phase = phase_fit.phase.as_deref();
    let measured = |name: &str, metric: &str| summary.median(name, &metric_key(phase, metric)).map(format::number);
    let misses: Vec<Value> = fit
        .misses
        .iter()
        .filter_map(|name| fit.rows.iter().find(|r| &r.contestant == name))
        .map(|row| {
            json!({
                "contestant": row.contestant,
                "times": format::ratio(row.ratio()),
                "over": row.ratio() >= 1.0,
                "largest_term": largest_term(row).label(),
                "cores_used": measured(&row.contestant, "cores_used"),
                "cpu_ns_per_item": measured(&row.contestant, "cpu_ns_per_item"),
            })
        })
        .collect();
    json!({
        "phase": phase,
        "work_from": phase_fit.work_from,
        "work_ns": format::number(fit.prices.loop_item),
        "contestants": fit.rows.len(),
        "r_squared": r_squared(fit.r_squared),
        "good": fit.r_squared.is_some_and(|r| r >= cost_model::GOOD_FIT),
        "r_squared_without_misses": r_squared(fit.r_squared_without_misses),
        "misses": misses,
        "rows": fit.rows.iter().map(row_view).collect::<Vec<_>>(),
    })
}

fn largest_term(row: &Row) -> Term {
    row.predicted.terms.iter().max_by(|a, b| a.1.total_cmp(&b.1)).map_or(Term::Loop, |&(term, _)| term)
}

fn row_view(row: &Row) -> Value {
    json!({
        "contestant": row.contestant,
        "measured": format::number(row.measured),
        "predicted": format::number(row.predicted.total),
        "times": format::ratio(row.ratio()),
        "terms": Term::ALL.iter().map(|&t| format::number(row.predicted.term(t))).collect::<Vec<_>>(),
        "counts": [
            format::number(row.counts.hand_offs),
            format::number(row.counts.wake_ups),
            format::number(row.counts.allocations),
        ],
    })
}
