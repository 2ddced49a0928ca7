//! What paired statistics need of each run ([`RunRow`]: seed, steps
//! completed, steps scored), and how a cell keeps them for a hundred
//! thousand runs in about a byte each ([`RunRows`]): each field is a
//! column stored as compactly as its values allow. A cell's seeds are
//! usually consecutive and its steps scored one number, so those columns
//! are two numbers whatever the runs; steps completed fit a byte.

use super::record::RunResult;

/// What paired statistics need of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunRow {
    pub seed: u64,
    pub steps_completed: u32,
    pub steps_total: u32,
}

impl RunRow {
    pub fn of(r: &RunResult) -> Self {
        Self {
            seed: r.seed,
            steps_completed: u32::try_from(r.steps_completed).unwrap_or(u32::MAX),
            steps_total: u32::try_from(r.steps_total).unwrap_or(u32::MAX),
        }
    }

    /// steps_completed / steps_total; 1 for a scenario with no scored step
    /// (as [`RunResult::completion`]).
    pub fn completion(&self) -> f64 {
        if self.steps_total == 0 {
            1.0
        } else {
            f64::from(self.steps_completed) / f64::from(self.steps_total)
        }
    }

    pub fn fully_completed(&self) -> bool {
        self.steps_completed == self.steps_total
    }
}

/// A cell's rows, in the order added, a column per field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunRows {
    seeds: Column,
    completed: Column,
    total: Column,
}

impl RunRows {
    pub fn push(&mut self, row: RunRow) {
        self.seeds.push(row.seed);
        self.completed.push(u64::from(row.steps_completed));
        self.total.push(u64::from(row.steps_total));
    }

    pub fn len(&self) -> usize {
        self.seeds.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The row at `index`.
    pub fn get(&self, index: usize) -> Option<RunRow> {
        Some(RunRow {
            seed: self.seeds.get(index)?,
            steps_completed: u32::try_from(self.completed.get(index)?).unwrap_or(u32::MAX),
            steps_total: u32::try_from(self.total.get(index)?).unwrap_or(u32::MAX),
        })
    }

    /// Every row, in the order added.
    pub fn iter(&self) -> RowIter<'_> {
        RowIter {
            rows: self,
            front: 0,
            back: self.len(),
        }
    }
}

impl FromIterator<RunRow> for RunRows {
    fn from_iter<I: IntoIterator<Item = RunRow>>(rows: I) -> Self {
        let mut out = Self::default();
        for row in rows {
            out.push(row);
        }
        out
    }
}

impl<'a> IntoIterator for &'a RunRows {
    type Item = RunRow;
    type IntoIter = RowIter<'a>;
    fn into_iter(self) -> RowIter<'a> {
        self.iter()
    }
}

/// The rows of a [`RunRows`], by value.
#[derive(Debug, Clone)]
pub struct RowIter<'a> {
    rows: &'a RunRows,
    front: usize,
    back: usize,
}

impl Iterator for RowIter<'_> {
    type Item = RunRow;
    fn next(&mut self) -> Option<RunRow> {
        if self.front >= self.back {
            return None;
        }
        self.front += 1;
        self.rows.get(self.front - 1)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.back.saturating_sub(self.front);
        (left, Some(left))
    }
}

impl DoubleEndedIterator for RowIter<'_> {
    fn next_back(&mut self) -> Option<RunRow> {
        if self.front >= self.back {
            return None;
        }
        self.back -= 1;
        self.rows.get(self.back)
    }
}

impl ExactSizeIterator for RowIter<'_> {}

/// A column of numbers in the narrowest form that holds them.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Column {
    /// `start + i * step` (wrapping) for `i < len`: consecutive seeds, a
    /// constant.
    Linear {
        start: u64,
        step: u64,
        len: usize,
    },
    Bytes(Vec<u8>),
    Words(Vec<u32>),
    Wide(Vec<u64>),
}

impl Default for Column {
    fn default() -> Self {
        Self::Linear {
            start: 0,
            step: 0,
            len: 0,
        }
    }
}

