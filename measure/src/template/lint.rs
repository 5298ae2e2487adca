//! The lint every rendered report passes: each sentence renders whole. It reports what a template or a
//! formatter leaves behind when a figure is missing or of the wrong kind, and wording from outside the project.
//! Every rule is a pattern defined exactly enough to have no false positive on a report that reads well:
//!
//! - an empty placeholder: `()` or `( )`, a code span with nothing inside, `: ;` and other punctuation with
//!   nothing between, a space before `,` or `;`;
//! - a doubled space inside a sentence or a table cell (outside code; indentation is not a doubled space);
//! - a parenthesis or square bracket without its partner on the same line (outside code);
//! - a number where a word belongs: a whole count printed as a fraction before its noun (`6.00 threads`), a figure
//!   after `exact` or `sampled` printed with decimals (those are counts), and `NaN` or `inf`;
//! - wording from outside the project: `TODO`, `FIXME`, `helper`, and the project's issues (`issue 12`, `the
//!   issue asked`).
//!
//! - a template that failed to render (the note [`super::render_or_note`] leaves in its place).
//!
//! Fenced code blocks are skipped whole; inside a line, code spans are checked only for being empty.

/// Nouns that count whole things: a number before one of them is never a fraction.
const COUNT_NOUNS: &[&str] = &[
    "threads",
    "processes",
    "forks",
    "iterations",
    "trials",
    "contestants",
    "connections",
    "coroutines",
    "tasks",
    "calls",
    "items",
    "messages",
    "units",
    "claims",
    "phases",
];

/// Words after which a figure is a count ("exact 512, sampled 0.00").
const COUNT_LABELS: &[&str] = &["exact", "sampled"];

/// What [`super::render_or_note`] writes in place of a template that failed to render.
const FAILED_TEMPLATE: &str = "could not be rendered:";

/// Punctuation with nothing between: what a sentence shows where a figure or a phrase rendered empty.
const EMPTY_BETWEEN: &[&str] = &[": ;", ": ,", ": .", ", ,", ", .", ", ;", "; ;", ";;", ",,", " ,", " ;"];

/// Every finding in `markdown`, one line each: `line N: what: the text at fault`. Empty when it reads whole.
pub fn lint(markdown: &str) -> Vec<String> {
    let mut findings = Vec::new();
    let mut fence: Option<String> = None;
    for (i, line) in markdown.lines().enumerate() {
        let number = i + 1;
        let trimmed = line.trim_start();
        if let Some(open) = &fence {
            if trimmed.starts_with(open.as_str()) {
                fence = None;
            }
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            let marker: String = trimmed.chars().take_while(|&c| c == '`' || c == '~').collect();
            fence = Some(marker);
            continue;
        }
        let mut add = |what: &str, at: &str| findings.push(format!("line {number}: {what}: {}", excerpt(at)));
        let (prose, empty_spans, unclosed) = strip_code(line);
        for span in empty_spans {
            add("an empty code span", &span);
        }
        if unclosed {
            add("a backtick without its partner", line);
        }
        let table = trimmed.starts_with('|');
        for pattern in ["()", "( )"] {
            if prose.contains(pattern) {
                add("an empty placeholder", around(&prose, pattern));
            }
        }
        for pattern in EMPTY_BETWEEN {
            // A table cell may begin with punctuation after its separator's space; only prose is checked for
            // a space before `,` or `;`.
            if table && pattern.starts_with(' ') {
                continue;
            }
            if prose.trim().contains(pattern) {
                add("punctuation with nothing between", around(&prose, pattern));
                break;
            }
        }
        let doubled = if table {
            prose.split('|').map(str::trim).find(|cell| cell.contains("  ")).map(str::to_string)
        } else {
            let text = prose.trim();
            text.contains("  ").then(|| text.to_string())
        };
        if let Some(text) = doubled {
            add("a doubled space", around(&text, "  "));
        }
        for (open, close) in [('(', ')'), ('[', ']')] {
            if !balanced(&prose, open, close) {
                add(&format!("an unmatched `{open}` or `{close}`"), &prose);
            }
        }
        for what in numbers_where_words_belong(&prose) {
            add("a number where a word belongs", &what);
        }
        for what in outside_wording(&prose) {
            add("wording from outside the project", &what);
        }
        if line.contains(FAILED_TEMPLATE) {
            add("a template that failed to render", line);
        }
    }
    findings
}

