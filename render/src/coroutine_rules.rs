//! What `may` asks of code that runs on its coroutines, stated once for every report whose run has a
//! coroutine-family contestant, as tokio's cooperative budget is stated where it applies. The words are in
//! `templates/coroutine-rules.md`; the long form, with sources, is `docs/coroutines.md`.

use measure::summary::{Family, Summary};

/// The rules, naming the run's coroutine contestants; empty when it has none.
pub(crate) fn note(summary: &Summary) -> String {
    let coroutines: Vec<String> =
        summary.contestants.iter().filter(|c| c.family == Family::Coroutine).map(|c| format!("`{}`", c.name)).collect();
    if coroutines.is_empty() {
        return String::new();
    }
    template!("coroutine-rules.md", serde_json::json!({ "coroutines": coroutines }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use testkit::fixture::{contestant, summary};

    #[test]
    fn the_rules_name_the_coroutine_contestants_and_are_absent_without_any() {
        let ran = |name: &str, family| contestant(name, family, Default::default());
        let mixed = summary("device", vec![ran("coroutine-may", Family::Coroutine), ran("blocking", Family::Blocking)]);
        let text = note(&mixed);
        assert!(text.starts_with("**Coroutines hold only under `may`'s rules.** `coroutine-may` run"), "{text}");
        assert!(!text.contains("`blocking`"), "{text}");
        assert_eq!(note(&summary("chain", vec![ran("blocking", Family::Blocking)])), "");
    }
}
