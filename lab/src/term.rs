//! What the lab needs to know about the terminal it prints to: its width and whether stdout takes colour, and
//! fitting text into a width (by display columns, not bytes).

use std::io::IsTerminal;

use unicode_width::UnicodeWidthChar;

/// `values` separated by commas, as a flag takes them: `1,2,16`.
pub(crate) fn comma_list<T: ToString>(values: &[T]) -> String {
    values.iter().map(T::to_string).collect::<Vec<_>>().join(",")
}

/// The width to fit stdout to: `COLUMNS` when it is set to a number, else the terminal's width when stdout is
/// one, else `fallback`.
pub(crate) fn stdout_width(fallback: usize) -> usize {
    if let Some(columns) = std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse::<usize>().ok()) {
        if columns > 0 {
            return columns;
        }
    }
    if std::io::stdout().is_terminal() {
        if let Some((terminal_size::Width(w), _)) = terminal_size::terminal_size() {
            return usize::from(w);
        }
    }
    fallback
}

/// The width progress lines on standard error must fit: `COLUMNS` when it is set to a number, else the
/// terminal's width when standard error is one; `None` when it goes to a file or a pipe (lines are left whole).
pub(crate) fn stderr_width() -> Option<usize> {
    if let Some(columns) = std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse::<usize>().ok()) {
        if columns > 0 {
            return Some(columns);
        }
    }
    let stderr = std::io::stderr();
    if stderr.is_terminal() {
        if let Some((terminal_size::Width(w), _)) = terminal_size::terminal_size_of(&stderr) {
            return Some(usize::from(w));
        }
    }
    None
}

/// Whether to colour stdout: anstream's choice, which is yes only on a terminal and honours `NO_COLOR`,
/// `CLICOLOR` and `CLICOLOR_FORCE`.
pub(crate) fn stdout_colour() -> bool {
    anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never
}

/// Display columns `text` takes.
pub(crate) fn columns(text: &str) -> usize {
    text.chars().map(|c| c.width().unwrap_or(0)).sum()
}

/// `text` cut to at most `width` columns, ending in `…` when anything was cut.
pub(crate) fn truncate(text: &str, width: usize) -> String {
    if columns(text) <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > width - 1 {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}

/// `text` padded with spaces to `width` columns (longer text is left as it is).
pub(crate) fn pad(text: &str, width: usize) -> String {
    let mut out = text.to_string();
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(columns(text))));
    out
}

/// `text` right-aligned in `width` columns.
pub(crate) fn pad_left(text: &str, width: usize) -> String {
    let mut out: String = std::iter::repeat_n(' ', width.saturating_sub(columns(text))).collect();
    out.push_str(text);
    out
}

/// `text` broken between words into lines of at most `width` columns (a word longer than that gets a line of
/// its own).
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && columns(&line) + 1 + columns(word) > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_counts_columns_and_marks_the_cut() {
        assert_eq!(truncate("stream-buffered", 20), "stream-buffered");
        assert_eq!(truncate("stream-buffered", 8), "stream-…");
        assert_eq!(columns(&truncate("µs–µs–µs–µs", 5)), 5);
        assert_eq!(truncate("abc", 0), "");
    }

    #[test]
    fn padding_counts_columns() {
        assert_eq!(pad("µs", 4), "µs  ");
        assert_eq!(pad_left("1–2", 5), "  1–2");
        assert_eq!(pad("toolong", 3), "toolong");
    }

    #[test]
    fn wrapping_breaks_between_words() {
        assert_eq!(wrap("one two three four", 9), ["one two", "three", "four"]);
        assert_eq!(wrap("averyveryverylongword x", 5), ["averyveryverylongword", "x"]);
        assert_eq!(wrap("", 5), [""]);
    }
}
