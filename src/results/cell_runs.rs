//! How a cell keeps its runs without holding them: a compact row per run
//! (what paired statistics and per-seed orderings need: seed, steps
//! completed, steps scored), running totals for every other aggregate, and
//! the full records either in memory (a few runs, read back from a report)
//! or in a spill file written as the runs finish and read back, in order,
//! when a report is written. A million runs cost about a byte each
//! (see [`super::run_rows`]).
//!
//! Each record is spilled laid out as the JSON report prints it
//! ([`super::json_layout::RECORD_LEVEL`] deep), so writing the report
//! copies its bytes ([`super::json_layout::Spliced`]): a record is
//! serialized once, when its run finishes, never parsed to be written.
//!
//! The spill file is anonymous (it has no name in the temporary folder: the
//! system removes it when the last handle closes, also when the process
//! dies), so nothing is left behind whatever happens.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

use serde::Serialize;
use serde::ser::SerializeSeq;

use super::exact_tally::ExactTally;
use super::json_layout::Spliced;
use super::record::RunResult;
use super::record_json::write_record;
pub use super::run_rows::RunRow;
use super::run_rows::{RowIter, RunRows};

/// Sums over a cell's runs, added run by run in seed order (so a sum of
/// floats is the one a sum over the listed runs gives).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunTotals {
    /// For each metric of the table a cell keeps as a sum (a count), that
    /// sum, at the metric's place in the table (see
    /// [`super::run_counts::add_counts`]); other places stay 0.
    pub counts: Vec<u64>,
    /// A real model's usage, summed over the runs that state it.
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub cost: Option<f64>,
    /// Per scored step (in step order), the runs whose check held, over
    /// the `step_recorded` runs that recorded their checks.
    pub step_held: Vec<u64>,
    pub step_recorded: u64,
    /// Runs a real model failed in for good, and the first of them (its
    /// seed and message).
    pub model_errors: u64,
    pub first_model_error: Option<(u64, String)>,
    /// The first run and the exact measures the runs do not agree on.
    pub exact: ExactTally,
    /// Runs in which the agent planned (see [`RunResult::planned`]).
    pub planned_runs: u64,
    /// The most parts any run has (0: every run was a single task), so a
    /// report without a parts table does not read the records back to
    /// find that out.
    pub max_parts: usize,
}

impl RunTotals {
    /// Adds one run (runs are added in seed order).
    pub fn add(&mut self, r: &RunResult) {
        super::run_counts::add_counts(&mut self.counts, r);
        if let Some(n) = r.input_tokens {
            self.input_tokens = Some(self.input_tokens.unwrap_or(0).saturating_add(n));
        }
        if let Some(n) = r.output_tokens {
            self.output_tokens = Some(self.output_tokens.unwrap_or(0).saturating_add(n));
        }
        if let Some(usd) = r.cost {
            // The first term as `Iterator::sum` starts it, then left to right.
            self.cost = Some(match self.cost {
                None => std::iter::once(usd).sum::<f64>(),
                Some(sum) => sum + usd,
            });
        }
        if !r.step_checks.is_empty() {
            self.step_recorded += 1;
            if self.step_held.len() < r.step_checks.len() {
                self.step_held.resize(r.step_checks.len(), 0);
            }
            for (held, check) in self.step_held.iter_mut().zip(r.step_checks.bytes()) {
                if check == b'1' {
                    *held += 1;
                }
            }
        }
        if let Some(message) = &r.model_error {
            self.model_errors += 1;
            if self.first_model_error.is_none() {
                self.first_model_error = Some((r.seed, message.clone()));
            }
        }
        self.exact.add(r);
        if r.planned() {
            self.planned_runs += 1;
        }
        self.max_parts = self.max_parts.max(r.parts.len());
    }
}

