//! Speed of `merge`: two shards of a run with two cells over 100,000 seeds
//! each (200,000 runs), checked and merged into the full results
//! (aggregates, the paired comparison) from reports already read (their
//! records spilled, their rows held).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test, benchmark or example: a failed assumption is a failure to see"
)]

use std::hint::black_box;

use agent_eval::results::merge::{ShardFile, ShardReader};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};

const SEEDS: u64 = 100_000;

fn shard(k: u64) -> Value {
    let seeds: Vec<u64> = (0..SEEDS).collect();
    let results: Vec<Value> = seeds
        .iter()
        .filter(|s| *s % 2 == k - 1)
        .map(|&seed| {
            json!({"seed": seed, "turns": 5, "stop": "end_turn",
                   "steps_completed": seed % 3, "steps_total": 2,
                   "reminders_at": [3], "rejected_todo_updates": 0,
                   "todo_calls": 1, "protocol_violations": 0})
        })
        .collect();
    let report = json!({
        "version": 1, "ok": false, "shard": format!("{k}/2"),
        "plan": {"units": 2 * SEEDS, "seeds": null, "model": null},
        "scenarios": [{
            "name": "wide", "file": "wide.yaml", "seeds": seeds, "sha256": "0".repeat(64),
            "cells": [
                {"settings": {"todo": true, "nag_threshold": 3}, "steps_total": 2, "results": results},
                {"settings": {"todo": false}, "steps_total": 2, "results": results}
            ],
            "expect_spec": []
        }],
        "errors": []
    });
    report
}

fn merge_shards(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut reader = ShardReader::new().expect("a spill file");
    let parts: Vec<ShardFile> = (1..=2)
        .map(|k| {
            let path = dir.path().join(format!("shard{k}.json"));
            let text = serde_json::to_vec(&shard(k)).expect("JSON");
            std::fs::write(&path, text).expect("a shard file");
            reader.read(&path).expect("a shard report")
        })
        .collect();
    let mut group = c.benchmark_group("merge");
    group.sample_size(10);
    group.bench_function("2 shards × 2 cells × 100,000 seeds", |b| {
        b.iter(|| black_box(reader.merge(black_box(parts.clone())).is_ok()))
    });
    group.finish();
}

criterion_group!(benches, merge_shards);
criterion_main!(benches);
