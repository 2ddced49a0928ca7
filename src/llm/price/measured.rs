//! Figures an agent measured and wrote into a tool result (a wall time, a
//! process group id), each read as one fixed text so the price depends on
//! neither the clock nor the machine.

/// How an agent writes the time a tool call took: `Wall time: ` then
/// seconds as a decimal figure then ` seconds` (Codex 0.169.0:
/// `exec_command` with four decimals, `apply_patch` with at most one, so
/// the length varies with the load).
pub(super) const WALL_TIME: (&str, &str) = ("Wall time: ", " seconds");

/// A searcher for [`WALL_TIME`]'s head, built once.
pub(super) static WALL_TIME_FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(WALL_TIME.0));

/// What a measured wall time counts as.
pub const WALL_TIME_COUNTED: &str = "Wall time: 0 seconds";

/// `text` with every measured wall time written as [`WALL_TIME_COUNTED`];
/// `None` when it holds none.
pub(super) fn without_wall_times(text: &str) -> Option<String> {
    let (head, tail) = WALL_TIME;
    WALL_TIME_FINDER.find(text.as_bytes())?;
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut found = false;
    while let Some(at) = rest.find(head) {
        let after = &rest[at + head.len()..];
        let figure = after
            .bytes()
            .take_while(|b| b.is_ascii_digit() || *b == b'.')
            .count();
        out.push_str(&rest[..at]);
        if figure > 0 && after[figure..].starts_with(tail) {
            out.push_str(WALL_TIME_COUNTED);
            rest = &after[figure + tail.len()..];
            found = true;
        } else {
            out.push_str(head);
            rest = after;
        }
    }
    out.push_str(rest);
    found.then_some(out)
}

/// How Gemini CLI and Qwen Code write the process group of a command they
/// ran: `Process Group PGID: ` then the id.
pub(super) const PGID: &str = "Process Group PGID: ";

/// A searcher for [`PGID`], built once.
pub(super) static PGID_FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(PGID));

/// What a process group id counts as.
pub const PGID_COUNTED: &str = "Process Group PGID: 0";

/// `text` with every process group id written as [`PGID_COUNTED`]; `None`
/// when it holds none.
pub(super) fn without_pgids(text: &str) -> Option<String> {
    PGID_FINDER.find(text.as_bytes())?;
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(PGID) {
        let after = &rest[at + PGID.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        out.push_str(&rest[..at]);
        out.push_str(if digits > 0 { PGID_COUNTED } else { PGID });
        rest = &after[digits..];
    }
    out.push_str(rest);
    Some(out)
}
