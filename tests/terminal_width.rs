//! The terminal output of `run` fits in 120 columns for every shipped
//! scenario, shown whole (`--verbose`: every table with every column, every
//! comparison, every expectation). Columns are characters, not bytes: the
//! tables' borders are three bytes each.

use crate::support;

/// The widest line the terminal output may have.
const WIDTH: usize = 120;

#[test]
fn every_shipped_scenario_shown_whole_fits_in_120_columns() {
    let root = env!("CARGO_MANIFEST_DIR");
    let output = support::agent_eval_in(std::path::Path::new(root))
        .args(["run", "scenarios/", "--verbose"])
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let stderr = String::from_utf8(output.stderr).expect("UTF-8");
    // The widest table of all (dialects.yaml, 37 cells) is shown whole.
    assert!(
        stdout.contains("│ claude-code-tasks │ planning-state │"),
        "{stdout}"
    );
    let too_wide: Vec<(usize, &str)> = stdout
        .lines()
        .chain(stderr.lines())
        .map(|line| (line.chars().count(), line))
        .filter(|(width, _)| *width > WIDTH)
        .collect();
    assert!(
        too_wide.is_empty(),
        "{} lines wider than {WIDTH} columns, e.g. {:?}",
        too_wide.len(),
        too_wide.first()
    );
    // Every figure is still there: the comparisons' words are kept, only
    // spaces become line breaks.
    assert!(
        stdout.contains("McNemar p<0.001"),
        "the comparisons are shown: {stdout}"
    );
}
