//! The JSON report (`run --json FILE`; docs/json-report.md).
//!
//! ```json
//! {"version": 1, "ok": true,
//!  "scenarios": [{"name": "...", "file": "...",
//!    "cells": [{"settings": {"todo": true, "nag_threshold": 3}, "runs": 200,
//!               "steps_total": 10, "completion_rate": 0.83, "completion_ci95": [0.8, 0.86],
//!               "full_completion_rate": 0.61, "full_completion_ci95": [...],
//!               "pass_hat_k": {"1": 0.61, "2": 0.37},
//!               "mean_steps_completed": 8.3, "mean_reminders": 1.2,
//!               "mean_rejected_todo_updates": 0.3, "mean_todo_calls": 6.1,
//!               "mean_turns": 25.1, "mean_protocol_violations": 1.2,
//!               "results": [{"seed": 0, "turns": 24, "stop": "end_turn", "steps_completed": 9,
//!                            "steps_total": 10, "reminders_at": [7], "rejected_todo_updates": 0,
//!                            "todo_calls": 6, "protocol_violations": 0}]}],
//!    "comparisons": [{"what": "todo tool (nag 3)", "a": {...}, "b": {...},
//!                     "completion": {"pairs": 200, "mean_diff": 0.47, "diff_ci95": [0.43, 0.51],
//!                                    "a_better": 180, "b_better": 4, "p_value": 0.0},
//!                     "full_completion": {"only_a": 120, "only_b": 6, "p_value": 0.0}}],
//!    "expectations": [{"text": "...", "ok": true, "measured": 2.4, "detail": "..."}]}],
//!  "errors": ["FILE:LINE:COLUMN: message"]}
//! ```
//!
//! `nag_threshold` is a number or `"off"`; numbers are rounded to 6
//! decimals; `errors` lists scenarios that could not be loaded (then `ok`
//! is false). Each scenario also carries `seeds` (the order of its runs)
//! and `expect_spec` (its `expect:` entries) so that
//! [`crate::results::merge::ShardReader::merge`] can rebuild the report
//! from shards. A shard's report has `"shard": "K/N"`, a `"plan"` (the whole run's unit count, `--seeds` and `--model`), each
//! scenario's `sha256` (of its file), no expectation outcomes, and `ok`
//! false: it is not a complete report. Keys appear in a fixed order, so
//! equal inputs give equal bytes. This file is the writer; the report read
//! back, checked and merged is [`crate::results::report_file`] and
//! [`crate::results::merge`].

use serde::Serialize;

use crate::results::ScenarioResult;
use crate::results::json_layout::write_at_level;
pub use crate::results::report_file::{ShardPlan, VERSION};
use crate::results::shard::Shard;

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct Report<'a> {
    pub version: u32,
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<ShardPlan>,
    pub scenarios: &'a [ScenarioResult],
    pub errors: Vec<String>,
}

impl<'a> Report<'a> {
    pub fn new(scenarios: &'a [ScenarioResult], errors: Vec<String>) -> Self {
        Self {
            version: VERSION,
            ok: errors.is_empty() && scenarios.iter().all(ScenarioResult::ok),
            shard: None,
            plan: None,
            scenarios,
            errors,
        }
    }

    /// The report of one shard: never `ok` on its own.
    pub fn for_shard(
        scenarios: &'a [ScenarioResult],
        errors: Vec<String>,
        shard: Shard,
        plan: ShardPlan,
    ) -> Self {
        Self {
            ok: false,
            shard: Some(shard.to_string()),
            plan: Some(plan),
            ..Self::new(scenarios, errors)
        }
    }

    /// Writes [`Report::to_json`]'s bytes to `out`, streaming: the runs'
    /// records are copied from where they are kept, one at a time.
    pub fn write_json(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        write_pretty(out, self)
    }

    /// Pretty JSON with a trailing newline.
    pub fn to_json(&self) -> String {
        pretty(self).unwrap_or_else(|e| {
            // Serializing plain data to a string cannot fail; say so if it does.
            format!("{{\"version\": {VERSION}, \"ok\": false, \"errors\": [\"{e}\"]}}\n")
        })
    }
}

