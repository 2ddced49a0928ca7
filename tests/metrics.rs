//! The metric table and its documentation agree: docs/metrics.md lists
//! every metric with its definition, and every listed name is in the table.

use agent_eval::scenario::METRICS;

#[test]
fn the_metrics_page_lists_every_metric_with_its_definition() {
    let page = std::fs::read_to_string("docs/metrics.md").unwrap();
    for metric in METRICS {
        let row = format!("| `{}` | {} |", metric.name, metric.definition);
        assert!(page.contains(&row), "docs/metrics.md lacks the row {row}");
    }
    let listed = page
        .lines()
        .filter(|l| l.starts_with("| `"))
        .filter_map(|l| l.split('`').nth(1))
        .collect::<Vec<_>>();
    let names: Vec<&str> = METRICS.iter().map(|m| m.name).collect();
    assert_eq!(
        listed, names,
        "docs/metrics.md lists the table in its order"
    );
}

#[test]
fn the_scenario_format_page_names_every_bound_the_parser_accepts() {
    let page = std::fs::read_to_string("docs/scenario-format.md").unwrap();
    for metric in METRICS.iter().filter(|m| m.bound) {
        assert!(
            page.contains(&format!("`{}`", metric.name)),
            "docs/scenario-format.md does not name `{}`",
            metric.name
        );
    }
}
