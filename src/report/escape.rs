//! Text from scenarios, models and agents, made safe for each report
//! format: one place that knows what each format lets through.
//!
//! - Markdown ([`markdown_text`], [`markdown_code`]): a CI job summary is
//!   rendered as GitHub-flavoured Markdown with inline HTML, so a raw `|`
//!   or line break breaks a table, `<!--` hides the rest of the summary,
//!   and tags render. Plain text is escaped character by character; code
//!   spans cannot hold backticks or line breaks, so those are replaced.
//! - XML ([`xml_chars`]): XML 1.0 forbids most control characters even as
//!   character references, and a browser refuses an SVG that holds one,
//!   so they are dropped (entities are the SVG writer's job).
//!
//! - HTML ([`html`]): `&`, `<`, `>` and both quotes become entities, for
//!   content and attribute values alike; a control character is shown as
//!   `\u{..}`, so a reader of the page sees that one was there.
//!
//! Every other format drops control characters (terminal escapes, C1 controls).
//!
//! Every report, whatever its format, drops the bidirectional controls
//! ([`is_bidi_control`]): the embeddings, overrides and isolates (U+202A to
//! U+202E, U+2066 to U+2069) and the marks (U+200E, U+200F, U+061C). They
//! are invisible and only reorder what a reader sees (`\u{202e}` makes
//! `1.0 < 0.5` read backwards, the Trojan Source trick); no name, label or
//! transcript needs them to be read. Each renderer also passes its whole
//! output through [`drop_bidi`], so no field it forgot can carry one.

use std::borrow::Cow;

/// Whether `c` is a bidirectional control: an embedding, override or
/// isolate (U+202A to U+202E, U+2066 to U+2069) or a mark (LRM U+200E,
/// RLM U+200F, ALM U+061C). Every report drops them.
pub fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}'
    )
}

/// `text` without its bidirectional controls; borrowed when it has none.
/// The last step of every renderer.
pub fn drop_bidi(text: &str) -> Cow<'_, str> {
    if text.chars().any(is_bidi_control) {
        Cow::Owned(text.chars().filter(|&c| !is_bidi_control(c)).collect())
    } else {
        Cow::Borrowed(text)
    }
}

/// [`drop_bidi`] for an owned string (a rendered report), copying only
/// when there is something to drop.
pub fn drop_bidi_owned(text: String) -> String {
    match drop_bidi(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(dropped) => dropped,
    }
}

/// Whether `c` is shown as nothing in every report: controls (but tab and
/// line breaks, which each format handles itself) and bidirectional
/// controls.
fn invisible(c: char) -> bool {
    (c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
        || is_bidi_control(c)
        || matches!(c, '\u{fffe}' | '\u{ffff}')
}

/// `text` without what no report shows (`invisible`); line breaks and
/// tabs are kept for the format to handle. Text without any comes back
/// as it is.
pub fn visible(text: &str) -> Cow<'_, str> {
    if text.chars().any(invisible) {
        Cow::Owned(text.chars().filter(|c| !invisible(*c)).collect())
    } else {
        Cow::Borrowed(text)
    }
}

/// `text` as HTML content or a quoted attribute value, without
/// bidirectional controls.
pub fn html(text: &str) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if is_bidi_control(c) => {}
            // Terminal escapes and other controls have no place in a page.
            c if c.is_control() && c != '\n' && c != '\t' => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// `text` without the characters XML 1.0 forbids (and the other
/// `invisible` ones); borrowed when there are none.
pub fn xml_chars(text: &str) -> Cow<'_, str> {
    if text.chars().any(invisible) {
        Cow::Owned(text.chars().filter(|&c| !invisible(c)).collect())
    } else {
        Cow::Borrowed(text)
    }
}

/// `text` as plain Markdown text on one line (a table cell, a heading, a
/// list item): line breaks become spaces, controls go, HTML's `<`, `>`
/// and `&` become entities, and Markdown's punctuation is backslashed so
/// nothing turns into emphasis, code, a link or a table border (nor, at
/// the start, a heading or a list).
pub fn markdown_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // A block marker at the start of a list item (`- x`, `# x`) would nest
    // a list or make a heading; a lone `-` (an empty table cell) is text.
    if text.starts_with(['#', '-', '+'])
        && text
            .get(1..)
            .is_some_and(|rest| rest.starts_with([' ', '\t', '#']))
    {
        out.push('\\');
    }
    for c in text.chars() {
        match c {
            '\n' | '\r' | '\t' => out.push(' '),
            c if invisible(c) => {}
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '~' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// `text` for a Markdown code span (`` `...` ``): no backtick (it would
/// end the span; `'` instead), no line break (a blank line would end the
/// paragraph and let what follows render), no controls. Inside the span
/// HTML is shown as written.
pub fn markdown_code(text: &str) -> String {
    text.chars()
        .filter(|&c| !invisible(c))
        .map(|c| match c {
            '`' => '\'',
            '\n' | '\r' | '\t' => ' ',
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_text_cannot_break_out() {
        let hostile = "a|b\n# h <!-- x --> <b>t</b> \u{1b}[31m *e* [l](u) \u{202e}r";
        let escaped = markdown_text(hostile);
        assert!(!escaped.contains('\n'));
        assert!(!escaped.contains('<'));
        assert!(!escaped.contains('\u{1b}'));
        assert!(!escaped.contains('\u{202e}'));
        // Every `|` is escaped, so a table row keeps its cells.
        assert_eq!(escaped.matches('|').count(), escaped.matches("\\|").count());
        assert!(
            escaped.starts_with("a\\|b # h &lt;!-- x --&gt;"),
            "{escaped}"
        );
        assert_eq!(markdown_text("- x"), "\\- x");
        assert_eq!(markdown_text("-"), "-");
    }

    #[test]
    fn markdown_code_keeps_one_span_on_one_line() {
        assert_eq!(markdown_code("a`b\n\nc\u{7}"), "a'b  c");
        assert_eq!(markdown_code("<!--"), "<!--");
    }

    #[test]
    fn xml_chars_drops_what_xml_forbids() {
        assert_eq!(xml_chars("a\u{0}b\u{7}c\u{1b}d\u{ffff}"), "abcd");
        assert!(matches!(xml_chars("plain <&> text\n"), Cow::Borrowed(_)));
    }
}