/// Pretty JSON with a trailing newline: how every JSON file and stdout
/// document of agent-eval is written.
pub fn pretty(value: &impl Serialize) -> Result<String, serde_json::Error> {
    let mut bytes = Vec::with_capacity(128);
    serialize_pretty(&mut bytes, value)?;
    // serde_json writes UTF-8 only.
    String::from_utf8(bytes).map_err(serde::ser::Error::custom)
}

/// Writes `value` as [`pretty`] returns it, through a buffer: the same
/// bytes, never held whole.
pub fn write_pretty(out: &mut dyn std::io::Write, value: &impl Serialize) -> std::io::Result<()> {
    let mut buffered = std::io::BufWriter::with_capacity(1 << 16, out);
    serialize_pretty(&mut buffered, value)?;
    std::io::Write::flush(&mut buffered)
}

/// `value` in the [`Pretty`](crate::results::json_layout::Pretty) layout, then a newline: what [`pretty`] and
/// [`write_pretty`] both write.
fn serialize_pretty<W: std::io::Write>(
    writer: &mut W,
    value: &impl Serialize,
) -> Result<(), serde_json::Error> {
    write_at_level(&mut *writer, value, 0)?;
    writer.write_all(b"\n").map_err(serde_json::Error::io)
}

#[cfg(test)]
mod pretty_tests {
    use serde_json::json;

    /// The same bytes as serde_json's own pretty printer, at every depth
    /// (past the 64 levels written at once too) and for empty containers.
    #[test]
    fn pretty_is_serde_jsons_layout() {
        let mut deep = json!({"leaf": [1, {"a": []}, {}], "s": "x\ny"});
        for level in 0..70 {
            deep = if level % 2 == 0 {
                json!([deep, level])
            } else {
                json!({"k": deep, "e": {}})
            };
        }
        for value in [
            json!(null),
            json!([]),
            json!({}),
            json!([[]]),
            json!({"a": {"b": [1, 2]}}),
            deep,
        ] {
            let expected = serde_json::to_string_pretty(&value).unwrap() + "\n";
            assert_eq!(super::pretty(&value).unwrap(), expected);
            let mut written = Vec::new();
            super::write_pretty(&mut written, &value).unwrap();
            assert_eq!(String::from_utf8(written).unwrap(), expected);
        }
    }

    /// A value kept as compact JSON (a spilled run record) is laid out
    /// as the value itself would be, at any depth, whatever its strings
    /// hold (quotes, backslashes, brackets, commas, colons).
    fn fragment_is_laid_out_as_its_value(value: &serde_json::Value) {
        let compact = serde_json::to_string(value).unwrap();
        let raw = serde_json::value::RawValue::from_string(compact).unwrap();
        let nested = |inner: serde_json::Value| json!({"a": [inner, {"b": {}}], "c": []});
        let expected = super::pretty(&nested(value.clone())).unwrap();
        let raw_value = serde_json::to_value(&*raw).unwrap();
        assert_eq!(raw_value, *value);
        // `pretty` of a structure holding the raw fragment where the value was.
        #[derive(serde::Serialize)]
        struct Holder<'a> {
            a: (&'a serde_json::value::RawValue, serde_json::Value),
            c: [u8; 0],
        }
        let holder = Holder {
            a: (&raw, json!({"b": {}})),
            c: [],
        };
        assert_eq!(super::pretty(&holder).unwrap(), expected);
    }

    #[test]
    fn a_compact_fragment_is_laid_out_as_its_value() {
        for value in [
            json!(null),
            json!([]),
            json!({}),
            json!({"seed": 3, "stop": "end_turn", "reminders_at": [4, 8], "cost": 0.25}),
            json!({"k": "q\"{[,:]}\\", "e": [[], {}, [{}]], "n": -1.5e-7}),
            json!([[[{"deep": [1, [2, [3]]]}]]]),
        ] {
            fragment_is_laid_out_as_its_value(&value);
        }
    }

