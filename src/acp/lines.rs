//! The lines of an agent's stdout, cut as its bytes arrive in chunks of
//! any size: each byte is searched for a newline once ([`memchr`] from
//! where the last search stopped), so a line split across many chunks
//! costs its length, not its length times its chunks. Handled lines leave
//! the buffer at once; a partial line past the cap is dropped whole.

/// A line buffer over the chunks heard.
#[derive(Debug, Default)]
pub struct Lines {
    buffer: Vec<u8>,
    /// How far `buffer` is known to hold no newline.
    scanned: usize,
    /// Bytes searched for a newline so far (the linear bound's witness).
    searched: u64,
}

/// What [`Lines::push`] found past the cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overlong;

impl Lines {
    /// Adds `bytes` and hands each whole line (without its newline) to
    /// `each`, in order. A partial line longer than `cap` is dropped and
    /// said ([`Overlong`]).
    pub fn push(
        &mut self,
        bytes: &[u8],
        cap: usize,
        mut each: impl FnMut(&[u8]),
    ) -> Result<(), Overlong> {
        self.buffer.extend_from_slice(bytes);
        let mut start = 0;
        loop {
            let unsearched = self.buffer.get(self.scanned..).unwrap_or_default();
            let found = memchr::memchr(b'\n', unsearched);
            let searched = found.map_or(unsearched.len(), |at| at + 1);
            self.searched += searched as u64;
            let Some(at) = found else { break };
            let end = self.scanned + at;
            self.scanned = end + 1;
            each(self.buffer.get(start..end).unwrap_or_default());
            start = self.scanned;
        }
        self.buffer.drain(..start);
        self.scanned = self.buffer.len();
        if self.buffer.len() > cap {
            self.buffer = Vec::new();
            self.scanned = 0;
            return Err(Overlong);
        }
        Ok(())
    }

    /// Bytes searched for a newline so far: each byte heard once at most.
    pub fn searched(&self) -> u64 {
        self.searched
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(lines: &mut Lines, chunk: &[u8], out: &mut Vec<String>) {
        let pushed = lines.push(chunk, 1 << 20, |line| {
            out.push(String::from_utf8_lossy(line).into_owned())
        });
        assert_eq!(pushed, Ok(()));
    }

    #[test]
    fn a_line_split_across_many_chunks_is_searched_once() {
        // One 64 KiB line in 7-byte chunks, then a short one: a rescan of
        // the buffer at each chunk would search ~300 million bytes.
        let long = "x".repeat(64 << 10);
        let text = format!("{long}\nshort\n");
        let mut lines = Lines::default();
        let mut out = Vec::new();
        for chunk in text.as_bytes().chunks(7) {
            collect(&mut lines, chunk, &mut out);
        }
        assert_eq!(out, [long.as_str(), "short"]);
        assert_eq!(lines.searched(), text.len() as u64);
    }

    #[test]
    fn many_lines_in_one_chunk_and_a_line_over_the_cap() {
        let mut lines = Lines::default();
        let mut out = Vec::new();
        collect(&mut lines, b"a\nb\n\nc", &mut out);
        assert_eq!(out, ["a", "b", ""]);
        collect(&mut lines, b"d\n", &mut out);
        assert_eq!(out.last().map(String::as_str), Some("cd"));
        assert_eq!(lines.searched(), 8);
        assert_eq!(lines.push(&[b'y'; 11], 10, |_| {}), Err(Overlong));
        // The overlong part is gone; what follows reads.
        let mut after = Vec::new();
        collect(&mut lines, b"z\n", &mut after);
        assert_eq!(after, ["z"]);
    }
}
