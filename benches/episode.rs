//! One file-tools-only scripted episode (11 turns: todo, read_file,
//! edit_file, write_file, the four file checks), end to end through the
//! library: workspace from the scenario's image, the loop, the checks,
//! the protocol check, cleanup. With workspaces in memory no file is
//! written and no process is started; the "on disk" variant writes the
//! workspace to its folder first (what a `bash` call would cause), for
//! comparison.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test, benchmark or example: a failed assumption is a failure to see"
)]

use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;

use agent_eval::agent::run_loop;
use agent_eval::agent::tools::Toolbox;
use agent_eval::eval::{Cell, checks, model_for, run_once, workspace_image};
use agent_eval::sandbox::workspace::Workspace;
use agent_eval::scenario;
use criterion::{Criterion, criterion_group, criterion_main};

const EPISODE: &str = "benches/data/file_tools_episode.yaml";

fn episode(c: &mut Criterion) {
    let scenario = scenario::load(Path::new(EPISODE)).expect("the bench scenario loads");
    let cell = Cell::of_agent(&scenario);
    let record = run_once(&scenario, &cell, 0).expect("the episode runs");
    assert_eq!(record.result.steps_completed, 4);
    assert_eq!(record.result.turns, 11);

    c.bench_function("file-tools episode (in memory)", |b| {
        b.iter(|| black_box(run_once(&scenario, &cell, 0).map(|r| r.result.steps_completed)))
    });

    c.bench_function("file-tools episode (on disk)", |b| {
        b.iter(|| {
            let image = workspace_image::image(&scenario.workspace).expect("image");
            let ws = Workspace::create(&image).expect("workspace");
            ws.materialize().expect("materialize");
            let toolbox = Toolbox::with_workspace(Arc::new(ws));
            let mut model = model_for(&scenario, &cell, 0).expect("model");
            let outcome = run_loop(
                model.as_mut(),
                &toolbox,
                &scenario.task,
                &cell.loop_settings,
            );
            let done = scenario
                .steps
                .iter()
                .filter_map(|s| s.check.as_ref())
                .filter(|c| checks::holds(c, toolbox.workspace()))
                .count();
            black_box((outcome.turns, done))
        })
    });
}

criterion_group!(benches, episode);
criterion_main!(benches);
