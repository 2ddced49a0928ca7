//! Fitting terminal output within [`WIDTH`] columns (counted in
//! characters, not bytes): a table wider than that is split into several
//! tables that each repeat its key columns (a cell's settings), and a
//! sentence longer than that is wrapped at a comma, colon or semicolon
//! outside brackets. Output that already fits is returned as it was, so
//! narrow tables look exactly as before. Only the terminal is fitted; the
//! JSON, Markdown and HTML reports carry every figure unchanged.

use tabled::builder::Builder;
use tabled::settings::Style;

/// The widest line the terminal output is fitted within.
pub const WIDTH: usize = 120;

/// Characters a rounded table adds per column (a border and a space each
/// side), and once for the closing border.
const PER_COLUMN: usize = 3;

/// `rows` (the header first) as rounded tables within [`WIDTH`] columns:
/// one table when it fits, else the first `keys` columns repeated in each
/// table and the other columns packed in order, as many per table as fit
/// (at least one, so a column wider than the screen still shows).
pub fn tables(rows: &[Vec<String>], keys: usize) -> String {
    let widths = column_widths(rows);
    let total: usize = widths.iter().map(|w| w + PER_COLUMN).sum::<usize>() + 1;
    if total <= WIDTH || widths.len() <= keys {
        return table(rows, &(0..widths.len()).collect::<Vec<_>>());
    }
    let key_width: usize = widths
        .iter()
        .take(keys)
        .map(|w| w + PER_COLUMN)
        .sum::<usize>()
        + 1;
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    let mut used = key_width;
    for (index, width) in widths.iter().enumerate().skip(keys) {
        if !current.is_empty() && used + width + PER_COLUMN > WIDTH {
            groups.push(std::mem::take(&mut current));
            used = key_width;
        }
        current.push(index);
        used += width + PER_COLUMN;
    }
    groups.push(current);
    groups
        .iter()
        .map(|group| {
            let columns: Vec<usize> = (0..keys).chain(group.iter().copied()).collect();
            table(rows, &columns)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Each column's width: its widest line of text.
fn column_widths(rows: &[Vec<String>]) -> Vec<usize> {
    let mut widths: Vec<usize> = Vec::new();
    for row in rows {
        for (index, text) in row.iter().enumerate() {
            let width = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
            match widths.get_mut(index) {
                Some(w) => *w = (*w).max(width),
                None => widths.push(width),
            }
        }
    }
    widths
}

/// The `columns` of `rows` as one rounded table, with its newline.
fn table(rows: &[Vec<String>], columns: &[usize]) -> String {
    let mut builder = Builder::default();
    for row in rows {
        builder.push_record(
            columns
                .iter()
                .map(|&index| row.get(index).cloned().unwrap_or_default()),
        );
    }
    let mut table = builder.build();
    table.with(Style::rounded());
    let mut text = table.to_string();
    text.push('\n');
    text
}

/// `text` with every line longer than [`WIDTH`] (a table's lines aside,
/// which [`tables`] fits) wrapped: continued lines are indented five
/// columns deeper than the line they continue.
pub fn lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, newline) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        if body.chars().count() <= WIDTH || body.starts_with(['│', '╭', '├', '╰']) {
            out.push_str(line);
            continue;
        }
        let indent = body.len() - body.trim_start_matches(' ').len();
        let continued = " ".repeat(indent + 5);
        let mut rest = body;
        let mut lead = "";
        loop {
            let room = WIDTH.saturating_sub(lead.chars().count());
            match break_at(rest, room) {
                Some(at) if rest.chars().count() > room => {
                    let (head, tail) = rest.split_at(at);
                    out.push_str(lead);
                    out.push_str(head.trim_end());
                    out.push('\n');
                    rest = tail.trim_start();
                    lead = &continued;
                }
                _ => {
                    out.push_str(lead);
                    out.push_str(rest);
                    break;
                }
            }
        }
        out.push_str(newline);
    }
    out
}

/// Where to break `text` so that its first part keeps within `room`
/// characters: after the last `, `, `: ` or `; ` outside brackets that
/// fits, else after the last space that fits (a byte index; `None` when
/// nothing fits).
fn break_at(text: &str, room: usize) -> Option<usize> {
    let (mut depth, mut outside, mut space) = (0usize, None, None);
    let mut previous = ' ';
    for (count, (index, c)) in text.char_indices().enumerate() {
        if count > room {
            break;
        }
        if c == ' ' && count > 0 {
            space = Some(index);
            if depth == 0 && matches!(previous, ',' | ':' | ';') {
                outside = Some(index);
            }
        }
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        previous = c;
    }
    outside.or(space)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn width(text: &str) -> usize {
        text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
    }

    #[test]
    fn a_table_that_fits_is_one_table() {
        let rows = vec![
            vec!["dialect".to_string(), "completion".to_string()],
            vec!["s03".to_string(), "90%".to_string()],
        ];
        let text = tables(&rows, 1);
        assert_eq!(text.matches('╭').count(), 1, "{text}");
    }

    #[test]
    fn a_wide_table_is_split_repeating_its_key_columns() {
        let header: Vec<String> = std::iter::once("dialect".to_string())
            .chain((0..12).map(|i| format!("metric number {i}")))
            .collect();
        let row: Vec<String> = std::iter::once("claude-code-tasks".to_string())
            .chain((0..12).map(|i| format!("{i}.0")))
            .collect();
        let text = tables(&[header, row], 1);
        assert!(width(&text) <= WIDTH, "{text}");
        assert!(text.matches('╭').count() >= 2, "{text}");
        assert_eq!(
            text.matches("claude-code-tasks").count(),
            text.matches('╭').count(),
            "{text}"
        );
        for i in 0..12 {
            assert_eq!(text.matches(&format!("metric number {i} ")).count(), 1);
        }
    }

    #[test]
    fn a_long_sentence_is_wrapped_outside_brackets() {
        let line = format!(
            "  todo tool (dialect claude-code-tasks, reminder planning-state): completion +52.0 pts [+41.3, +61.7], \
             26 better / 1 worse of 30 pairs, sign test p<0.001; full completion 19/0 discordant pairs, McNemar p<0.001\n{}\n",
            "x".repeat(10)
        );
        let text = lines(&line);
        assert!(width(&text) <= WIDTH, "{text}");
        assert!(text.contains("[+41.3, +61.7],\n       26 better"), "{text}");
        assert!(text.ends_with("\nxxxxxxxxxx\n"), "{text}");
        // Only spaces are ever replaced: the words are the same.
        let words = |t: &str| t.split_whitespace().map(String::from).collect::<Vec<_>>();
        assert_eq!(words(&text), words(&line));
        // A short line is left as it was.
        assert_eq!(lines("  ok   short\n"), "  ok   short\n");
    }
}
