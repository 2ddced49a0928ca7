//! `agent-eval serve`: the scenario's model over HTTP until Ctrl-C.

use std::io::Write;
use std::path::PathBuf;

use super::{AppError, Status};
use crate::eval::{Cell, model_for_in};
use crate::scenario::{self, ModelSpec};
use crate::wire::{self, MockServer, ServerOptions};

/// `agent-eval serve`.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    pub scenario: PathBuf,
    pub seed: u64,
    /// Where to listen (default `127.0.0.1:0`, a free loopback port).
    pub listen: std::net::SocketAddr,
    /// The outside agent's workspace, whose path a simulated model counts
    /// as `{WORKDIR}` (as `run --agent` does with the run's own folder).
    pub workdir: Option<PathBuf>,
}

/// Serves the scenario's model (as its `agent:` settings describe the run)
/// until Ctrl-C / SIGTERM, then prints what the wire saw.
pub fn serve(
    config: &ServeConfig,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Status, AppError> {
    let mut scenario = scenario::load(&config.scenario)?;
    crate::eval::execute::presets::settle(&mut scenario, false)?;
    // The path as the agent will see and write it: canonical (a missing
    // folder is bad input, named).
    let workdir = match &config.workdir {
        Some(dir) => Some(
            dir.canonicalize()
                .map_err(|e| AppError::Usage(format!("--workdir {}: {e}", dir.display())))?,
        ),
        None => None,
    };
    let cell = Cell::of_agent(&scenario);
    let kind = match &scenario.model {
        ModelSpec::Script(script) => format!("scripted, {} responses", script.len()),
        ModelSpec::Simulate(_) => format!("simulated, seed {}", config.seed),
        ModelSpec::Real(_) => "a real model".to_string(),
    };
    let server = MockServer::start(
        model_for_in(&scenario, &cell, config.seed, workdir.as_deref())?,
        ServerOptions {
            listen: config.listen,
            model_id: scenario.name.clone(),
            max_turns: Some(scenario.agent.max_turns),
            workspace: workdir.clone(),
            ..ServerOptions::default()
        },
    )
    .map_err(|e| AppError::Usage(e.to_string()))?;
    let _ = writeln!(
        out,
        "serving {} ({kind}) until Ctrl-C\n  ANTHROPIC_BASE_URL={}\n  OPENAI_BASE_URL={}\n  model: {}\n  a request that offers no tools (a title, a quota check, a compaction) is a side request: answered \"{}\" without the model, not a turn, not measured",
        scenario.name,
        server.base_url(),
        server.openai_base_url(),
        scenario.name,
        wire::record::SIDE_TEXT
    );
    let _ = out.flush();
    while !crate::cancel::requested() {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let exchanges = server.stop();
    let metrics = wire::observe_run(&exchanges, scenario.agent.dialect.get(), None, None, false);
    let _ = writeln!(
        err,
        "stopped after {} requests: turns {}, stop {}, reminders at {:?}, todo calls {}, rejected {}, unknown tool calls {}, protocol violations {}, malformed requests {}",
        exchanges.len(),
        metrics.turns,
        metrics.stop,
        metrics.reminders_at,
        metrics.todo_calls,
        metrics.rejected_todo_updates,
        metrics.unknown_tool_calls,
        metrics.protocol_violations,
        metrics.malformed_requests
    );
    Ok(Status::Passed)
}
