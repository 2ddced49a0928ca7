//! `agent-eval check`: validate scenarios without running the model.
//!
//! Beyond loading (schema, paths, expectations), `check` dry-runs each
//! scenario's own solution: every step's `do` calls, in step order, in a
//! fresh workspace, and then each step's check. A simulated model performs
//! exactly those calls, so a step whose check does not hold after them is
//! a scenario the model can never finish: an error. It also fails an
//! expectation whose `where` or `compare` side matches no cell of the
//! matrix, and warns about what is legal but likely a mistake.

use std::io::Write;
use std::path::PathBuf;

use super::run::plural;
use super::{AppError, Status, no_scenarios};
use crate::agent::tools::Toolbox;
use crate::eval::{self, checks, workspace_image};
use crate::report::terminal::escape;
use crate::scenario::{self, CellSelector, Expectation, LoadError, ModelSpec, Scenario};

/// What checking one scenario found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Findings {
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
}

/// `agent-eval check`: validates scenarios; lists each with its matrix.
/// A matrix over the run cap (`max_runs`, default
/// [`eval::DEFAULT_MAX_RUNS`]) is an error of its file, as `run` sees it.
pub fn check(
    paths: &[PathBuf],
    max_runs: Option<u64>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Status, AppError> {
    // A session: Ctrl-C / SIGTERM while loading or dry-running stops the
    // check (exit 130, nothing printed) and is then forgotten.
    let _session = crate::cancel::Session::begin();
    if let Some(message) = super::missing_default_folder(paths) {
        let _ = writeln!(err, "error: {message}");
        return Ok(Status::NoScenarios);
    }
    let (scenarios, errors) = load(paths, max_runs);
    let mut text = String::new();
    let mut failed = !errors.is_empty();
    for s in &scenarios {
        if crate::cancel::requested() {
            return Err(AppError::Interrupted);
        }
        let findings = inspect(s);
        text.push_str(&scenario_line(s, &findings));
        failed |= !findings.errors.is_empty();
    }
    if crate::cancel::requested() {
        return Err(AppError::Interrupted);
    }
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(AppError::stdout)?;
    for e in &errors {
        let _ = writeln!(err, "error: {}", escape(&e.to_string()));
    }
    if scenarios.is_empty() && errors.is_empty() {
        let _ = writeln!(err, "error: {}", no_scenarios(paths));
        return Ok(Status::NoScenarios);
    }
    Ok(if failed {
        Status::BadInput
    } else {
        Status::Passed
    })
}

/// The scenarios under `paths` that load, settle (a dialect a preset
/// lacks is an error; its CLI need not be here) and fit the run cap, and
/// the errors of the others.
fn load(paths: &[PathBuf], max_runs: Option<u64>) -> (Vec<Scenario>, Vec<LoadError>) {
    let (loaded, mut errors) = scenario::load_all(paths);
    let mut scenarios = Vec::with_capacity(loaded.len());
    for mut scenario in loaded {
        match eval::execute::presets::settle(&mut scenario, false) {
            Ok(()) => scenarios.push(scenario),
            Err(e) => errors.push(e),
        }
    }
    let (scenarios, over_cap) = eval::admit(
        scenarios,
        &eval::EvalOptions {
            max_runs,
            ..eval::EvalOptions::default()
        },
    );
    errors.extend(over_cap);
    (scenarios, errors)
}

/// A scenario's line (verdict, file, name, steps, cells, expectations)
/// and its findings, one a line.
fn scenario_line(s: &Scenario, findings: &Findings) -> String {
    let cells = eval::matrix::cells(s);
    let steps = s.steps_total();
    let unscored = s.steps.len() - steps;
    let verdict = if findings.errors.is_empty() {
        "ok"
    } else {
        "FAIL"
    };
    let mut text = format!(
        "{verdict} {} ({}): {steps} step{}{}, {} cell{}, {} expectation{}\n",
        escape(&s.file.display().to_string()),
        escape(&s.name),
        plural(steps),
        if unscored > 0 {
            format!(" (+{unscored} without a check)")
        } else {
            String::new()
        },
        cells.len(),
        plural(cells.len()),
        s.expect.len(),
        plural(s.expect.len())
    );
    for e in &findings.errors {
        text.push_str(&format!("  error: {}\n", escape(e)));
    }
    for w in &findings.warnings {
        text.push_str(&format!("  warning: {}\n", escape(w)));
    }
    text
}

/// Everything `check` reports about one loaded scenario.
pub fn inspect(s: &Scenario) -> Findings {
    let mut findings = Findings::default();
    let simulated = matches!(s.model, ModelSpec::Simulate(_));
    let scripted = matches!(s.model, ModelSpec::Script(_));
    for step in s.steps.iter().filter(|step| step.check.is_none()) {
        findings.warnings.push(format!(
            "step #{} has no check: it is never scored",
            step.id
        ));
    }
    if scripted
        && !s.model.is_cassette()
        && s.runs
            .seeds
            .as_ref()
            .is_some_and(|seeds| seeds.to_vec().len() > 1)
    {
        findings.warnings.push(
            "a scripted model answers the same whatever the seed: several seeds repeat one run"
                .into(),
        );
    }
    if simulated || s.steps.iter().any(|step| !step.actions.is_empty()) {
        let problems = dry_run(s);
        if simulated {
            findings.errors.extend(problems);
        } else {
            findings.warnings.extend(problems);
        }
    }
    let cells = eval::matrix::cells(s);
    let matches_none =
        |selector: &CellSelector| !cells.iter().any(|c| selector.matches(&c.settings));
    for expectation in &s.expect {
        let inner = match expectation {
            Expectation::Part { expectation, .. } => expectation.as_ref(),
            other => other,
        };
        let selectors: Vec<(&str, &CellSelector)> = match inner {
            Expectation::Exact(_) | Expectation::Part { .. } => Vec::new(),
            Expectation::Bound { selector, .. } => vec![("where", selector)],
            Expectation::Compare { a, b, .. } => vec![("compare a", a), ("compare b", b)],
        };
        for (side, selector) in selectors {
            if matches_none(selector) {
                findings.errors.push(format!(
                    "expectation `{}`: its {side} ({selector}) matches no cell of the matrix",
                    describe(expectation)
                ));
            }
        }
    }
    findings
}

/// An expectation as `check` names it.
fn describe(expectation: &Expectation) -> String {
    match expectation {
        Expectation::Exact(exact) => format!("{} == {}", exact.name(), exact.expected()),
        Expectation::Bound {
            selector,
            metric,
            bound,
        } => format!("{} {bound} where {selector}", metric.name),
        Expectation::Compare {
            a,
            b,
            comparison,
            bound,
        } => format!("{} {bound} ({a} vs {b})", comparison.name()),
        Expectation::Part { part, expectation } => {
            format!("part {part}: {}", describe(expectation))
        }
    }
}

/// Performs every step's `do` calls in order in a fresh workspace; after
/// each step, its check must hold. Returns what went wrong.
fn dry_run(s: &Scenario) -> Vec<String> {
    let mut problems = Vec::new();
    let toolbox = match workspace_image::create_for_run(&s.workspace) {
        Ok(workspace) => Toolbox::with_workspace(std::sync::Arc::new(workspace)),
        Err(e) => return vec![format!("cannot prepare the workspace: {e}")],
    };
    for step in &s.steps {
        // The step's file:LINE, so a `do` call that fails (a write through
        // a fixture symlink that leads out) is found in the file.
        let at = match step.position {
            Some((line, column)) => format!("{}:{line}:{column}: ", s.file.display()),
            None => String::new(),
        };
        for (index, action) in step.actions.iter().enumerate() {
            if crate::cancel::requested() {
                problems.push("interrupted".into());
                return problems;
            }
            match toolbox.call(&action.tool, &action.input) {
                None => problems.push(format!(
                    "{at}step #{}: `do` call {} uses `{}`, which is not a workspace tool (bash, read_file, write_file, edit_file)",
                    step.id,
                    index + 1,
                    action.tool
                )),
                Some(Err(e)) => problems.push(format!(
                    "{at}step #{}: `do` call {} ({}) fails: {e}",
                    step.id,
                    index + 1,
                    action.tool
                )),
                Some(Ok(_)) => {}
            }
        }
        if let Some(check) = &step.check
            && !checks::holds(check, toolbox.workspace())
        {
            problems.push(format!(
                "{at}step #{}: its check ({check}) does not hold after its `do` calls{}",
                step.id,
                if step.actions.is_empty() {
                    " (it has none)"
                } else {
                    ""
                }
            ));
        }
    }
    problems
}