/// Why the spilled records could not be written or read back.
#[derive(Debug, thiserror::Error)]
pub enum SpillError {
    #[error("cannot keep the run records in a temporary file: {0}")]
    Io(#[from] io::Error),
    #[error("cannot read a run record back from the temporary file: {0}")]
    Record(#[from] serde_json::Error),
    #[error("the temporary file of run records is damaged: {0}")]
    Damaged(&'static str),
}

/// The anonymous file the records of an evaluation are spilled to.
#[derive(Debug)]
pub struct Spill {
    file: File,
}

impl Spill {
    /// A spill file in the system's temporary folder, and its writer.
    pub fn create() -> Result<(Arc<Self>, SpillWriter), SpillError> {
        Self::with_file(tempfile::tempfile()?)
    }

    /// A spill file in `dir` (for tests: it never has a name there).
    pub fn create_in(dir: &Path) -> Result<(Arc<Self>, SpillWriter), SpillError> {
        Self::with_file(tempfile::tempfile_in(dir)?)
    }

    fn with_file(file: File) -> Result<(Arc<Self>, SpillWriter), SpillError> {
        let writer = SpillWriter {
            out: BufWriter::with_capacity(1 << 16, file.try_clone()?),
            written: 0,
            header: Vec::new(),
            record: Vec::new(),
        };
        Ok((Arc::new(Self { file }), writer))
    }

    /// The records written at bytes `start..end`, in order.
    fn read(&self, start: u64, end: u64) -> SpilledRecords<BufReader<RangeReader<'_>>> {
        self.read_buffered(start, end, 1 << 16)
    }

    /// As [`Spill::read`], through a buffer of `capacity` bytes.
    fn read_buffered(
        &self,
        start: u64,
        end: u64,
        capacity: usize,
    ) -> SpilledRecords<BufReader<RangeReader<'_>>> {
        SpilledRecords(self.entries(start, end, capacity))
    }

    /// The entries at bytes `start..end`, one at a time.
    fn entries(
        &self,
        start: u64,
        end: u64,
        capacity: usize,
    ) -> Entries<BufReader<RangeReader<'_>>> {
        let reader = BufReader::with_capacity(
            capacity,
            RangeReader {
                file: &self.file,
                at: start,
                end,
            },
        );
        Entries {
            reader,
            entry: Vec::new(),
        }
    }
}

/// The byte that ends each spilled entry (ASCII's record separator, as in
/// RFC 7464's JSON text sequences). It never occurs in a record: serde_json
/// escapes every control character in a string, and the layout adds only
/// line breaks and spaces.
const END: u8 = 0x1e;

/// A spilled entry: `[COST_BITS,LENGTH]`, the record (`LENGTH` bytes, laid
/// out as the report prints it), then [`END`]. The cost goes by its bits:
/// a decimal read back may not be the same float.
#[derive(Debug, Clone, Copy)]
struct Entry<'a> {
    cost_bits: Option<u64>,
    record: &'a [u8],
}

impl<'a> Entry<'a> {
    /// The entry `bytes` hold (with its end byte), checked to be framed as
    /// written: a damaged file is an error, never a record cut or merged
    /// with the next.
    fn parse(bytes: &'a [u8]) -> Result<Self, SpillError> {
        let body = bytes
            .strip_suffix(&[END])
            .ok_or(SpillError::Damaged("a run record is cut short"))?;
        let not_framed = SpillError::Damaged("a run record does not start with [cost, length]");
        let close = memchr::memchr(b']', body).ok_or(not_framed)?;
        let (header, record) = body.split_at(close);
        let record = record.get(1..).unwrap_or_default();
        let (cost_bits, length) =
            header
                .strip_prefix(b"[")
                .and_then(parse_header)
                .ok_or(SpillError::Damaged(
                    "a run record does not start with [cost, length]",
                ))?;
        if record.len() != length {
            return Err(SpillError::Damaged(
                "a run record is not as long as its header says",
            ));
        }
        Ok(Self { cost_bits, record })
    }