impl Column {
    fn len(&self) -> usize {
        match self {
            Self::Linear { len, .. } => *len,
            Self::Bytes(v) => v.len(),
            Self::Words(v) => v.len(),
            Self::Wide(v) => v.len(),
        }
    }

    fn get(&self, index: usize) -> Option<u64> {
        match self {
            Self::Linear { start, step, len } => {
                (index < *len).then(|| start.wrapping_add(step.wrapping_mul(index as u64)))
            }
            Self::Bytes(v) => v.get(index).copied().map(u64::from),
            Self::Words(v) => v.get(index).copied().map(u64::from),
            Self::Wide(v) => v.get(index).copied(),
        }
    }

    fn push(&mut self, value: u64) {
        match self {
            Self::Linear { start, step, len } => {
                if *len == 0 {
                    *start = value;
                } else if *len == 1 {
                    *step = value.wrapping_sub(*start);
                } else if start.wrapping_add(step.wrapping_mul(*len as u64)) != value {
                    return self.widen(value);
                }
                *len += 1;
            }
            Self::Bytes(v) => match u8::try_from(value) {
                Ok(b) => v.push(b),
                Err(_) => self.widen(value),
            },
            Self::Words(v) => match u32::try_from(value) {
                Ok(w) => v.push(w),
                Err(_) => self.widen(value),
            },
            Self::Wide(v) => v.push(value),
        }
    }

    /// Rewrites the column in the narrowest vector that holds its values
    /// and `value`, then adds `value`.
    fn widen(&mut self, value: u64) {
        let values: Vec<u64> = (0..self.len())
            .filter_map(|i| self.get(i))
            .chain(std::iter::once(value))
            .collect();
        let max = values.iter().copied().max().unwrap_or(0);
        *self = if max <= u64::from(u8::MAX) {
            Self::Bytes(
                values
                    .iter()
                    .filter_map(|&v| u8::try_from(v).ok())
                    .collect(),
            )
        } else if max <= u64::from(u32::MAX) {
            Self::Words(
                values
                    .iter()
                    .filter_map(|&v| u32::try_from(v).ok())
                    .collect(),
            )
        } else {
            Self::Wide(values)
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn row(seed: u64, steps_completed: u32, steps_total: u32) -> RunRow {
        RunRow {
            seed,
            steps_completed,
            steps_total,
        }
    }

    #[test]
    fn consecutive_seeds_and_one_step_count_take_no_room_per_run() {
        let rows: RunRows = (0..100_000)
            .map(|s| row(s + 7, (s % 4) as u32, 3))
            .collect();
        assert!(matches!(rows.seeds, Column::Linear { .. }));
        assert!(matches!(rows.total, Column::Linear { step: 0, .. }));
        assert!(matches!(rows.completed, Column::Bytes(_)));
        assert_eq!(rows.get(99_999), Some(row(100_006, 3, 3)));
        assert_eq!(rows.get(100_000), None);
    }

    proptest! {
        #[test]
        fn rows_read_back_as_pushed(
            rows in proptest::collection::vec(
                (
                    prop_oneof![0..4u64, any::<u64>()],
                    prop_oneof![0..300u32, any::<u32>()],
                    prop_oneof![Just(3u32), any::<u32>()],
                ),
                0..40,
            ),
            consecutive in any::<bool>(),
        ) {
            let pushed: Vec<RunRow> = rows
                .iter()
                .enumerate()
                .map(|(i, &(seed, done, total))| {
                    row(if consecutive { i as u64 } else { seed }, done, total)
                })
                .collect();
            let stored: RunRows = pushed.iter().copied().collect();
            prop_assert_eq!(stored.len(), pushed.len());
            prop_assert_eq!(stored.iter().collect::<Vec<_>>(), pushed.clone());
            let backwards: Vec<RunRow> = stored.iter().rev().collect();
            prop_assert_eq!(backwards, pushed.iter().rev().copied().collect::<Vec<_>>());
        }
    }
}
