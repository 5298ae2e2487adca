//! The one markdown table builder every report (and `lab compare --format markdown`) uses: pipes, aligned
//! columns, escaped cells.

use serde_json::{json, Value};

/// Widest line, in characters, a table is padded to align its columns; a wider table is written unpadded.
const MAX_PADDED_WIDTH: usize = 120;

/// How a column's cells line up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Text: left.
    Left,
    /// Numbers: right.
    Right,
}

/// The header words `templates/headers.md` gives for `context` (its `table` names the table), one per column.
pub(crate) fn headers(context: serde_json::Value) -> Vec<String> {
    template!("headers.md", context).lines().map(str::to_string).collect()
}

/// The columns of table `id`: its header words from `templates/headers.md`, with these alignments.
pub(crate) fn columns(id: &str, align: &[Align]) -> Vec<(String, Align)> {
    headers(json!({ "table": id })).into_iter().zip(align.iter().copied()).collect()
}

/// Table `id` ([`columns`]) with these alignments, holding `rows`, rendered.
pub(crate) fn table_of<R: AsRef<[String]>>(id: &str, align: &[Align], rows: impl IntoIterator<Item = R>) -> String {
    let mut table = Table::new(&columns(id, align));
    for row in rows {
        table.row(row.as_ref());
    }
    table.render()
}

/// One table cell that holds words, from `templates/cells.md` (the context's `cell` names the kind of cell).
pub(crate) fn cell(context: serde_json::Value) -> String {
    template!("cells.md", context)
}

/// A markdown table, built row by row and rendered with columns padded to a common width.
#[derive(Debug, Clone)]
pub struct Table {
    headers: Vec<String>,
    align: Vec<Align>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column headers and alignments.
    pub fn new<S: AsRef<str>>(columns: &[(S, Align)]) -> Self {
        Table {
            headers: columns.iter().map(|(h, _)| escape(h.as_ref())).collect(),
            align: columns.iter().map(|(_, a)| *a).collect(),
            rows: Vec::new(),
        }
    }

    /// Append one row; missing cells are empty and extra cells are dropped.
    pub fn row<S: AsRef<str>>(&mut self, cells: &[S]) -> &mut Self {
        let mut row: Vec<String> = cells.iter().take(self.headers.len()).map(|c| escape(c.as_ref())).collect();
        row.resize(self.headers.len(), String::new());
        self.rows.push(row);
        self
    }

    /// The table as markdown, ending with a newline.
    pub fn render(&self) -> String {
        let padded: Vec<usize> = (0..self.headers.len())
            .map(|i| self.rows.iter().map(|r| width(&r[i])).chain([width(&self.headers[i]), 3]).max().unwrap_or(3))
            .collect();
        // Aligned columns help a reader of the markdown source only while a row fits a terminal; past that every
        // row wraps anyway, and the padding would only add bytes (the widest description padding every row).
        let line_width = padded.iter().map(|w| w + 3).sum::<usize>() + 1;
        let widths: Vec<usize> = if line_width <= MAX_PADDED_WIDTH { padded } else { vec![0; padded.len()] };
        let mut out = String::new();
        self.line(&mut out, &self.headers, &widths);
        let rule: Vec<String> = widths
            .iter()
            .zip(&self.align)
            .map(|(w, a)| match a {
                Align::Left => "-".repeat((*w).max(3)),
                Align::Right => format!("{}:", "-".repeat((*w).max(3) - 1)),
            })
            .collect();
        self.line(&mut out, &rule, &widths);
        for row in &self.rows {
            self.line(&mut out, row, &widths);
        }
        out
    }

    fn line(&self, out: &mut String, cells: &[String], widths: &[usize]) {
        out.push('|');
        for ((cell, w), a) in cells.iter().zip(widths).zip(&self.align) {
            let pad = " ".repeat(w.saturating_sub(width(cell)));
            match a {
                Align::Left => out.push_str(&format!(" {cell}{pad} |")),
                Align::Right => out.push_str(&format!(" {pad}{cell} |")),
            }
        }
        out.push('\n');
    }
}

/// Display width, counted in characters (deterministic, good enough for monospace alignment).
fn width(cell: &str) -> usize {
    cell.chars().count()
}

/// A cell must stay on one line and must not end the cell early.
fn escape(cell: &str) -> String {
    cell.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// One cell of the index's tables (its answers and its family matrix), rendered from `templates/index-cells.md`
/// (the context's `kind` chooses the cell).
pub(crate) fn index_cell(context: Value) -> String {
    template!("index-cells.md", context)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_wider_than_a_terminal_is_not_padded() {
        let long = "a description ".repeat(10);
        let mut t = Table::new(&[("name", Align::Left), ("what it is", Align::Left), ("ms", Align::Right)]);
        t.row(&["a", long.trim(), "1.5"]).row(&["bb", "short", "12"]);
        let text = t.render();
        assert!(text.contains("| bb | short | 12 |"), "{text}");
        assert!(text.contains("| --- | --- | --: |"), "{text}");
    }

    #[test]
    fn columns_are_padded_and_numbers_right_aligned() {
        let mut t = Table::new(&[("name", Align::Left), ("ms", Align::Right)]);
        t.row(&["a", "1"]).row(&["longer", "12.3"]);
        assert_eq!(t.render(), "| name   |   ms |\n| ------ | ---: |\n| a      |    1 |\n| longer | 12.3 |\n");
    }

    #[test]
    fn pipes_and_newlines_in_cells_are_escaped() {
        let mut t = Table::new(&[("x", Align::Left)]);
        t.row(&["a|b\nc"]);
        assert!(t.render().contains("| a\\|b c |"));
    }

    #[test]
    fn short_rows_are_filled() {
        let mut t = Table::new(&[("a", Align::Left), ("b", Align::Left)]);
        t.row(&["x"]);
        assert_eq!(t.render().lines().nth(2), Some("| x   |     |"));
    }
}