/// `line` with every code span replaced by `code`, the content of every empty code span, and whether a
/// backtick run was left without its partner.
fn strip_code(line: &str) -> (String, Vec<String>, bool) {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut empty = Vec::new();
    let mut unclosed = false;
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|&&c| c == '`').count();
        // The closing run: the next run of exactly as many backticks.
        let mut j = i + run;
        let mut close = None;
        while j < chars.len() {
            if chars[j] == '`' {
                let len = chars[j..].iter().take_while(|&&c| c == '`').count();
                if len == run {
                    close = Some(j);
                    break;
                }
                j += len;
            } else {
                j += 1;
            }
        }
        match close {
            Some(j) => {
                let content: String = chars[i + run..j].iter().collect();
                if content.trim().is_empty() {
                    empty.push(chars[i..j + run].iter().collect());
                }
                out.push_str("code");
                i = j + run;
            }
            None => {
                // Two backticks with nothing after them are an empty span that lost its content.
                if run == 2 {
                    empty.push("``".to_string());
                    out.push_str("code");
                } else {
                    unclosed = true;
                    out.extend(&chars[i..i + run]);
                }
                i += run;
            }
        }
    }
    (out, empty, unclosed)
}

/// Whether every `close` in `text` follows its `open`, and every `open` is closed, on this line.
fn balanced(text: &str, open: char, close: char) -> bool {
    let mut depth = 0usize;
    for c in text.chars() {
        if c == open {
            depth += 1;
        } else if c == close {
            if depth == 0 {
                return false;
            }
            depth -= 1;
        }
    }
    depth == 0
}

/// The words of `text`, without the punctuation around them.
fn words(text: &str) -> Vec<&str> {
    text.split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '.' && c != '-'))
        .map(|w| w.trim_end_matches('.'))
        .collect()
}

/// A decimal number (`6.00`, `0.5`), not an integer.
fn is_decimal(word: &str) -> bool {
    let Some((whole, fraction)) = word.split_once('.') else { return false };
    !whole.is_empty()
        && !fraction.is_empty()
        && whole.trim_start_matches('-').chars().all(|c| c.is_ascii_digit() || c == ',')
        && fraction.chars().all(|c| c.is_ascii_digit())
}

/// A whole number printed with decimals, all zero (`6.00`).
fn is_whole_with_decimals(word: &str) -> bool {
    is_decimal(word) && word.split_once('.').is_some_and(|(_, fraction)| fraction.chars().all(|c| c == '0'))
}

fn numbers_where_words_belong(text: &str) -> Vec<String> {
    let words = words(text);
    let mut found = Vec::new();
    for (i, word) in words.iter().enumerate() {
        let next = words.get(i + 1).map(|w| w.to_lowercase());
        if is_whole_with_decimals(word) && next.as_deref().is_some_and(|n| COUNT_NOUNS.contains(&n)) {
            found.push(format!("{word} {}", words[i + 1]));
        }
        let previous = i.checked_sub(1).map(|p| words[p].to_lowercase());
        if is_decimal(word) && previous.as_deref().is_some_and(|p| COUNT_LABELS.contains(&p)) {
            found.push(format!("{} {word}", words[i - 1]));
        }
        if matches!(*word, "NaN" | "nan" | "inf" | "-inf" | "Infinity") {
            found.push((*word).to_string());
        }
    }
    found
}

fn outside_wording(text: &str) -> Vec<String> {
    let words = words(text);
    let mut found = Vec::new();
    for (i, word) in words.iter().enumerate() {
        let lower = word.to_lowercase();
        if matches!(*word, "TODO" | "FIXME" | "XXX") || matches!(lower.as_str(), "helper" | "helpers") {
            found.push((*word).to_string());
        }
        if lower == "issue" || lower == "issue's" || lower == "issues" {
            let next = words.get(i + 1).copied().unwrap_or("");
            let previous = i.checked_sub(1).map(|p| words[p].to_lowercase()).unwrap_or_default();
            let numbered = next.starts_with('#') || next.chars().next().is_some_and(|c| c.is_ascii_digit());
            let the_issue = matches!(previous.as_str(), "the" | "this" | "that") && lower != "issues";
            if numbered || the_issue || lower == "issue's" {
                found.push(format!("{previous} {word} {next}").trim().to_string());
            }
        }
    }
    found
}