    /// The record read back.
    fn run_result(self) -> Result<RunResult, SpillError> {
        let mut record: RunResult = serde_json::from_slice(self.record)?;
        record.cost = self.cost_bits.map(f64::from_bits);
        Ok(record)
    }

    /// The record's JSON, laid out as the report prints it (checked to be
    /// text and one object: it is copied into the report unparsed).
    fn laid_out(self) -> Result<&'a str, SpillError> {
        let text = std::str::from_utf8(self.record)
            .map_err(|_| SpillError::Damaged("a run record is not UTF-8"))?;
        if text.starts_with("{\n") && text.ends_with('}') {
            Ok(text)
        } else {
            Err(SpillError::Damaged("a run record is not a laid-out object"))
        }
    }
}

/// `COST_BITS,LENGTH` (`null` for no cost) as [`SpillWriter::append`]
/// writes it.
fn parse_header(header: &[u8]) -> Option<(Option<u64>, usize)> {
    let comma = memchr::memchr(b',', header)?;
    let (cost, length) = (header.get(..comma)?, header.get(comma + 1..)?);
    let number = |digits: &[u8]| std::str::from_utf8(digits).ok()?.parse::<u64>().ok();
    let cost_bits = match cost {
        b"null" => None,
        digits => Some(number(digits)?),
    };
    Some((cost_bits, usize::try_from(number(length)?).ok()?))
}

/// The entries of a span of the spill file, one at a time, each read whole
/// into one buffer: parsing through a reader goes byte by byte and cost
/// more than running the episodes.
struct Entries<R> {
    reader: R,
    entry: Vec<u8>,
}

impl<R: BufRead> Entries<R> {
    /// What `read` makes of the next entry, `None` after the last. An
    /// entry that lies whole in the reader's buffer is read there; one
    /// that does not is copied together first.
    fn next_with<T>(&mut self, read: impl FnOnce(Entry<'_>) -> T) -> Result<Option<T>, SpillError> {
        let buffered = self.reader.fill_buf()?;
        if let Some(end) = memchr::memchr(END, buffered) {
            let entry = Entry::parse(buffered.get(..=end).unwrap_or_default())?;
            let made = read(entry);
            self.reader.consume(end + 1);
            return Ok(Some(made));
        }
        self.entry.clear();
        if self.reader.read_until(END, &mut self.entry)? == 0 {
            return Ok(None);
        }
        Entry::parse(&self.entry).map(|entry| Some(read(entry)))
    }
}

/// The records of a span of the spill file, read back one at a time.
struct SpilledRecords<R>(Entries<R>);

impl<R: BufRead> Iterator for SpilledRecords<R> {
    type Item = Result<RunResult, SpillError>;
    fn next(&mut self) -> Option<Self::Item> {
        match self.0.next_with(|entry| entry.run_result()) {
            Ok(record) => record,
            Err(e) => Some(Err(e)),
        }
    }
}

/// Reads bytes `at..end` of a file without moving its cursor.
struct RangeReader<'a> {
    file: &'a File,
    at: u64,
    end: u64,
}

impl Read for RangeReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = usize::try_from(self.end.saturating_sub(self.at)).unwrap_or(usize::MAX);
        let want = buf.len().min(left);
        let Some(target) = buf.get_mut(..want) else {
            return Ok(0);
        };
        if target.is_empty() {
            return Ok(0);
        }
        let read = self.file.read_at(target, self.at)?;
        if read == 0 {
            // A span this process wrote is there whole: a shorter file
            // lost records, which must not read as fewer runs.
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the temporary file of run records ends before its records do",
            ));
        }
        self.at += read as u64;
        Ok(read)
    }
}

/// Appends records to a spill file (an [`Entry`] each).
#[derive(Debug)]
pub struct SpillWriter {
    out: BufWriter<File>,
    written: u64,
    /// The entry being written: its header, then its record.
    header: Vec<u8>,
    record: Vec<u8>,
}

