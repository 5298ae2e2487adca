//! What both scenarios ask of their admission policies as data: the family question asked at each policy apart
//! (stream, blocking or coroutine, each under the same limiter: construction held equal), on the scenario's
//! metric and on CPU per call. A question's id and sentence name its policy, so they are made once per policy
//!, owned by each question.

use std::collections::BTreeMap;

use measure::question::{Alternatives, Question};
use measure::summary::{Family, Verdict};

use crate::limit::LimiterKind;

/// The families that run every gated policy, in report order.
pub const FAMILIES: [Family; 3] = [Family::Stream, Family::Blocking, Family::Coroutine];

/// CPU per call, the second metric every family question is asked on.
pub const CPU: &str = "cpu_us_per_call";

/// The contestant of `family` under `kind`: `<family>-<limiter>`.
pub fn contestant(family: Family, kind: LimiterKind) -> String {
    format!("{}-{}", family.as_str(), kind.name())
}

/// How a scenario asks its family question at one policy.
#[derive(Debug, Clone, Copy)]
pub struct FamilyAsk {
    /// The deciding metric's key (the scenario's primary metric).
    pub metric: &'static str,
    /// That metric in a reader's words.
    pub metric_words: &'static str,
    /// Whether more of it is better.
    pub higher_is_better: bool,
    /// What the metric says of a family, after "which": "keeps the dependency's tail lowest after the loss".
    pub which: &'static str,
    /// CPU per call ([`CPU`]) in a reader's words, as the scenario counts it.
    pub cpu_words: &'static str,
    /// The situation the scenario's questions share, as the index names it: "the batch job".
    pub situation: &'static str,
}

/// The family question at each of `policies`, twice: on `ask`'s metric (id `family-<limiter>`), with `controls`
/// (phase, why) as its controls, and on CPU per call (id `family-<limiter>-cpu`), asked at every phase; the
/// alternatives are the three families' contestants of that one policy.
pub fn family_questions(policies: &[LimiterKind], ask: &FamilyAsk, controls: &[(String, String)]) -> Vec<Question> {
    policies
        .iter()
        .flat_map(|&kind| {
            let name = kind.name();
            let alternatives = Alternatives::Named(FAMILIES.iter().map(|&f| contestant(f, kind)).collect());
            let on_metric = Question::new(
                format!("family-{name}"),
                format!("Under the `{name}` limit, stream, blocking or coroutine: which {}?", ask.which),
                alternatives.clone(),
                ask.metric,
                ask.metric_words,
                ask.higher_is_better,
            )
            .of_families()
            .situation(format!("{} under `{name}`: the family", ask.situation));
            let on_metric = controls.iter().fold(on_metric, |q, (phase, why)| q.control(phase.clone(), why.clone()));
            let on_cpu = Question::new(
                format!("family-{name}-cpu"),
                format!("Under the `{name}` limit, stream, blocking or coroutine: which spends the least CPU?"),
                alternatives,
                CPU,
                ask.cpu_words,
                false,
            )
            .of_families()
            .situation(format!("{} under `{name}`: the family, by CPU", ask.situation));
            [on_metric, on_cpu]
        })
        .collect()
}

/// The policies `named` by the verdict each has ([`Verdict::as_str`]: `holds`, `fails`, `inconclusive`, each key
/// present, empty where none has it), in the order given, as a report lists those a claim held for and those it
/// did not.
pub fn by_verdict(
    named: impl IntoIterator<Item = (&'static str, &'static str)>,
) -> BTreeMap<&'static str, Vec<&'static str>> {
    let verdicts = [Verdict::Holds, Verdict::Fails, Verdict::Inconclusive];
    let mut by_verdict: BTreeMap<&'static str, Vec<&'static str>> =
        verdicts.into_iter().map(|v| (v.as_str(), Vec::new())).collect();
    for (name, verdict) in named {
        by_verdict.entry(verdict).or_default().push(name);
    }
    by_verdict
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_policy_gets_a_family_question_on_its_metric_and_on_cpu_with_its_own_three_contestants() {
        let ask = FamilyAsk {
            metric: "after_drop.latency_p99_us",
            metric_words: "p99",
            higher_is_better: false,
            which: "keeps the tail lowest",
            cpu_words: "CPU per call",
            situation: "the batch job",
        };
        let questions = family_questions(
            &[LimiterKind::Fixed, LimiterKind::Vegas],
            &ask,
            &[("rate_1".to_string(), "below the ceiling".to_string())],
        );
        let ids: Vec<&str> = questions.iter().map(|q| q.id.as_ref()).collect();
        assert_eq!(ids, ["family-fixed", "family-fixed-cpu", "family-vegas", "family-vegas-cpu"]);
        assert!(questions.iter().all(|q| q.family));
        assert_eq!(
            questions[2].alternatives,
            Alternatives::named(&["stream-vegas", "blocking-vegas", "coroutine-vegas"])
        );
        assert_eq!(questions[1].metric, CPU);
        assert_eq!(questions[0].controls, vec![("rate_1".into(), "below the ceiling".into())]);
        assert!(questions[1].controls.is_empty(), "CPU per call is asked at every rate");
    }
}