    proptest::proptest! {
        #[test]
        fn any_fragment_is_laid_out_as_its_value(
            keys in proptest::collection::vec("[a-z\"\\\\{}\\[\\],: ]{0,6}", 0..4),
            numbers in proptest::collection::vec(proptest::num::i64::ANY, 0..4),
        ) {
            let object: serde_json::Map<String, serde_json::Value> = keys
                .iter()
                .map(|k| (k.clone(), json!([k, numbers.clone(), {}])))
                .collect();
            fragment_is_laid_out_as_its_value(&json!([object, numbers]));
        }
    }
}

/// Shards read as a stream and merged.
#[cfg(test)]
mod shard_tests {
    use super::*;
    use crate::results::CellSummary;
    use crate::results::merge::{ShardFile, ShardReader};
    use crate::results::record::RunResult;
    use crate::results::report_file::{ReportFile, check_run};
    use crate::scenario::CellSettings;
    use serde_json::{Value, json};
    use std::path::{Path, PathBuf};

    fn record(seed: u64, steps_completed: usize, steps_total: usize) -> RunResult {
        RunResult {
            turns: 4 + seed as usize % 3,
            steps_completed,
            steps_total,
            reminders_at: vec![2],
            todo_calls: 1,
            input_tokens: Some(100 + seed),
            // Sums of these depend on their order.
            cost: Some(0.1 * (seed % 4) as f64 + 1e-7 / (seed + 1) as f64),
            model_error: (seed == 5).then(|| "gave up".to_string()),
            step_checks: if steps_completed == steps_total {
                "11".into()
            } else {
                "10".into()
            },
            ..RunResult::zeroed(seed)
        }
    }

    /// Records kept in the spill file are written into the report as they
    /// would be if held: the same bytes, whatever they hold (costs,
    /// quoted error messages).
    #[test]
    fn spilled_runs_are_written_as_held_ones() {
        use crate::results::Runs;
        use crate::results::cell_runs::{RunsBuilder, Spill};
        let records: Vec<RunResult> = (0..9)
            .map(|seed| {
                let mut r = record(seed, (seed % 3) as usize, 2);
                r.model_error = Some(format!("say \"{seed}\" {{[,:]}}\n"));
                r
            })
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let (spill, mut writer) = Spill::create_in(dir.path()).unwrap();
        let mut builder = RunsBuilder::default();
        for r in &records {
            builder.push(r, &mut writer).unwrap();
        }
        writer.finish().unwrap();
        let spilled = builder.finish(Some(&spill));
        let held = Runs::held(records);
        assert_eq!(pretty(&spilled).unwrap(), pretty(&held).unwrap());
        let mut streamed = Vec::new();
        write_pretty(&mut streamed, &spilled).unwrap();
        assert_eq!(String::from_utf8(streamed).unwrap(), pretty(&held).unwrap());
    }

    const SEEDS: u64 = 7;

    fn runs_of(cell: u64) -> Vec<RunResult> {
        (0..SEEDS)
            .map(|seed| record(seed * 3 + 1, ((seed + cell) % 3).min(2) as usize, 2))
            .collect()
    }

    fn settings(cell: u64) -> Value {
        if cell == 0 {
            json!({"todo": true, "nag_threshold": 3})
        } else {
            json!({"todo": false})
        }
    }

