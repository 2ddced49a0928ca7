//! The cost of one command next to the bare cost of starting it.
//!
//! `bare` is what std does for `sh -c true` (posix_spawn, two pipes read to
//! the end); `run_bash` is the bash tool with everything on: the Landlock
//! sandbox, the PID namespace that kills every descendant, the deadline and
//! the cancellation poll. The other rows take one piece away at a time, to
//! show where the difference goes.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test, benchmark or example: a failed assumption is a failure to see"
)]

use std::hint::black_box;
use std::process::Command;
use std::time::Duration;

use agent_eval::agent::tools::run_bash;
use agent_eval::sandbox::command::{CommandSettings, run_command_with};
use agent_eval::sandbox::process::Containment;
use criterion::{Criterion, criterion_group, criterion_main};

fn spawn(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let root = dir.path().canonicalize().expect("a canonical folder");
    let timeout = Duration::from_secs(120);
    let mut group = c.benchmark_group("spawn sh -c true");
    group.bench_function("bare std::process::Command", |b| {
        b.iter(|| {
            black_box(
                Command::new("/bin/sh")
                    .arg("-c")
                    .arg("true")
                    .current_dir(&root)
                    .output()
                    .expect("sh runs"),
            )
        })
    });
    group.bench_function("run_bash (sandbox + PID namespace)", |b| {
        b.iter(|| black_box(run_bash(&root, "true", timeout).expect("sh runs")))
    });
    let variants = [
        ("run_command, no sandbox", false, None),
        (
            "run_command, no sandbox, process group",
            false,
            Some(Containment::ProcessGroup),
        ),
        (
            "run_command, sandbox, process group",
            true,
            Some(Containment::ProcessGroup),
        ),
    ];
    for (name, sandbox, containment) in variants {
        let settings = CommandSettings {
            sandbox,
            containment,
            ..CommandSettings::new(timeout)
        };
        group.bench_function(name, |b| {
            b.iter(|| black_box(run_command_with(&root, "true", &settings).expect("sh runs")))
        });
    }
    group.finish();
}

criterion_group!(benches, spawn);
criterion_main!(benches);
