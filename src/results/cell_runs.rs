//! How a cell keeps its runs without holding them: a compact row per run
//! (what paired statistics and per-seed orderings need: seed, steps
//! completed, steps scored), running totals for every other aggregate, and
//! the full records either in memory (a few runs, read back from a report)
//! or in a spill file written as the runs finish and read back, in order,
//! when a report is written. A million runs cost about a byte each
//! (see [`super::run_rows`]).
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
use serde_json::value::RawValue;

use super::exact_tally::ExactTally;
use super::record::RunResult;
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
            line: Vec::new(),
        };
        Ok((Arc::new(Self { file }), writer))
    }

    /// The records written at bytes `start..end`, in order.
    fn read(&self, start: u64, end: u64) -> impl Iterator<Item = Result<RunResult, SpillError>> {
        self.read_buffered(start, end, 1 << 16)
    }

    /// As [`Spill::read`], through a buffer of `capacity` bytes.
    fn read_buffered(
        &self,
        start: u64,
        end: u64,
        capacity: usize,
    ) -> impl Iterator<Item = Result<RunResult, SpillError>> + '_ {
        self.lines(start, end, capacity, parse_spilled)
    }

    /// The records written at bytes `start..end`, in order, each as the
    /// compact JSON it was written as (checked to be one JSON value).
    fn read_raw(
        &self,
        start: u64,
        end: u64,
    ) -> impl Iterator<Item = Result<Box<RawValue>, SpillError>> + '_ {
        self.lines(start, end, 1 << 16, raw_record)
    }

    /// The lines at bytes `start..end`, each read through `parse`.
    fn lines<T>(
        &self,
        start: u64,
        end: u64,
        capacity: usize,
        parse: fn(&[u8]) -> Result<T, SpillError>,
    ) -> SpilledLines<BufReader<RangeReader<'_>>, T> {
        let reader = BufReader::with_capacity(
            capacity,
            RangeReader {
                file: &self.file,
                at: start,
                end,
            },
        );
        SpilledLines {
            reader,
            line: Vec::new(),
            parse,
        }
    }
}

/// The record of a spilled line (`[COST_BITS,RECORD]`), as written.
fn raw_record(line: &[u8]) -> Result<Box<RawValue>, SpillError> {
    let inner = line
        .strip_suffix(b"\n")
        .unwrap_or(line)
        .strip_prefix(b"[")
        .and_then(|l| l.strip_suffix(b"]"));
    // The cost's bits are a number or null: the record starts after the
    // first comma.
    let record = inner
        .and_then(|l| {
            l.iter()
                .position(|b| *b == b',')
                .and_then(|at| l.get(at + 1..))
        })
        .ok_or_else(|| {
            SpillError::Io(io::Error::new(
                io::ErrorKind::InvalidData,
                "a spilled run record is not [cost, record]",
            ))
        })?;
    let text = std::str::from_utf8(record)
        .map_err(|e| SpillError::Io(io::Error::new(io::ErrorKind::InvalidData, e)))?;
    Ok(RawValue::from_string(text.to_owned())?)
}

/// The records of a span of the spill file, a line each. Each line is
/// read whole and parsed from memory: parsing through a reader goes byte
/// by byte and cost more than running the episodes.
struct SpilledLines<R, T> {
    reader: R,
    line: Vec<u8>,
    /// What a line is read as: a record, or its JSON as written.
    parse: fn(&[u8]) -> Result<T, SpillError>,
}

impl<R: BufRead, T> Iterator for SpilledLines<R, T> {
    type Item = Result<T, SpillError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.line.clear();
        match self.reader.read_until(b'\n', &mut self.line) {
            Ok(0) => None,
            Ok(_) => Some((self.parse)(&self.line)),
            Err(e) => Some(Err(e.into())),
        }
    }
}

fn parse_spilled(line: &[u8]) -> Result<RunResult, SpillError> {
    let SpilledRecord(cost_bits, mut metrics) = serde_json::from_slice(line)?;
    // The cost goes by its bits: a decimal read back may not be the same
    // float.
    metrics.cost = cost_bits.map(f64::from_bits);
    Ok(metrics)
}

/// A record as spilled: the cost's bits, then the record.
#[derive(serde::Deserialize)]
struct SpilledRecord(Option<u64>, RunResult);

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
        self.at += read as u64;
        Ok(read)
    }
}

/// Appends records to a spill file (one JSON line each).
#[derive(Debug)]
pub struct SpillWriter {
    out: BufWriter<File>,
    written: u64,
    line: Vec<u8>,
}

impl SpillWriter {
    /// Appends `record`; returns where it lies (bytes `start..end`).
    pub fn append(&mut self, record: &RunResult) -> Result<(u64, u64), SpillError> {
        self.line.clear();
        serde_json::to_writer(&mut self.line, &(record.cost.map(f64::to_bits), record))?;
        self.line.push(b'\n');
        self.out.write_all(&self.line)?;
        let start = self.written;
        self.written += self.line.len() as u64;
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
            // Copied as written: the spill holds each record as compact
            // JSON, and the report's layout re-indents it
            // (`Formatter::write_raw_fragment`) instead of parsing it into a
            // record and writing that again (most of the cost of writing a
            // large report).
            Records::Spilled { spill, start, end } => {
                for record in spill.read_raw(*start, *end) {
                    let record = record.map_err(serde::ser::Error::custom)?;
                    seq.serialize_element(&*record)?;
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
        // Spilled records are written as they were spilled (compact JSON;
        // the report's layout re-indents them, tested in report::json).
        assert_eq!(
            serde_json::to_string(&second).unwrap(),
            serde_json::to_string(&records[20..]).unwrap()
        );
        assert_eq!(
            serde_json::to_value(&second).unwrap(),
            serde_json::to_value(&records[20..]).unwrap()
        );
        assert_eq!(first.totals().model_errors, 1);
        assert_eq!(first.totals().step_held, [20, 0, 20]);
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
