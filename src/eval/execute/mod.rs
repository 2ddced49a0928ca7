//! Execution of one run: a fresh workspace, the built-in loop against the
//! scenario's model (or an outside agent, [`external`] with
//! [`agent_process`]), the checks, the protocol check, and the run's record
//! ([`crate::results::record`]).

pub mod agent_process;
pub mod external;
pub mod keep_transcripts;
pub mod presets;

use super::error::FixtureCopyError;
use super::{checks, workspace_image};
use crate::agent::tools::Toolbox;
use crate::agent::{StopKind, run_session};
use crate::llm::Message;
use crate::llm::price::{PlanningPrice, PriceRules, WorkdirSpelling};
use crate::llm::protocol;
use crate::llm::{ContentBlock, Model, ModelError, ModelRequest, ModelResponse, turn_of};
use crate::model::cassette::{
    CassetteSource, Recorder, Replay, Tape, cassette_file_name, cassette_fixture_dir,
    cassette_yaml, write_cassette,
};
use crate::model::http::{HttpContext, HttpModelError, RealBackends, RealModelSpec};
use crate::model::scripted::ScriptedModel;
use crate::model::simulated::{SimulatedModel, run_seed};
use crate::results::parts::session_figures;
use crate::results::record::{RunRecord, RunResult};
use crate::scenario::cells::Cell;
use crate::scenario::{ModelSpec, Scenario};
use std::path::{Path, PathBuf};