impl SpillWriter {
    /// Appends `record`, laid out as the report prints it; returns where it
    /// lies (bytes `start..end`).
    pub fn append(&mut self, record: &RunResult) -> Result<(u64, u64), SpillError> {
        self.record.clear();
        write_record(&mut self.record, record)?;
        self.header.clear();
        let cost_bits = record.cost.map(f64::to_bits);
        serde_json::to_writer(&mut self.header, &(cost_bits, self.record.len()))?;
        self.out.write_all(&self.header)?;
        self.out.write_all(&self.record)?;
        self.out.write_all(&[END])?;
        let start = self.written;
        self.written += (self.header.len() + self.record.len() + 1) as u64;
        Ok((start, self.written))
    }

    /// Writes out what is buffered: the records can be read back.
    pub fn finish(mut self) -> Result<(), SpillError> {
        self.flush()
    }

    /// Writes out what is buffered, to go on appending after the records
    /// so far are read back.
    pub fn flush(&mut self) -> Result<(), SpillError> {
        self.out.flush()?;
        Ok(())
    }
}

/// Where a cell's full records are.
#[derive(Debug, Clone)]
enum Records {
    Held(Vec<RunResult>),
    /// Bytes `start..end` of the spill file, in seed order.
    Spilled {
        spill: Arc<Spill>,
        start: u64,
        end: u64,
    },
    /// `count` records taken from `parts` in turn, starting with part
    /// `first` (the runs of a cell split over shards `1/N` .. `N/N`: each
    /// shard holds every N-th run).
    Interleaved {
        spill: Arc<Spill>,
        parts: Vec<RecordPart>,
        first: usize,
        count: usize,
    },
}

/// Some records of a cell, in seed order: a span of the spill file, or
/// held in memory.
#[derive(Debug, Clone)]
pub enum RecordPart {
    /// Bytes `start..end` of the spill file (`0..0`: no record).
    Spilled {
        start: u64,
        end: u64,
    },
    Held(Vec<RunResult>),
}

impl RecordPart {
    /// Every record of the part, in memory.
    pub fn read_all(&self, spill: &Spill) -> Result<Vec<RunResult>, SpillError> {
        self.read(spill, 1 << 16).collect()
    }

    fn read<'a>(
        &'a self,
        spill: &'a Spill,
        capacity: usize,
    ) -> Box<dyn Iterator<Item = Result<RunResult, SpillError>> + 'a> {
        match self {
            Self::Spilled { start, end } => Box::new(spill.read_buffered(*start, *end, capacity)),
            Self::Held(records) => Box::new(records.iter().cloned().map(Ok)),
        }
    }
}

/// Reads `count` records from parts in turn (see [`Records::Interleaved`]);
/// a part that runs out before its turn is an error, not a shorter list.
struct InterleavedRecords<'a> {
    readers: Vec<Box<dyn Iterator<Item = Result<RunResult, SpillError>> + 'a>>,
    next: usize,
    left: usize,
}

impl Iterator for InterleavedRecords<'_> {
    type Item = Result<RunResult, SpillError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let turns = self.readers.len();
        let part = self.next;
        self.next = (part + 1) % turns.max(1);
        let record = self.readers.get_mut(part).and_then(Iterator::next);
        Some(record.unwrap_or_else(|| {
            self.left = 0;
            Err(SpillError::Io(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "a part of the interleaved records ended early",
            )))
        }))
    }
}

fn interleaved<'a>(
    spill: &'a Spill,
    parts: &'a [RecordPart],
    first: usize,
    count: usize,
) -> InterleavedRecords<'a> {
    // Many parts are read at once: a small buffer each.
    let capacity = if parts.len() > 4 { 1 << 13 } else { 1 << 15 };
    InterleavedRecords {
        readers: parts.iter().map(|p| p.read(spill, capacity)).collect(),
        next: if parts.is_empty() {
            0
        } else {
            first % parts.len()
        },
        left: count,
    }
}

