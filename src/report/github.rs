//! GitHub Actions workflow commands: each [`Finding`] as an `::error`
//! annotation, which the runner shows on the line that failed in the
//! pull request and on the run's page.
//!
//! The runner reads `::error file=F,line=N,title=T::MESSAGE` off the job's
//! output. Its escaping is its own: in the message `%`, `\r` and `\n`
//! become `%25`, `%0D` and `%0A`; in a property (`file`, `line`, `title`)
//! `:` and `,` become `%3A` and `%2C` as well, since they separate the
//! properties. Control and bidirectional characters are dropped first, as
//! in every report.

use std::fmt::Write;

use super::escape::visible;
use super::findings::Finding;

/// The annotation lines for `findings`, one a line, in order.
pub fn annotations(findings: &[Finding]) -> String {
    let mut out = String::new();
    for finding in findings {
        let mut properties = Vec::new();
        if let Some(path) = &finding.path {
            properties.push(format!("file={}", property(path)));
        }
        if let Some(line) = finding.line {
            properties.push(format!("line={line}"));
        }
        properties.push(format!("title={}", property(&finding.title)));
        let _ = writeln!(
            out,
            "::error {}::{}",
            properties.join(","),
            data(&finding.message)
        );
    }
    out
}

/// A message as the runner reads it back (controls and bidi controls
/// dropped, separators as spaces).
pub fn data(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in visible(text).chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            // Line and paragraph separators: some readers break lines at
            // them, so foreign text after one would start a line there.
            '\u{2028}' | '\u{2029}' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A property value as the runner reads it back.
pub fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::findings::Severity;

    fn finding(path: Option<&str>, line: Option<u64>, title: &str, message: &str) -> Finding {
        Finding {
            path: path.map(str::to_string),
            line,
            title: title.into(),
            message: message.into(),
            check: "expectation",
            severity: Severity::Failure,
        }
    }

    #[test]
    fn an_annotation_names_file_line_and_title() {
        let found = [finding(
            Some("scenarios/a.yaml"),
            Some(12),
            "agent-eval: a",
            "expected x >= 1, measured 0.5",
        )];
        assert_eq!(
            annotations(&found),
            "::error file=scenarios/a.yaml,line=12,title=agent-eval%3A a::expected x >= 1, measured 0.5\n"
        );
    }

    #[test]
    fn the_runners_separators_and_line_breaks_are_escaped() {
        let found = [finding(
            Some("dir,1/a:b.yaml"),
            None,
            "t, 100%",
            "50% done\r\nnext: line\u{202e}",
        )];
        assert_eq!(
            annotations(&found),
            "::error file=dir%2C1/a%3Ab.yaml,title=t%2C 100%25::50%25 done%0D%0Anext: line\n"
        );
        assert_eq!(
            annotations(&[finding(None, None, "bad", "x")]),
            "::error title=bad::x\n"
        );
    }
}
