//! The README's figures are the runs': every block between `<!-- figures: NAME -->`
//! and `<!-- end -->` must equal what `agent_eval::app::figures` renders from a run of
//! the shipped scenario at its own seed counts (the ten-step refactor at 200 seeds a
//! cell, the dialects and reminder policies at 30, the price of planning and the
//! seed-002 session at 100, and the ten-step refactor again under the profile fitted on
//! public sessions, `profiles/public-sessions.yaml`), and the table of planning behaviour
//! by model family read from the profiles of `profiles/by-model/`.
//! When it fails, `cargo run --release --example figures` rewrites the blocks.

use std::path::Path;

#[test]
fn every_figures_block_of_the_readme_is_what_the_runs_give() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let blocks = agent_eval::app::figures::render_all(root).expect("the scenarios run");
    let names: Vec<&str> = blocks.iter().map(|b| b.name).collect();
    assert_eq!(
        names,
        [
            "ten-step",
            "dialects",
            "price",
            "sessions",
            "public-profile",
            "by-model"
        ]
    );
    let fresh = agent_eval::app::figures::splice(&readme, &blocks).expect("every mark found");
    if fresh != readme {
        let differing: Vec<String> = readme
            .lines()
            .zip(fresh.lines())
            .filter(|(a, b)| a != b)
            .map(|(a, b)| format!("README: {a}\nruns:   {b}"))
            .collect();
        panic!(
            "the README's figures differ from the runs \
             (`cargo run --release --example figures` rewrites them):\n{}",
            differing.join("\n")
        );
    }
}