/// A cell's runs: a row each, totals, and the records (serialized as the
/// report's `results` list).
#[derive(Debug, Clone)]
pub struct Runs {
    rows: RunRows,
    totals: RunTotals,
    records: Records,
}

impl Runs {
    /// Runs whose records are held in memory.
    pub fn held(records: Vec<RunResult>) -> Self {
        let mut totals = RunTotals::default();
        for r in &records {
            totals.add(r);
        }
        Self {
            rows: records.iter().map(RunRow::of).collect(),
            totals,
            records: Records::Held(records),
        }
    }

    /// Runs whose records are `count` records taken from `parts` in turn,
    /// starting with part `first` (each part in seed order; see
    /// `Records::Interleaved`). The records are read once, here, for the
    /// rows and totals (summed in the merged order, as a run sums them).
    pub fn interleaved(
        spill: &Arc<Spill>,
        parts: Vec<RecordPart>,
        first: usize,
        count: usize,
    ) -> Result<Self, SpillError> {
        let mut rows = RunRows::default();
        let mut totals = RunTotals::default();
        for record in interleaved(spill, &parts, first, count) {
            let record = record?;
            rows.push(RunRow::of(&record));
            totals.add(&record);
        }
        Ok(Self {
            rows,
            totals,
            records: Records::Interleaved {
                spill: Arc::clone(spill),
                parts,
                first,
                count,
            },
        })
    }

    /// Rows and totals only, without the records: for aggregates (rates,
    /// intervals, means) of a report read back, never for writing a report
    /// (its `results` would be empty).
    pub fn summary_only(rows: RunRows, totals: RunTotals) -> Self {
        Self {
            rows,
            totals,
            records: Records::Held(Vec::new()),
        }
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Each run's row, in seed order.
    pub fn rows(&self) -> &RunRows {
        &self.rows
    }

    /// Each run's row, in seed order.
    pub fn iter(&self) -> RowIter<'_> {
        self.rows.iter()
    }

    pub fn totals(&self) -> &RunTotals {
        &self.totals
    }

    /// The full records, in seed order (read back from the spill file:
    /// one at a time, never all at once).
    pub fn records(&self) -> Box<dyn Iterator<Item = Result<RunResult, SpillError>> + '_> {
        match &self.records {
            Records::Held(records) => Box::new(records.iter().cloned().map(Ok)),
            Records::Spilled { spill, start, end } => Box::new(spill.read(*start, *end)),
            Records::Interleaved {
                spill,
                parts,
                first,
                count,
            } => Box::new(interleaved(spill, parts, *first, *count)),
        }
    }
}

impl<'a> IntoIterator for &'a Runs {
    type Item = RunRow;
    type IntoIter = RowIter<'a>;
    fn into_iter(self) -> Self::IntoIter {
        self.rows.iter()
    }
}

/// Equal rows, totals and records (records read back when spilled).
impl PartialEq for Runs {
    fn eq(&self, other: &Self) -> bool {
        self.rows == other.rows
            && self.totals == other.totals
            && self.records().zip(other.records()).all(|pair| match pair {
                (Ok(a), Ok(b)) => a == b,
                _ => false,
            })
    }
}

/// The report's `results` list: every record, in seed order, copied from
/// where it is kept.
impl Serialize for Runs {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.len()))?;
        match &self.records {
            Records::Held(records) => {
                for r in records {
                    seq.serialize_element(r)?;
                }
            }
            // Copied as written: the spill holds each record laid out as
            // the report prints it, instead of parsing it into a record and
            // writing that again (most of the cost of writing a large
            // report).
            Records::Spilled { spill, start, end } => {
                let mut entries = spill.entries(*start, *end, 1 << 16);
                let mut splice = |entry: Entry<'_>| {
                    let record = entry.laid_out().map_err(serde::ser::Error::custom)?;
                    seq.serialize_element(&Spliced(record))
                };
                while let Some(spliced) = entries
                    .next_with(&mut splice)
                    .map_err(serde::ser::Error::custom)?
                {
                    spliced?;
                }
            }
            Records::Interleaved { .. } => {
                for r in self.records() {
                    let r = r.map_err(serde::ser::Error::custom)?;
                    seq.serialize_element(&r)?;
                }
            }
        }
        seq.end()
    }
}