/// Why a run could not happen.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{scenario}: cannot prepare the workspace: {source}")]
    Workspace {
        scenario: String,
        source: std::io::Error,
    },
    #[error("{scenario}: {source}")]
    Model {
        scenario: String,
        source: HttpModelError,
    },
    #[error("{scenario}: cannot write the cassette {path}: {message}")]
    Record {
        scenario: String,
        path: PathBuf,
        message: String,
    },
    #[error("{scenario}: cannot run the agent: {message}")]
    Agent { scenario: String, message: String },
    #[error("{scenario}: cannot keep the agent's transcripts in {path}: {source}")]
    KeepTranscripts {
        scenario: String,
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What runs need besides their scenario: the real-model backends shared by
/// the evaluation, and where to record real runs as cassettes.
#[derive(Debug, Clone, Default)]
pub struct RunEnv {
    /// `None`: a real model reads its endpoint from the environment, with
    /// default retries and no limits.
    pub real: Option<RealBackends>,
    /// `--record DIR`.
    pub record: Option<PathBuf>,
    /// `--keep-transcripts DIR`: where a preset's own session transcripts
    /// are copied before its throwaway HOME is deleted.
    pub keep_transcripts: Option<PathBuf>,
}

/// The scenario's model for one run of `cell` with `seed`: the same model
/// whether the built-in loop or an agent over the wire asks it. A real
/// model reads its endpoint and key from the environment here (the loop's
/// own runs go through [`run_once_in`], which meters and records them).
pub fn model_for(
    scenario: &Scenario,
    cell: &Cell,
    seed: u64,
) -> Result<Box<dyn Model + Send>, RunError> {
    model_for_in(scenario, cell, seed, None)
}

/// [`model_for`] for a run whose workspace is `workdir`: a simulated model
/// counts that path as a fixed placeholder, so its numbers do not depend
/// on where the workspace lives.
pub fn model_for_in(
    scenario: &Scenario,
    cell: &Cell,
    seed: u64,
    workdir: Option<&Path>,
) -> Result<Box<dyn Model + Send>, RunError> {
    let settings = &cell.loop_settings;
    Ok(match &scenario.model {
        ModelSpec::Script(script) => Box::new(ScriptedModel::new(script.clone())),
        ModelSpec::Simulate(params) => {
            let mut simulated = SimulatedModel::new(
                cell.simulate.unwrap_or(*params),
                scenario.skills(),
                run_seed(&scenario.name, seed),
            )
            .with_dialect(settings.dialect)
            .with_session(
                scenario
                    .parts
                    .iter()
                    .map(|p| (p.task.clone(), p.steps.start))
                    .collect(),
            );
            if let Some(workdir) = workdir {
                simulated = simulated.with_workdir(workdir);
            }
            if let Some(marker) = settings.reminder.marker() {
                simulated = simulated.with_reminder_marker(marker);
            }
            // A preset's own planning reminder is the only reminder.
            if let Some(preset) = scenario.agent.preset {
                let text = presets::of(preset).reminder_text(settings.dialect);
                simulated = simulated
                    .with_only_reminder_markers(text.as_slice())
                    .reading_back_apart();
            }
            // An external agent's own reminder text is a reminder too.
            if let Some(pattern) = scenario
                .agent
                .external
                .as_ref()
                .and_then(|a| a.reminder_pattern.as_deref())
            {
                simulated = simulated.with_reminder_marker(pattern);
            }
            Box::new(simulated)
        }
        ModelSpec::Real(spec) => {
            HttpContext::new()
                .and_then(|context| RealBackends::new(context).model(spec, seed))
                .map_err(|source| RunError::Model {
                    scenario: scenario.name.clone(),
                    source,
                })?
                .model
        }
    })
}

/// Runs `scenario` once with `cell`'s settings and `seed`.
pub fn run_once(scenario: &Scenario, cell: &Cell, seed: u64) -> Result<RunRecord, RunError> {
    run_once_in(scenario, cell, seed, &RunEnv::default())
}

/// [`run_once`] with real-model backends and recording.
pub fn run_once_in(
    scenario: &Scenario,
    cell: &Cell,
    seed: u64,
    env: &RunEnv,
) -> Result<RunRecord, RunError> {
    // A Ctrl-C during this call is handled by it, then forgotten.
    let _session = crate::cancel::Session::begin();
    if let Some(agent) = &scenario.agent.external {
        return external::run_once_external(scenario, cell, seed, agent, None);
    }
    if let Some(preset) = scenario.agent.preset {
        let acp = scenario.agent.preset_acp;
        let binary = presets::binary_of(preset, acp).map_err(|e| RunError::Agent {
            scenario: scenario.name.clone(),
            message: e.to_string(),
        })?;
        let settings = &cell.loop_settings;
        let agent = presets::agent_command_in(
            preset,
            &binary,
            (settings.todo, settings.dialect),
            (scenario.session, acp),
            &scenario.agent.preset_env,
            scenario.agent.preset_timeout_s,
        );
        return external::run_once_external(
            scenario,
            cell,
            seed,
            &agent,
            env.keep_transcripts.as_deref(),
        );
    }
    let toolbox = prepare_workspace(scenario)?;
    let workdir = toolbox.root().to_string_lossy().into_owned();
    let mut usage = None;
    let mut tape = None;
    let mut drift = None;
    let mut model: Box<dyn Model> = match &scenario.model {
        ModelSpec::Script(script) if scenario.model.is_cassette() => {
            let hashes = script.iter().map(|r| r.request_hash.clone()).collect();
            let replay = Replay::new(ScriptedModel::new(script.clone()), hashes, workdir);
            drift = Some(replay.drift_log());
            Box::new(replay)
        }
        ModelSpec::Real(spec) => {
            let made = match &env.real {
                Some(backends) => backends.model(spec, seed),
                None => HttpContext::new()
                    .and_then(|context| RealBackends::new(context).model(spec, seed)),
            }
            .map_err(|source| RunError::Model {
                scenario: scenario.name.clone(),
                source,
            })?;
            usage = Some(made.usage);
            if env.record.is_some() {
                let recorder = Recorder::new(made.model, workdir);
                tape = Some(recorder.tape());
                Box::new(recorder)
            } else {
                made.model
            }
        }
        ModelSpec::Script(_) | ModelSpec::Simulate(_) => {
            model_for_in(scenario, cell, seed, Some(toolbox.root()))?
        }
    };
    let mut record = run_in_workspace(scenario, cell, seed, &toolbox, model.as_mut());
    let metrics = &mut record.result;
    metrics.drift_turns = drift.map(|log| log.turns()).unwrap_or_default();
    if let Some(meter) = usage {
        let usage = meter.get();
        metrics.input_tokens = Some(usage.input_tokens);
        // A real API counts what it read (tool schemas included); the
        // planning part stays the estimate, never more than the whole.
        metrics.context_tokens = usage.input_tokens;
        metrics.planning_tokens = metrics.planning_tokens.min(usage.input_tokens);
        metrics.output_tokens = Some(usage.output_tokens);
        metrics.cost = usage.cost;
        if metrics.stop == StopKind::ModelError {
            metrics.model_error = meter.last_error();
        }
    }
    // A run the backend broke off is not worth replaying.
    if let (Some(tape), Some(dir), ModelSpec::Real(spec)) = (tape, &env.record, &scenario.model)
        && metrics.stop != StopKind::ModelError
    {
        record_cassette(scenario, cell, seed, spec, &tape, dir)?;
    }
    Ok(record)
}

/// One run of `scenario` against a model the caller makes for the run's
/// workspace (e.g. a client of a server that serves the scenario's model):
/// the same workspace, loop, checks and metrics as [`run_once`].
pub fn run_with_model(
    scenario: &Scenario,
    cell: &Cell,
    seed: u64,
    make_model: impl FnOnce(&Path) -> Box<dyn Model>,
) -> Result<RunRecord, RunError> {
    let _session = crate::cancel::Session::begin();
    let toolbox = prepare_workspace(scenario)?;
    let mut model = make_model(toolbox.root());
    Ok(run_in_workspace(
        scenario,
        cell,
        seed,
        &toolbox,
        model.as_mut(),
    ))
}

/// A fresh workspace for `scenario`: held in memory until a process needs
/// a folder, removed when the toolbox drops.
fn prepare_workspace(scenario: &Scenario) -> Result<Toolbox, RunError> {
    let workspace = workspace_image::create_for_run(&scenario.workspace).map_err(|source| {
        RunError::Workspace {
            scenario: scenario.name.clone(),
            source,
        }
    })?;
    Ok(Toolbox::with_workspace(std::sync::Arc::new(workspace)))
}

/// The loop, the checks and the metrics, in a prepared workspace.
fn run_in_workspace(
    scenario: &Scenario,
    cell: &Cell,
    seed: u64,
    toolbox: &Toolbox,
    model: &mut dyn Model,
) -> RunRecord {
    let settings = &cell.loop_settings;
    let mut model = FreeformGuard {
        inner: model,
        error: None,
    };
    let outcome = run_session(&mut model, toolbox, &scenario.tasks(), settings);
    let step_results: Vec<Option<bool>> = scenario
        .steps
        .iter()
        .map(|step| {
            step.check
                .as_ref()
                .map(|c| checks::holds(c, toolbox.workspace()))
        })
        .collect();
    let violations = protocol::check(&outcome.messages);
    let metrics = RunResult {
        seed,
        turns: outcome.turns,
        stop: outcome.stop,
        steps_completed: step_results.iter().filter(|r| **r == Some(true)).count(),
        steps_total: scenario.steps_total(),
        reminders_at: outcome.reminders_at,
        rejected_todo_updates: outcome.rejected_todo_updates,
        todo_calls: outcome.todo_calls,
        protocol_violations: violations.len(),
        unknown_tool_calls: outcome.unknown_tool_calls,
        model_error: model
            .error
            .take()
            .map(|e| format!("{}: {e}", scenario.name)),
        step_checks: crate::results::summary::step_checks(&step_results),
        ..RunResult::zeroed(seed)
    };
    let mut metrics = metrics;
    metrics.set_price(loop_price(
        toolbox,
        settings,
        (&outcome.system, &outcome.messages),
        &metrics.reminders_at,
    ));
    if scenario.session {
        metrics.parts = session_figures(
            scenario,
            &outcome.messages,
            &step_results,
            &metrics.reminders_at,
            settings.dialect,
            settings.todo,
        )
        .parts;
    }
    RunRecord {
        result: metrics,
        messages: outcome.messages,
        violations,
        step_results,
        dialect: settings.dialect,
        plan: outcome.plan,
        planning_offered: settings.todo,
        agent_log: None,
    }
}

/// The price of planning of a built-in run, read off its transcript as an
/// outside agent's is read off the wire (the same rules: the cell's
/// planning tools when offered, the policy's own reminder text).
fn loop_price(
    toolbox: &Toolbox,
    settings: &crate::agent::LoopSettings,
    (system, messages): (&str, &[Message]),
    reminders_at: &[usize],
) -> PlanningPrice {
    let dialect = settings.dialect.get();
    let is_planning = |name: &str| settings.todo && dialect.is_planning_tool(name);
    let workdir = WorkdirSpelling::new(toolbox.root());
    let rules = PriceRules {
        workdir: &workdir,
        is_planning: &is_planning,
        reminder_pattern: settings.reminder.marker(),
        pattern_only: false,
    };
    PlanningPrice::of_transcript(system, messages, reminders_at, &rules)
}

/// Stands between the built-in loop and the model: a response holding a
/// freeform call (a scripted call whose input is a string, such as Codex's
/// `apply_patch`) cannot run in the loop, whose tools take JSON objects —
/// only the Responses API carries it, to an external agent. The run stops
/// with `model_error`, naming the turn and the tool.
struct FreeformGuard<M> {
    inner: M,
    error: Option<String>,
}

impl<M: Model> Model for FreeformGuard<M> {
    fn respond(&mut self, request: &ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        let response = self.inner.respond(request)?;
        let freeform = response.content.iter().find_map(|block| match block {
            ContentBlock::ToolUse { name, input, .. } if input.is_string() => Some(name.clone()),
            _ => None,
        });
        match freeform {
            Some(name) => {
                let turn = turn_of(request);
                let message = format!(
                    "turn {turn}: the call of `{name}` has a freeform (string) input, which only an external agent on the OpenAI Responses API can receive; the built-in loop's tools take JSON objects"
                );
                self.error = Some(message.clone());
                Err(ModelError::Unsupported { turn, message })
            }
            None => Ok(response),
        }
    }
}

/// Writes one recorded run as a cassette in `dir`.
fn record_cassette(
    scenario: &Scenario,
    cell: &Cell,
    seed: u64,
    spec: &RealModelSpec,
    tape: &Tape,
    dir: &Path,
) -> Result<(), RunError> {
    let settings = match serde_json::to_value(&cell.settings) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => serde_json::Map::new(),
    };
    let file_name = cassette_file_name(&scenario.name, &settings, seed);
    let fail = |message: String| RunError::Record {
        scenario: scenario.name.clone(),
        path: dir.join(&file_name),
        message,
    };
    let source_text = std::fs::read_to_string(&scenario.file).map_err(|e| {
        fail(format!(
            "cannot read the scenario {}: {e}",
            scenario.file.display()
        ))
    })?;
    let source: serde_json::Value =
        serde_saphyr::from_str(&source_text).map_err(|e| fail(e.to_string()))?;
    let scenario_dir = scenario.file.parent().unwrap_or(Path::new("."));
    let text = cassette_yaml(
        CassetteSource {
            scenario: source,
            scenario_dir,
            settings: &settings,
            model: &spec.label(),
            seed,
        },
        &tape.script(),
    )
    .map_err(|e| fail(e.to_string()))?;
    write_cassette(dir, &file_name, &text).map_err(|e| fail(e.to_string()))?;
    if let Some(fixture) = &scenario.workspace.fixture {
        copy_fixture(
            &fixture.value,
            &dir.join(cassette_fixture_dir(&fixture.value)),
        )
        .map_err(|e| fail(format!("cannot copy the fixture beside it: {e}")))?;
    }
    Ok(())
}

/// Copies a fixture folder to `target` once: runs recorded in parallel
/// share it, so the copy is made aside and renamed into place, and a copy
/// already there is kept.
fn copy_fixture(fixture: &Path, target: &Path) -> Result<(), FixtureCopyError> {
    if target.is_dir() {
        return Ok(());
    }
    let image = crate::sandbox::workspace::WorkspaceImage::build(
        Some(fixture),
        std::iter::empty::<(&str, &str)>(),
    )?;
    let parent = target.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)?;
    let aside = tempfile::Builder::new()
        .prefix(".fixture-")
        .tempdir_in(parent)?;
    let copy = aside.path().join("copy");
    crate::sandbox::workspace::write_image(&image, &copy)?;
    match std::fs::rename(&copy, target) {
        Ok(()) => Ok(()),
        // Another run put its copy there first.
        Err(_) if target.is_dir() => Ok(()),
        Err(e) => Err(e.into()),
    }
}
