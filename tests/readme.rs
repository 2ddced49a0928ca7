//! The README's examples are real: its scenario examples load, and the
//! full one runs with its expectations holding.

use agent_eval::eval::{EvalOptions, evaluate_scenario};
use agent_eval::scenario::load_str;
use std::path::Path;

fn yaml_blocks() -> Vec<String> {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    readme
        .split("```yaml\n")
        .skip(1)
        .filter_map(|rest| rest.split("```").next())
        .map(str::to_string)
        .collect()
}

#[test]
fn the_scenario_example_loads_and_holds() {
    let blocks = yaml_blocks();
    let example = blocks
        .iter()
        .find(|b| b.starts_with("name: hello-refactor"))
        .expect("the format example");
    let scenario = load_str(Path::new("README.md"), example).unwrap();
    assert_eq!(scenario.steps_total(), 2);
    let result = evaluate_scenario(
        &scenario,
        &EvalOptions {
            seeds: Some(20),
            ..EvalOptions::default()
        },
        &|_| {},
    )
    .unwrap();
    // Three thresholds with the todo tool, and one cell without it (a
    // threshold makes no difference there).
    assert_eq!(result.cells.len(), 4);
    for e in &result.expectations {
        assert!(e.ok, "{} measured {}", e.text, e.measured);
    }
    // The `do` calls are right: the best cell completes every step.
    let full = result
        .cells
        .iter()
        .map(|c| c.value(agent_eval::metric::COMPLETION_RATE))
        .fold(0.0, f64::max);
    assert_eq!(full, 1.0);
}

#[test]
fn the_script_example_is_a_valid_model_section() {
    let blocks = yaml_blocks();
    let script = blocks
        .iter()
        .find(|b| b.starts_with("model:\n  script:"))
        .expect("the script example");
    let scenario = format!("task: t\n{script}");
    load_str(Path::new("README.md"), &scenario).unwrap();
}