    /// Shard `k`/`n` of a run of two cells over 7 seeds, its runs listed
    /// in seed order or, when `reversed`, backwards.
    fn shard(k: u64, n: u64, reversed: bool) -> Value {
        let seeds: Vec<u64> = runs_of(0).iter().map(|r| r.seed).collect();
        let cells: Vec<Value> = (0..2)
            .map(|c| {
                let mut results: Vec<Value> = runs_of(c)
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| (c * SEEDS + *i as u64) % n == k - 1)
                    .map(|(_, r)| serde_json::to_value(r).unwrap())
                    .collect();
                if reversed {
                    results.reverse();
                }
                json!({"settings": settings(c), "steps_total": 2,
                       "step_rates": [{"id": "a", "text": "A", "rate": 0.0},
                                      {"id": "b", "text": "B", "rate": 0.0}],
                       "results": results})
            })
            .collect();
        json!({
            "version": 1, "ok": false, "shard": format!("{k}/{n}"),
            "plan": {"units": 2 * SEEDS, "seeds": null, "model": null},
            "scenarios": [{"name": "s", "file": "s.yaml", "seeds": seeds,
                           "sha256": "a".repeat(64), "cells": cells, "expect_spec": []}],
            "errors": []
        })
    }

    fn write(dir: &Path, name: &str, value: &Value) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, serde_json::to_vec_pretty(value).unwrap()).unwrap();
        path
    }

    /// The report one unsharded run of the same runs gives.
    fn unsharded() -> String {
        let labels = [
            crate::results::summary::StepLabel {
                id: "a".into(),
                text: "A".into(),
            },
            crate::results::summary::StepLabel {
                id: "b".into(),
                text: "B".into(),
            },
        ];
        let cells = (0..2)
            .map(|c| {
                let settings: CellSettings = serde_json::from_value(settings(c)).unwrap();
                // As a shard's reader reads them (a cost's decimal may
                // read back as another float).
                let read_back = runs_of(c)
                    .iter()
                    .map(|r| serde_json::from_str(&serde_json::to_string(r).unwrap()).unwrap())
                    .collect();
                CellSummary::new(settings, 2, read_back).with_steps(&labels)
            })
            .collect();
        let seeds = runs_of(0).iter().map(|r| r.seed).collect();
        let result =
            ScenarioResult::build("s".into(), "s.yaml".into(), seeds, cells, Vec::new(), true);
        Report::new(&[result], Vec::new()).to_json()
    }

    #[test]
    fn spilled_shards_merge_into_the_unsharded_report_in_any_listing_order() {
        let dir = tempfile::tempdir().unwrap();
        for n in [1, 2, 3, 5, 20] {
            for reversed in [false, true] {
                let mut reader = ShardReader::new().unwrap();
                let parts: Vec<ShardFile> = (1..=n)
                    .rev()
                    .map(|k| {
                        let path = write(dir.path(), &format!("{k}.json"), &shard(k, n, reversed));
                        reader.read(&path).unwrap()
                    })
                    .collect();
                let (results, errors) = reader.merge(parts).unwrap();
                assert!(errors.is_empty());
                assert_eq!(
                    Report::new(&results, errors).to_json(),
                    unsharded(),
                    "{n} shards, reversed: {reversed}"
                );
            }
        }
    }

    #[test]
    fn a_bad_run_is_found_as_check_run_finds_it_whatever_the_key_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut invalid = record(9, 1, 2);
        invalid.rejected_todo_updates = 5;
        let other_steps = record(4, 1, 3);
        let runs_cases: [Vec<RunResult>; 4] = [
            vec![record(1, 1, 2), invalid.clone(), other_steps.clone()],
            vec![record(1, 1, 2), other_steps.clone(), invalid.clone()],
            vec![other_steps.clone(), record(1, 1, 2)],
            vec![record(1, 1, 2), record(2, 2, 2)],
        ];
        for runs in &runs_cases {
            for cell_steps in [2, 3] {
                let expected = runs
                    .iter()
                    .find_map(|r| check_run(r, cell_steps).err().map(|e| (r.seed, e)));
                let results = serde_json::to_value(runs).unwrap();
                for results_first in [false, true] {
                    let cell = if results_first {
                        json!({"settings": {"todo": true}, "results": results, "steps_total": cell_steps})
                    } else {
                        json!({"settings": {"todo": true}, "steps_total": cell_steps, "results": results})
                    };
                    let report = json!({"version": 1, "scenarios": [
                        {"name": "s", "file": "s.yaml", "seeds": [], "cells": [cell]}]});
                    let path = write(dir.path(), "r.json", &report);
                    let got = ReportFile::read(&path).err().map(|e| e.to_string());
                    let want = expected.as_ref().map(|(seed, e)| {
                        format!(
                            "{}: scenario `s`, cell todo=true, seed {seed}: {e}",
                            path.display()
                        )
                    });
                    assert_eq!(got, want, "{runs:?} in a cell of {cell_steps} steps");
                }
            }
        }
    }
}