/// Collects a cell's runs as they finish, in seed order: their rows and
/// totals here, their records appended to the spill file (one cell's
/// records lie together: runs are handed over cell by cell).
#[derive(Debug, Default)]
pub struct RunsBuilder {
    rows: RunRows,
    totals: RunTotals,
    span: Option<(u64, u64)>,
}

impl RunsBuilder {
    /// A builder for about `runs` runs (the rows grow as they need: most
    /// take no room per run).
    pub fn with_capacity(_runs: usize) -> Self {
        Self::default()
    }

    pub fn push(&mut self, record: &RunResult, spill: &mut SpillWriter) -> Result<(), SpillError> {
        let (start, end) = spill.append(record)?;
        self.span = Some(match self.span {
            None => (start, end),
            Some((first, _)) => (first, end),
        });
        self.rows.push(RunRow::of(record));
        self.totals.add(record);
        Ok(())
    }

    /// The runs, their records in `spill` (whose writer must be finished
    /// before they are read; none when no run was pushed anywhere).
    pub fn finish(self, spill: Option<&Arc<Spill>>) -> Runs {
        let records = match (spill, self.span) {
            (Some(spill), Some((start, end))) => Records::Spilled {
                spill: Arc::clone(spill),
                start,
                end,
            },
            _ => Records::Held(Vec::new()),
        };
        Runs {
            rows: self.rows,
            totals: self.totals,
            records,
        }
    }
}

