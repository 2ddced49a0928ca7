//! The checks across keys that deserializing cannot make: the agent of a
//! session, axes that vary a simulated model, its parameters and steps,
//! the parts an expectation names, and a simulated model's profile.

use std::path::Path;

use super::error::LoadError;
use super::position::{key_after, top_level_key};
use crate::scenario::agent_command::TaskVia;
use crate::scenario::axes::{Axis, AxisValue};
use crate::scenario::model::ModelSpec;
use crate::scenario::step::Step;
use crate::scenario::{AgentSettings, Expectation};

/// A simulated model's `profile: FILE` (relative to the scenario's folder)
/// read and applied under the parameters the file wrote; returns what
/// reports name the profile by and the names written.
pub(super) fn resolve_profile(
    file: &Path,
    text: &str,
    model: &mut ModelSpec,
    model_at: Option<(u64, u64)>,
) -> Result<
    (
        Option<crate::model::simulated::profile::ProfileRef>,
        Vec<String>,
    ),
    LoadError,
> {
    let ModelSpec::Simulate(params) = model else {
        return Ok((None, Vec::new()));
    };
    let section = crate::scenario::simulate_section(text);
    let Some(written) = &section.profile else {
        return Ok((None, section.written));
    };
    let path = file.parent().unwrap_or(Path::new("")).join(written);
    // A profile stays in the scenario's repository, as a fixture does.
    let outside = if Path::new(written).is_absolute() {
        Some("must be a path relative to the scenario file".to_string())
    } else {
        crate::sandbox::workspace::fixture_outside_repository(file, &path)
    };
    if let Some(problem) = outside {
        return Err(LoadError::new(
            file,
            model_at,
            format!("model.simulate.profile {problem}"),
        ));
    }
    let loaded = crate::model::simulated::Profile::read(&path)
        .map_err(|e| LoadError::new(file, model_at, format!("model.simulate.profile: {e}")))?;
    *params = crate::scenario::with_profile(params, &section.written, &loaded.profile);
    Ok((Some(loaded.reference()), section.written))
}

/// A session is sent to an outside agent one part a message: refuses a
/// `task_via` that cannot carry several.
pub(super) fn check_session_agent(
    file: &Path,
    text: &str,
    agent: &AgentSettings,
) -> Result<(), LoadError> {
    let waiting = agent.awaiting_command.as_ref().map(|(a, _)| a);
    if let Some(external) = agent.external.as_ref().or(waiting)
        && !(external.task_via == TaskVia::Stdin || external.task_via.carries_sessions())
    {
        return Err(LoadError::new(
            file,
            top_level_key(text, "agent").and_then(|from| key_after(text, "task_via", from)),
            "agent.task_via: a session is sent to an outside agent one part a message (`task_via: lines`, the default for a session, or `stream-json`)",
        ));
    }
    Ok(())
}

/// Every value of a `runs:` axis that varies a simulated-model parameter
/// must give valid parameters, and such an axis needs a simulated model.
pub(super) fn check_simulate_axes(
    file: &Path,
    text: &str,
    runs: &crate::scenario::RunsSpec,
    runs_at: Option<(u64, u64)>,
    model: &ModelSpec,
) -> Result<(), LoadError> {
    let simulate_axes = runs
        .axes
        .iter()
        .filter(|(axis, _)| matches!(axis, Axis::Simulate(_)));
    for (axis, values) in simulate_axes {
        let axis_at = runs_at.and_then(|from| key_after(text, &axis.name(), from));
        let ModelSpec::Simulate(base) = model else {
            return Err(LoadError::new(
                file,
                axis_at.or(runs_at),
                format!(
                    "runs.{axis} varies a simulated-model parameter, but the model is scripted"
                ),
            ));
        };
        for value in values {
            let mut params = *base;
            if let (Axis::Simulate(i), AxisValue::Number(x)) = (axis, value)
                && let Some(name) = crate::model::simulated::SimulateParams::NAMES.get(*i)
                && let Some(field) = params.field_mut(name)
            {
                *field = *x;
            }
            params.validate().map_err(|message| {
                LoadError::new(file, axis_at.or(runs_at), format!("runs: {message}"))
            })?;
        }
    }
    Ok(())
}

/// A simulated model's parameters must be valid, and it needs steps with
/// `do` calls to perform.
pub(super) fn check_simulated_model(
    file: &Path,
    text: &str,
    params: &crate::model::simulated::SimulateParams,
    model_at: Option<(u64, u64)>,
    steps: &[Step],
) -> Result<(), LoadError> {
    params.validate().map_err(|message| {
        // Point at the parameter the message names, when it is written.
        let at = message
            .param()
            .and_then(|name| model_at.and_then(|from| key_after(text, name, from)));
        LoadError::new(file, at.or(model_at), format!("model: {message}"))
    })?;
    if steps.iter().all(|s| s.actions.is_empty()) {
        return Err(LoadError::new(
            file,
            model_at,
            "model.simulate needs steps with `do` calls: they are how the simulated model performs a step",
        ));
    }
    Ok(())
}

/// A `part:` expectation must name a part the scenario has.
pub(super) fn check_expected_parts(
    file: &Path,
    text: &str,
    expect: &[Expectation],
    part_count: usize,
) -> Result<(), LoadError> {
    for expectation in expect {
        if let Expectation::Part { part, .. } = expectation
            && *part > part_count
        {
            let at = top_level_key(text, "expect").and_then(|from| key_after(text, "part", from));
            return Err(LoadError::new(
                file,
                at,
                format!("expect: part {part}, but the scenario has {part_count} part(s)"),
            ));
        }
    }
    Ok(())
}
