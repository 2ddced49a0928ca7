//! A request body as it was received: the chunks hyper read off the
//! connection, in order, not gathered into one buffer.
//!
//! Gathering a body copies every byte of it once more (axum's `Bytes`
//! extractor does, whenever the body arrives in more than one read), and an
//! outside agent's body is its whole conversation: the copy grows with the
//! session. [`super::incremental::IncrementalReader`] needs only the bytes a
//! request adds in one buffer; it compares the rest with the previous body
//! chunk by chunk ([`common_prefix`]), so a [`ChunkedBody`] lends the bytes
//! from a point on ([`ChunkedBody::bytes_from`]), copying only those, and is kept
//! as it is (its chunks are shared, not copied) for the next comparison.

use std::borrow::Cow;

use axum::body::Bytes;

/// The chunks of one body, in order (empty chunks are left out).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChunkedBody {
    chunks: Vec<Bytes>,
    len: usize,
}

impl ChunkedBody {
    /// Appends the next chunk received.
    pub fn push(&mut self, chunk: Bytes) {
        if !chunk.is_empty() {
            self.len += chunk.len();
            self.chunks.push(chunk);
        }
    }

    /// The body's length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the body has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The whole body in one buffer (a copy when it came in several chunks).
    pub fn gathered(&self) -> Bytes {
        match self.chunks.as_slice() {
            [] => Bytes::new(),
            [one] => one.clone(),
            _ => Bytes::from(self.bytes_from(0).into_owned()),
        }
    }

    /// The bytes from `start` to the end in one slice: borrowed when they
    /// lie in one chunk, else copied (only those bytes).
    pub fn bytes_from(&self, start: usize) -> Cow<'_, [u8]> {
        let mut skipped = 0;
        let mut rest = self.chunks.iter();
        for chunk in rest.by_ref() {
            if start < skipped + chunk.len() {
                let head = chunk.get(start - skipped..).unwrap_or_default();
                if rest.len() == 0 {
                    return Cow::Borrowed(head);
                }
                let mut joined = Vec::with_capacity(self.len - start);
                joined.extend_from_slice(head);
                for later in rest {
                    joined.extend_from_slice(later);
                }
                return Cow::Owned(joined);
            }
            skipped += chunk.len();
        }
        Cow::Borrowed(&[])
    }
}

impl From<Bytes> for ChunkedBody {
    fn from(bytes: Bytes) -> Self {
        let mut body = Self::default();
        body.push(bytes);
        body
    }
}

/// How many leading bytes `a` and `b` share, whatever their chunks.
pub fn common_prefix(a: &ChunkedBody, b: &ChunkedBody) -> usize {
    let (mut a_chunks, mut b_chunks) = (a.chunks.iter(), b.chunks.iter());
    let (mut x, mut y): (&[u8], &[u8]) = (&[], &[]);
    let mut shared = 0;
    loop {
        if x.is_empty() {
            match a_chunks.next() {
                Some(next) => x = next,
                None => return shared,
            }
        }
        if y.is_empty() {
            match b_chunks.next() {
                Some(next) => y = next,
                None => return shared,
            }
        }
        let n = x.len().min(y.len());
        let (same, rest_x, rest_y) = split_same(x, y, n);
        shared += same;
        if same < n {
            return shared;
        }
        (x, y) = (rest_x, rest_y);
    }
}

/// How many of the first `n` bytes of `x` and `y` are the same, and what
/// follows those `n` bytes in each.
fn split_same<'a, 'b>(x: &'a [u8], y: &'b [u8], n: usize) -> (usize, &'a [u8], &'b [u8]) {
    let (x_head, x_rest) = x.split_at(n.min(x.len()));
    let (y_head, y_rest) = y.split_at(n.min(y.len()));
    (same_bytes(x_head, y_head), x_rest, y_rest)
}

/// How many leading bytes `x` and `y` share: one `memcmp` per large block
/// (the call costs nothing next to the comparison), then the differing
/// block in small blocks, then byte by byte, so a difference costs no
/// more than a few hundred bytes compared one at a time.
fn same_bytes(x: &[u8], y: &[u8]) -> usize {
    const LARGE: usize = 16 * 1024;
    const SMALL: usize = 256;
    let mut at = same_blocks(x, y, LARGE);
    at += same_blocks(
        x.get(at..).unwrap_or_default(),
        y.get(at..).unwrap_or_default(),
        SMALL,
    );
    let (x, y) = (
        x.get(at..).unwrap_or_default(),
        y.get(at..).unwrap_or_default(),
    );
    at + x.iter().zip(y).take_while(|(p, q)| p == q).count()
}

/// The bytes in the leading blocks of `size` that `x` and `y` share whole.
fn same_blocks(x: &[u8], y: &[u8], size: usize) -> usize {
    let same = x
        .chunks_exact(size)
        .zip(y.chunks_exact(size))
        .take_while(|(p, q)| p == q)
        .count();
    same * size
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `bytes` cut at `cuts` (positions, any order, out of range ignored).
    fn chunked(bytes: &[u8], cuts: &[usize]) -> ChunkedBody {
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
        cuts.push(bytes.len());
        cuts.sort_unstable();
        let mut body = ChunkedBody::default();
        let mut start = 0;
        for cut in cuts {
            body.push(Bytes::copy_from_slice(&bytes[start..cut]));
            start = cut;
        }
        body
    }

    fn plain_prefix(a: &[u8], b: &[u8]) -> usize {
        a.iter().zip(b).take_while(|(x, y)| x == y).count()
    }

    #[test]
    fn bytes_are_compared_a_block_at_a_time_and_to_the_byte() {
        let a: Vec<u8> = (0..40_000u32).map(|i| (i % 251) as u8).collect();
        for cut in [
            0, 1, 255, 256, 16_383, 16_384, 16_385, 16_640, 16_641, 32_769, 39_999,
        ] {
            let mut b = a.clone();
            b[cut] ^= 1;
            let (a, b) = (chunked(&a, &[]), chunked(&b, &[7, 20_000]));
            assert_eq!(common_prefix(&a, &b), cut);
        }
        assert_eq!(
            common_prefix(&chunked(&a, &[]), &chunked(&a[..700], &[3])),
            700
        );
    }

    proptest! {
        /// However two bodies are cut into chunks, the bytes they share and
        /// the bytes from any point on are those of the bodies whole.
        #[test]
        fn chunks_read_as_the_whole_body(
            a in prop::collection::vec(0u8..3, 0..200),
            keep in any::<usize>(),
            extra in prop::collection::vec(0u8..3, 0..40),
            a_cuts in prop::collection::vec(any::<usize>(), 0..6),
            b_cuts in prop::collection::vec(any::<usize>(), 0..6),
            start in any::<usize>(),
        ) {
            let mut b = a[..keep % (a.len() + 1)].to_vec();
            b.extend(extra);
            let (x, y) = (chunked(&a, &a_cuts), chunked(&b, &b_cuts));
            prop_assert_eq!(common_prefix(&x, &y), plain_prefix(&a, &b));
            prop_assert_eq!(x.len(), a.len());
            prop_assert_eq!(&x.gathered()[..], &a[..]);
            let start = start % (a.len() + 1);
            prop_assert_eq!(&x.bytes_from(start)[..], &a[start..]);
        }
    }
}
