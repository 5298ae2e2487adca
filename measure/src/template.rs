//! Fixed explanations as markdown templates (minijinja), filled from typed findings a scenario computes from
//! its summary: the words live in each scenario's `templates/`, the numbers and verdicts in Rust.

use serde::Serialize;

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
    let wrap = |source| TemplateError { name: name.to_string(), source };
    env.add_template(name, source).map_err(wrap)?;
    env.get_template(name).and_then(|t| t.render(minijinja::value::Serde(&context))).map_err(wrap)
}

/// [`render`], or a line saying the template failed (a report is still written).
pub fn render_or_note(name: &str, source: &str, context: impl Serialize) -> String {
    render(name, source, context).unwrap_or_else(|err| format!("_The discussion could not be rendered: {err}._\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn an_undefined_variable_is_an_error_naming_the_template() {
        let err = render("chain/discussion.md", "{{ missing }}", serde_json::json!({})).err().map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.starts_with("template `chain/discussion.md`")));
    }
}