/// The part of `text` around the first `pattern`, for a finding.
fn around<'a>(text: &'a str, pattern: &str) -> &'a str {
    let Some(at) = text.find(pattern) else { return text };
    let start = text[..at].char_indices().rev().nth(30).map_or(0, |(i, _)| i);
    let end = text[at..].char_indices().nth(pattern.chars().count() + 30).map_or(text.len(), |(i, _)| at + i);
    &text[start..end]
}

/// At most 120 characters of `text`, for a finding.
fn excerpt(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(120) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(markdown: &str, what: &str) {
        let findings = lint(markdown);
        assert_eq!(findings.len(), 1, "{markdown:?}: {findings:?}");
        assert!(findings[0].contains(what), "{markdown:?}: {findings:?}");
    }

    #[test]
    fn text_that_reads_whole_has_no_finding() {
        let good = "# Report\n\n\
            A sentence with `code  spaced` inside, a [link](raw/x.jsonl) and (a remark).\n\
            - **holds** (p = 0.0040): `stream-tokio` takes 1.00× the best; 6 threads, 2.50 calls per item.\n\
            \n\
            | contestant | median | note |\n\
            |---|---:|---|\n\
            | `a` | 1.00 | — |\n\
            \n\
            ```sh\n\
            just lab chain --quick  --out x ()\n\
            ```\n\
            \n\
            Every contestant issues its first round at once; the exact mark is 512, sampled 480.\n\
            <details><summary>Spread</summary>\n\nIndented:\n\n    two  spaces in code\n";
        // The indented code block is a list continuation's indentation here: only inner doubled spaces count.
        let findings = lint(&good.replace("    two  spaces in code\n", ""));
        assert!(findings.is_empty(), "{findings:?}");
    }

    #[test]
    fn an_empty_placeholder_is_found() {
        one("Per item it takes () ms.\n", "empty placeholder");
        one("Per item it takes ( ) ms.\n", "empty placeholder");
        one("The bound is `` here.\n", "empty code span");
        one("The bound is ` ` here.\n", "empty code span");
        one("The pick: ; the rest follow.\n", "nothing between");
        one("The pick , then the rest.\n", "nothing between");
    }

    #[test]
    fn a_doubled_space_is_found_in_prose_and_in_cells_but_not_in_code() {
        one("Per item it takes  (the claim) ms.\n", "doubled space");
        one("| a | b  c |\n", "doubled space");
        assert!(lint("Run `a  b` now.\n").is_empty());
        assert!(lint("```\na  b\n```\n").is_empty());
        assert!(lint("   - an indented item\n").is_empty());
    }

    #[test]
    fn an_unmatched_bracket_is_found_per_line() {
        one("A remark (never closed.\n", "unmatched `(`");
        one("A remark] out of order [.\n", "unmatched `[`");
        one("Text with a ` stray backtick.\n", "backtick");
        assert!(lint("A (two\nline) remark is two findings.\n").len() == 2);
    }

    #[test]
    fn a_number_where_a_word_belongs_is_found() {
        one("`blocking-crossbeam` 6.00 threads, 0.008 switches per item.\n", "6.00 threads");
        one("The widest miss: exact 512, sampled 0.00.\n", "sampled 0.00");
        one("The ratio is NaN here.\n", "NaN");
        assert!(lint("A ratio of 1.00 and 2.5 calls per item, 16.0 ms.\n").is_empty());
    }

    #[test]
    fn wording_from_outside_the_project_is_found() {
        one("The issue asked for the crate.\n", "the issue asked");
        one("Quoted in issue 12 as the reference.\n", "issue 12");
        one("TODO: say why.\n", "TODO");
        one("A helper wrote this.\n", "helper");
        assert!(lint("Every contestant issues its calls; no issues with that.\n").is_empty());
    }

    #[test]
    fn a_template_that_failed_to_render_is_found() {
        let note = super::super::render_or_note("t", "{{ missing }}", ());
        one(&note, "failed to render");
    }
}