/// Pairs each run of `a` with the run of `b` that has the same seed, in
/// the order of `a` (the first run of a seed in `b` wins). Cells that ran
/// the same seeds pair in one pass without an index (or any memory).
pub fn pair_by_seed<'a>(
    a: &'a Runs,
    b: &'a Runs,
) -> Box<dyn Iterator<Item = (RunRow, RunRow)> + 'a> {
    let same_seeds = a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.seed == y.seed);
    let distinct = b.iter().zip(b.iter().skip(1)).all(|(x, y)| x.seed < y.seed);
    if same_seeds && distinct {
        return Box::new(a.iter().zip(b));
    }
    let mut by_seed: std::collections::HashMap<u64, RunRow> =
        std::collections::HashMap::with_capacity(b.len());
    for rb in b.iter().rev() {
        by_seed.insert(rb.seed, rb);
    }
    Box::new(
        a.iter()
            .filter_map(move |ra| by_seed.get(&ra.seed).map(|rb| (ra, *rb))),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::json_layout::{RECORD_LEVEL, write_at_level};

    /// `value` in the report's layout, as a document of its own.
    fn laid_out(value: &impl Serialize) -> String {
        let mut bytes = Vec::new();
        write_at_level(&mut bytes, value, 0).unwrap();
        String::from_utf8(bytes).unwrap()
    }

    fn record(seed: u64, steps_completed: usize, cost: Option<f64>) -> RunResult {
        RunResult {
            turns: 7,
            steps_completed,
            steps_total: 3,
            reminders_at: vec![2, 5],
            rejected_todo_updates: 1,
            todo_calls: 2,
            input_tokens: cost.map(|_| 10),
            cost,
            model_error: (seed == 2).then(|| "boom \"quoted\" ü\n".to_string()),
            step_checks: "101".into(),
            ..RunResult::zeroed(seed)
        }
    }

    #[test]
    fn totals_know_the_most_parts_of_any_run() {
        let part = crate::results::record::PartMetrics::default();
        let mut runs: Vec<RunResult> = (1..=3).map(|seed| record(seed, 1, None)).collect();
        assert_eq!(Runs::held(runs.clone()).totals().max_parts, 0);
        runs[1].parts = vec![part.clone(); 3];
        runs[2].parts = vec![part; 2];
        let held = Runs::held(runs.clone());
        let most = held
            .records()
            .map(|r| r.unwrap().parts.len())
            .max()
            .unwrap();
        assert_eq!((held.totals().max_parts, most), (3, 3));
        let dir = tempfile::tempdir().unwrap();
        let (spill, mut writer) = Spill::create_in(dir.path()).unwrap();
        let mut builder = RunsBuilder::default();
        for r in &runs {
            builder.push(r, &mut writer).unwrap();
        }
        writer.finish().unwrap();
        assert_eq!(builder.finish(Some(&spill)).totals().max_parts, 3);
    }

    #[test]
    fn spilled_runs_read_back_as_written_and_leave_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let records: Vec<RunResult> = (0..50)
            .map(|seed| {
                record(
                    seed,
                    (seed % 4).min(3) as usize,
                    Some(0.1 + seed as f64 / 3.0),
                )
            })
            .collect();
        let (spill, mut writer) = Spill::create_in(dir.path()).unwrap();
        let (mut first, mut second) = (RunsBuilder::default(), RunsBuilder::default());
        for r in &records[..20] {
            first.push(r, &mut writer).unwrap();
        }
        for r in &records[20..] {
            second.push(r, &mut writer).unwrap();
        }
        writer.finish().unwrap();
        // The file has no name: nothing in its folder, now or later.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        let (first, second) = (first.finish(Some(&spill)), second.finish(Some(&spill)));
        drop(spill);
        let back: Vec<RunResult> = first
            .records()
            .chain(second.records())
            .map(Result::unwrap)
            .collect();
        assert_eq!(
            back, records,
            "costs keep their bits, strings their escapes"
        );
        assert_eq!(first, Runs::held(records[..20].to_vec()));
        // Spilled records are copied as they were spilled, laid out as the
        // report prints them, and re-indented here, where they lie less
        // deep (the report itself is tested in report::json).
        assert_eq!(laid_out(&second), laid_out(&&records[20..]));
        assert_eq!(
            serde_json::to_value(&second).unwrap(),
            serde_json::to_value(&records[20..]).unwrap()
        );
        assert_eq!(first.totals().model_errors, 1);
        assert_eq!(first.totals().step_held, [20, 0, 20]);
    }

    /// The spill file of `records` (one span), and its bytes.
    fn spilled(records: &[RunResult]) -> (Runs, Vec<u8>) {
        let (spill, mut writer) = Spill::create().unwrap();
        let mut builder = RunsBuilder::default();
        for r in records {
            builder.push(r, &mut writer).unwrap();
        }
        writer.finish().unwrap();
        let (start, end) = builder.span.unwrap();
        let mut bytes = Vec::new();
        RangeReader {
            file: &spill.file,
            at: start,
            end,
        }
        .read_to_end(&mut bytes)
        .unwrap();
        (builder.finish(Some(&spill)), bytes)
    }

    /// The runs of `spilled` read from `bytes` instead.
    fn with_bytes(runs: &Runs, bytes: &[u8]) -> Runs {
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(bytes).unwrap();
        let Records::Spilled { start, end, .. } = runs.records else {
            panic!("not spilled")
        };
        Runs {
            records: Records::Spilled {
                spill: Arc::new(Spill { file }),
                start,
                end,
            },
            ..runs.clone()
        }
    }

    /// What reading `runs` back and writing them into a report give:
    /// each is an error or not, never a panic.
    fn read_and_write(runs: &Runs) -> (Result<Vec<RunResult>, String>, Result<String, String>) {
        let read = runs.records().collect::<Result<Vec<_>, _>>();
        let mut report = Vec::new();
        let written = write_at_level(&mut report, runs, RECORD_LEVEL - 1);
        (
            read.map_err(|e| e.to_string()),
            written
                .map(|()| String::from_utf8(report).unwrap())
                .map_err(|e| e.to_string()),
        )
    }

    #[test]
    fn a_damaged_spill_file_is_an_error_never_a_panic() {
        let records: Vec<RunResult> = (0..3).map(|seed| record(seed, 2, Some(0.5))).collect();
        let (runs, bytes) = spilled(&records);
        let (read, written) = read_and_write(&with_bytes(&runs, &bytes));
        assert_eq!(read.unwrap(), records);
        assert!(written.unwrap().contains("\"seed\": 2"));
        // Cut anywhere: the runs are not there whole, and it says so.
        for cut in 0..bytes.len() {
            let (read, written) = read_and_write(&with_bytes(&runs, &bytes[..cut]));
            assert!(read.is_err() && written.is_err(), "cut at {cut}");
        }
        // The end byte, a header's length or its framing damaged.
        let first_end = bytes.iter().position(|b| *b == END).unwrap();
        let damages: [(usize, u8, &str); 5] = [
            (bytes.len() - 1, b'x', "cut short"),
            (first_end, b'x', "as long"),
            (
                bytes.iter().position(|b| *b == b',').unwrap() + 1,
                b'0',
                "as long",
            ),
            (0, b'{', "does not start"),
            (first_end + 1, b' ', "does not start"),
        ];
        for (at, byte, says) in damages {
            let mut damaged = bytes.clone();
            damaged[at] = byte;
            let (read, written) = read_and_write(&with_bytes(&runs, &damaged));
            for message in [read.unwrap_err(), written.unwrap_err()] {
                assert!(
                    message.contains("damaged") && message.contains(says),
                    "{message}"
                );
            }
        }
    }

    /// Entries are read in the reader's buffer when they lie whole in it,
    /// and copied together when they cross its end: the same records
    /// whatever the buffer's size.
    #[test]
    fn entries_read_alike_whatever_the_buffer() {
        let records: Vec<RunResult> = (0..5).map(|seed| record(seed, 3, Some(1.5))).collect();
        let (runs, _) = spilled(&records);
        let Records::Spilled { spill, start, end } = &runs.records else {
            panic!("not spilled")
        };
        for capacity in [1, 7, 200, 1_000, 1 << 16] {
            let back: Vec<RunResult> = spill
                .read_buffered(*start, *end, capacity)
                .map(Result::unwrap)
                .collect();
            assert_eq!(back, records, "a buffer of {capacity} bytes");
        }
    }

    proptest::proptest! {
        /// Any byte of the file changed: no panic (a change inside a
        /// record's text may go unseen, as a valid record).
        #[test]
        fn any_damaged_byte_reads_without_a_panic(at in 0usize..2_000, byte in 0u8..=255) {
            let records: Vec<RunResult> = (0..2).map(|seed| record(seed, 1, None)).collect();
            let (runs, mut bytes) = spilled(&records);
            let at = at % bytes.len();
            bytes[at] = byte;
            let _ = read_and_write(&with_bytes(&runs, &bytes));
        }
    }

    #[test]
    fn pairs_follow_seeds_whatever_the_order() {
        let a = Runs::held(vec![
            record(1, 3, None),
            record(2, 1, None),
            record(3, 0, None),
        ]);
        let b = Runs::held(vec![record(3, 3, None), record(1, 2, None)]);
        let pairs: Vec<(u64, u32, u32)> = pair_by_seed(&a, &b)
            .map(|(x, y)| (x.seed, x.steps_completed, y.steps_completed))
            .collect();
        assert_eq!(pairs, [(1, 3, 2), (3, 0, 3)]);
        let same: Vec<u64> = pair_by_seed(&a, &a).map(|(x, _)| x.seed).collect();
        assert_eq!(same, [1, 2, 3]);
    }
}
