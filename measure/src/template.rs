//! Fixed explanations as markdown templates (minijinja), filled from typed findings a scenario computes from
//! its summary: the words live in each scenario's `templates/`, the numbers and verdicts in Rust.

use std::collections::BTreeMap;

mod lint;

pub use lint::lint;

use serde::Serialize;

use crate::summary::{ClaimResult, Verdict};

/// A claim as a template reads it, found by its id: `{% if claims["fixed-bound-tail"].holds %}…{% endif %}`.
/// A finding sentence is written in the template under the verdict that backs it; Rust never matches a claim's
/// text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClaimView {
    /// `holds`, `fails` or `inconclusive`.
    pub verdict: &'static str,
    /// The verdict is `holds`.
    pub holds: bool,
    /// The verdict is `fails`.
    pub fails: bool,
    /// The verdict is `inconclusive`.
    pub inconclusive: bool,
    /// `p = 0.0040`, or empty when the verdict has no p.
    pub p: String,
    /// The claim's statement.
    pub text: String,
}

/// Every claim of `claims` that has an id, keyed by it, for a template's context (claims without an id are left
/// out: a template cannot name them).
pub fn claims_by_id(claims: &[ClaimResult]) -> BTreeMap<String, ClaimView> {
    claims.iter().filter(|c| !c.id.is_empty()).map(|c| (c.id.clone(), ClaimView::of(c))).collect()
}

/// [`claims_by_id`], and every `(id, text)` of `table` the run did not judge as `not judged`: a
/// template can then name every claim of the scenario's table, judged or not.
pub fn claims_with_table<Id: Into<String>>(
    claims: &[ClaimResult],
    table: impl IntoIterator<Item = (Id, String)>,
) -> BTreeMap<String, ClaimView> {
    let mut views = claims_by_id(claims);
    for (id, text) in table {
        views.entry(id.into()).or_insert_with(|| ClaimView::not_judged(text));
    }
    views
}

impl ClaimView {
    /// A claim of the table the run did not judge (its phase or contestants did not run): `not judged`, no p.
    fn not_judged(text: String) -> ClaimView {
        ClaimView { verdict: "not judged", holds: false, fails: false, inconclusive: false, p: String::new(), text }
    }

    /// `claim` as a template reads it; also a finding a scenario judges as a claim is judged
    /// ([`crate::judge::judge`]) without listing it among its claims.
    pub fn of(claim: &ClaimResult) -> ClaimView {
        ClaimView {
            verdict: claim.verdict.as_str(),
            holds: claim.verdict == Verdict::Holds,
            fails: claim.verdict == Verdict::Fails,
            inconclusive: claim.verdict == Verdict::Inconclusive,
            p: crate::judge::p_label(claim.p),
            text: claim.text.clone(),
        }
    }
}

/// Why a template could not be rendered.
#[derive(Debug, thiserror::Error)]
#[error("template `{name}`: {source}")]
pub struct TemplateError {
    /// The template's name, such as `chain/discussion.md`.
    pub name: String,
    /// What minijinja said.
    #[source]
    pub source: minijinja::Error,
}

/// Render the markdown template `source` (named `name` in errors) with `context`. Undefined variables are
/// errors, so a template cannot silently print nothing where a finding should be. Blocks keep their newlines:
/// write `{%- ... -%}` where a tag should not leave a blank line.
pub fn render(name: &str, source: &str, context: impl Serialize) -> Result<String, TemplateError> {
    let mut env = minijinja::Environment::new();
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    env.add_filter("and_list", and_list);
    env.add_filter("and_sep", and_sep);
    let wrap = |source| TemplateError { name: name.to_string(), source };
    env.add_template(name, source).map_err(wrap)?;
    env.get_template(name).and_then(|t| t.render(minijinja::value::Serde(&context))).map_err(wrap)
}

/// The filter `and_list`: a list read as words, `a`, `a and b`, `a, b and c` (`{{ names|and_list }}`).
fn and_list(items: Vec<minijinja::Value>) -> String {
    let words: Vec<String> = items.iter().map(ToString::to_string).collect();
    match words.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => words.concat(),
    }
}

/// The filter `and_sep`: what goes before an item of a `for` loop read as words (`{{ loop|and_sep }}`): nothing
/// before the first, ` and ` before the last, `, ` before the others, for items a template decorates itself.
fn and_sep(looped: minijinja::Value) -> Result<&'static str, minijinja::Error> {
    let attr = |name: &str| -> Result<bool, minijinja::Error> { Ok(looped.get_attr(name)?.is_true()) };
    Ok(if attr("first")? {
        ""
    } else if attr("last")? {
        " and "
    } else {
        ", "
    })
}

/// [`render`], or a line saying the template failed (a report is still written).
pub fn render_or_note(name: &str, source: &str, context: impl Serialize) -> String {
    render(name, source, context).unwrap_or_else(|err| format!("_The discussion could not be rendered: {err}._\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_read_as_words() {
        let text =
            |source: &str, items: &[&str]| render("t", source, serde_json::json!({ "items": items })).expect("renders");
        assert_eq!(text("{{ items|and_list }}", &["a", "b", "c"]), "a, b and c");
        assert_eq!(text("{{ items|and_list }}", &["a", "b"]), "a and b");
        assert_eq!(text("{{ items|and_list }}", &["a"]), "a");
        assert_eq!(text("{{ items|and_list }}", &[]), "");
        let decorated = "{% for i in items %}{{ loop|and_sep }}`{{ i }}`{% endfor %}";
        assert_eq!(text(decorated, &["a", "b", "c"]), "`a`, `b` and `c`");
        assert_eq!(text(decorated, &["a"]), "`a`");
    }

    #[test]
    fn a_template_is_filled_from_its_context() {
        let text = render(
            "t",
            "{% if holds %}It holds at {{ ratio }}.{% endif %}",
            serde_json::json!({"holds": true, "ratio": "1.50×"}),
        );
        assert_eq!(text.ok().as_deref(), Some("It holds at 1.50×."));
    }

    #[test]
    fn a_claim_is_found_by_its_id_and_its_verdict_chooses_the_sentence() {
        let mut claim = ClaimResult::new("Streams beat threads.", Verdict::Fails, "1.2× against 0.5×");
        claim.id = "streams-beat-threads".to_string();
        let unnamed = ClaimResult::new("No id.", Verdict::Holds, "");
        let context = serde_json::json!({ "claims": claims_by_id(&[claim, unnamed]) });
        let text = render(
            "t",
            "{% if claims['streams-beat-threads'].holds %}They do.{% else %}Not here ({{              claims['streams-beat-threads'].verdict }}).{% endif %}",
            &context,
        );
        assert_eq!(text.ok().as_deref(), Some("Not here (fails)."));
        assert_eq!(context["claims"].as_object().map(|m| m.len()), Some(1));
    }

    #[test]
    fn an_undefined_variable_is_an_error_naming_the_template() {
        let err = render("chain/discussion.md", "{{ missing }}", serde_json::json!({})).err().map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.starts_with("template `chain/discussion.md`")));
    }
}
