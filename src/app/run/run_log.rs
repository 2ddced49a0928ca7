//! `run --log-dir`: the run log, a reporter that writes every run's
//! transcript as one JSON line, one `.jsonl` file per scenario, in run
//! order. Runs finish on worker threads in any order; [`InOrder`] holds a
//! record back until every earlier run's is out.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::Value;

use super::reporters::Reporter;
use crate::app::AppError;
use crate::eval::EvalEvent;
use crate::report::log;
use crate::scenario::Scenario;

/// Items that arrive tagged with their run's position, handed out in
/// position order: an item waits until every earlier position has come
/// (a position may come with no item: the run left nothing here).
pub(super) struct InOrder<T> {
    next: usize,
    pending: BTreeMap<usize, Option<T>>,
}

impl<T> Default for InOrder<T> {
    fn default() -> Self {
        Self {
            next: 0,
            pending: BTreeMap::new(),
        }
    }
}

impl<T> InOrder<T> {
    /// Takes run `position`'s item; returns the items now due, in order.
    pub fn push(&mut self, position: usize, item: Option<T>) -> Vec<T> {
        self.pending.insert(position, item);
        self.take(false)
    }

    /// Every item still held, in position order (at the end, when some
    /// runs never came).
    pub fn rest(&mut self) -> Vec<T> {
        self.take(true)
    }

    fn take(&mut self, all: bool) -> Vec<T> {
        let mut due = Vec::new();
        while let Some(entry) = self.pending.first_entry() {
            if !all && *entry.key() != self.next {
                break;
            }
            let (position, item) = entry.remove_entry();
            self.next = position + 1;
            due.extend(item);
        }
        due
    }
}

/// The JSON line of a finished run, for the scenario it belongs to.
pub(super) fn line_of(scenarios: &[Scenario], event: &EvalEvent<'_>) -> Option<(usize, String)> {
    let EvalEvent::RunFinished {
        unit,
        settings,
        record,
        ..
    } = event
    else {
        return None;
    };
    let scenario = scenarios.get(unit.scenario)?;
    Some((
        unit.scenario,
        log::line(&log::record(scenario, settings, record)),
    ))
}

/// The run log of one invocation.
pub(super) struct RunLog<'a> {
    scenarios: &'a [Scenario],
    dir: PathBuf,
    state: Mutex<LogState>,
}

struct LogState {
    /// (scenario index, JSON line), held as text: far smaller than a parsed
    /// document while runs finish out of order.
    order: InOrder<(usize, String)>,
    /// One writer per log file (scenarios whose names map to the same file
    /// share it).
    files: BTreeMap<String, BufWriter<File>>,
    error: Option<AppError>,
}

fn write_error(path: &Path) -> impl FnOnce(std::io::Error) -> AppError + '_ {
    move |source| AppError::Write {
        path: path.to_path_buf(),
        source,
    }
}

impl<'a> RunLog<'a> {
    /// Creates `dir` and one empty log file per scenario.
    pub fn open(scenarios: &'a [Scenario], dir: &Path) -> Result<Self, AppError> {
        std::fs::create_dir_all(dir).map_err(write_error(dir))?;
        let mut files = BTreeMap::new();
        for scenario in scenarios {
            let name = log::file_name(&scenario.name);
            if files.contains_key(&name) {
                continue;
            }
            let path = dir.join(&name);
            let file = File::create(&path).map_err(write_error(&path))?;
            files.insert(name, BufWriter::new(file));
        }
        Ok(Self {
            scenarios,
            dir: dir.to_path_buf(),
            state: Mutex::new(LogState {
                order: InOrder::default(),
                files,
                error: None,
            }),
        })
    }

    /// Appends lines to their scenarios' files; keeps the first error.
    fn write_lines(&self, state: &mut LogState, lines: Vec<(usize, String)>) {
        for (scenario, line) in lines {
            let Some(s) = self.scenarios.get(scenario) else {
                continue;
            };
            let name = log::file_name(&s.name);
            if let Some(file) = state.files.get_mut(&name)
                && let Err(source) = file.write_all(line.as_bytes())
                && state.error.is_none()
            {
                state.error = Some(AppError::Write {
                    path: self.dir.join(&name),
                    source,
                });
            }
        }
    }
}

impl Reporter for RunLog<'_> {
    fn on_event(&self, event: &EvalEvent<'_>) {
        let EvalEvent::RunFinished { position, .. } = event else {
            return;
        };
        let line = line_of(self.scenarios, event);
        let Ok(mut state) = self.state.lock() else {
            return;
        };
        let due = state.order.push(*position, line);
        self.write_lines(&mut state, due);
    }

    /// Writes what is still held and flushes every file.
    fn runs_done(&mut self) -> Result<(), AppError> {
        let mut state = std::mem::replace(
            self.state
                .get_mut()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
            LogState {
                order: InOrder::default(),
                files: BTreeMap::new(),
                error: None,
            },
        );
        let rest = state.order.rest();
        self.write_lines(&mut state, rest);
        if let Some(e) = state.error.take() {
            return Err(e);
        }
        for (name, mut file) in std::mem::take(&mut state.files) {
            file.flush().map_err(write_error(&self.dir.join(&name)))?;
        }
        Ok(())
    }
}

/// Every run logged in `dir`, read back in scenario order (the HTML page
/// lists runs per scenario).
pub(super) fn read_back(scenarios: &[Scenario], dir: &Path) -> Result<Vec<Value>, AppError> {
    let mut runs = Vec::new();
    let mut read: Vec<String> = Vec::new();
    for scenario in scenarios {
        let name = log::file_name(&scenario.name);
        if read.contains(&name) {
            continue;
        }
        let path = dir.join(&name);
        let text = std::fs::read_to_string(&path).map_err(write_error(&path))?;
        runs.extend(
            text.lines()
                .filter_map(|line| serde_json::from_str::<Value>(line).ok()),
        );
        read.push(name);
    }
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::InOrder;

    #[test]
    fn items_come_out_in_position_order_whatever_order_they_arrive_in() {
        let mut order = InOrder::default();
        assert!(order.push(2, Some("c")).is_empty());
        assert!(order.push(1, None).is_empty());
        assert_eq!(order.push(0, Some("a")), vec!["a", "c"]);
        assert!(order.push(5, Some("f")).is_empty());
        assert_eq!(order.push(3, Some("d")), vec!["d"]);
        assert_eq!(order.rest(), vec!["f"]);
    }
}
