//! One run of an external agent (`agent.command` or `run --agent`): a
//! fresh workspace, the scenario's model served over HTTP for this run
//! alone, the agent process, then the same checks and metrics as for the
//! built-in loop — every metric read off the wire.
//!
//! The cell's loop settings are told to the agent in its environment, so
//! an agent that can vary them follows the matrix: `AGENT_EVAL_TODO` (`1`
//! or `0`), `AGENT_EVAL_DIALECT`, `AGENT_EVAL_REMINDER` (the policy's name),
//! `AGENT_EVAL_NAG_THRESHOLD` (s03 policy: a number or `off`),
//! `AGENT_EVAL_PLACEMENT` and `AGENT_EVAL_SEED` (the command's own `env`
//! wins over these). The turn cap is not among them: the server enforces
//! it, answering every request past `max_turns` with a closing `end_turn`
//! text, so the agent should simply keep asking until the model ends its
//! turn (an agent that stops itself at the cap sends no request after the
//! last turn, and a reminder added then is never seen on the wire).

use super::agent_process::{ExternalOutcome, ExternalRun, run_external};
use super::{RunError, model_for_in};
use crate::agent::StopKind;
use crate::eval::{checks, workspace_image};
use crate::llm::protocol;
use crate::llm::session::SessionMap;
use crate::llm::{ContentBlock, Message, Role};
use crate::plan::dialect::{Dialect, PlanItem};
use crate::plan::reminder::ReminderSpec;
use crate::results::parts::{ServedTurn, figures_of_turns};
use crate::results::record::{AgentPlan, RunRecord, RunResult};
use crate::scenario::Scenario;
use crate::scenario::cells::Cell;
use crate::scenario::{AgentCommand, TaskVia};
use crate::wire::Reply;

/// Runs `agent` once on `scenario` with `cell`'s settings and `seed`; with
/// `keep_transcripts`, a preset's own transcripts are copied there before
/// the workspace goes.
pub fn run_once_external(
    scenario: &Scenario,
    cell: &Cell,
    seed: u64,
    agent: &AgentCommand,
    keep_transcripts: Option<&std::path::Path>,
) -> Result<RunRecord, RunError> {
    let io_error = |source| RunError::Workspace {
        scenario: scenario.name.clone(),
        source,
    };
    let workspace = workspace_image::create(&scenario.workspace).map_err(io_error)?;
    let root = workspace.folder().map_err(io_error)?.to_path_buf();
    let settings = &cell.loop_settings;
    let mut agent = agent.clone();
    if scenario.session && !agent.task_via.carries_sessions() {
        // A session reaches an outside agent one part a message: a line
        // unless it reads a JSON stream (the loader refuses `arg`, `env`).
        agent.task_via = TaskVia::Lines;
    }
    let agent = with_cell_env(&agent, cell, seed);
    let tasks = scenario.tasks();
    let mut run = ExternalRun::new(&root, &scenario.task, &agent);
    if scenario.session {
        run.parts = &tasks;
    }
    run.dialect = settings.dialect;
    run.max_turns = Some(settings.max_turns);
    run.planning = settings.todo;
    run.model_id = &scenario.name;
    let outcome =
        run_external(model_for_in(scenario, cell, seed, Some(&root))?, &run).map_err(|e| {
            RunError::Agent {
                scenario: scenario.name.clone(),
                message: e.to_string(),
            }
        })?;
    keep_agent_transcripts(scenario, cell, seed, &root, keep_transcripts)?;
    if let Some(message) = verdict(&outcome, agent.timeout_s) {
        return Err(RunError::Agent {
            scenario: scenario.name.clone(),
            message,
        });
    }
    let step_results: Vec<Option<bool>> = scenario
        .steps
        .iter()
        .map(|step| step.check.as_ref().map(|c| checks::holds(c, &workspace)))
        .collect();
    let wire = outcome.observed;
    let metrics = RunResult {
        seed,
        turns: wire.turns,
        stop: wire.stop,
        steps_completed: step_results.iter().filter(|r| **r == Some(true)).count(),
        steps_total: scenario.steps_total(),
        reminders_at: wire.reminders_at,
        rejected_todo_updates: wire.rejected_todo_updates,
        todo_calls: wire.todo_calls,
        protocol_violations: wire.protocol_violations,
        unknown_tool_calls: wire.unknown_tool_calls,
        step_checks: crate::results::summary::step_checks(&step_results),
        agent_plans: outcome
            .acp
            .as_ref()
            .map(|acp| acp.plans.clone())
            .unwrap_or_default(),
        ..RunResult::zeroed(seed)
    };
    // Parts are counted from the turns the model served (the wire
    // record), each in the part its request had reached; the agent's own
    // history only tells which user messages it added.
    let unexpected = SessionMap::read(&outcome.transcript, &tasks).unexpected;
    let served = served_turns(&outcome.exchanges, &wire.served, &tasks);
    let figures = figures_of_turns(
        scenario,
        &served,
        unexpected,
        &step_results,
        &metrics.reminders_at,
    );
    let mut metrics = metrics;
    metrics.set_price(wire.price);
    if scenario.session {
        // An agent that quit with parts unsent did not end the session.
        if metrics.stop == StopKind::EndTurn && figures.parts.iter().any(|p| p.never_sent) {
            metrics.stop = StopKind::AgentExit;
        }
        metrics.parts = figures.parts;
    }
    metrics.unexpected_user_messages = figures.unexpected.len();
    let log = log_with_notes(outcome.log, &metrics.parts, &figures.unexpected);
    let plan = plan_at_end(&outcome.transcript, settings.dialect, &metrics.agent_plans);
    Ok(RunRecord {
        result: metrics,
        violations: protocol::check(&outcome.transcript),
        messages: outcome.transcript,
        step_results,
        dialect: settings.dialect,
        plan,
        planning_offered: settings.todo,
        agent_log: Some(log),
    })
}

/// The agent's log with agent-eval's notes on the session after it: the
/// parts never sent, the user messages the scenario did not send.
fn log_with_notes(
    mut log: String,
    parts: &[crate::results::record::PartMetrics],
    unexpected: &[(usize, String)],
) -> String {
    for (index, part) in parts.iter().enumerate() {
        if part.never_sent {
            log.push_str(&format!(
                "\nagent-eval: part {} of the session was never sent (the agent stopped before it)\n",
                index + 1
            ));
        }
    }
    for (index, text) in unexpected {
        log.push_str(&format!(
            "\nagent-eval: message {} is a user message the scenario did not send: {:?}\n",
            index + 1,
            crate::llm::session::one_line(text)
        ));
    }
    log
}

/// The turns the model served, each in the part its request had reached
/// (read from that request's own messages) with its planning calls. A
/// request that continues the one read before it is read on from it, only
/// its new messages: reading each afresh read the whole conversation
/// again on every turn.
fn served_turns(
    exchanges: &[crate::wire::record::Exchange],
    served: &[(usize, usize)],
    tasks: &[String],
) -> Vec<ServedTurn> {
    let mut map = SessionMap::new(tasks);
    let mut read: Option<&crate::wire::conversation::Conversation> = None;
    served
        .iter()
        .map(|&(at, todo_calls)| {
            let messages = exchanges
                .get(at)
                .and_then(|e| e.request.as_ref())
                .map(|r| &r.messages);
            let part = messages.map_or(0, |messages| {
                match read.and_then(|before| messages.added_to(before)) {
                    Some(added) => added.into_iter().for_each(|m| map.push(m)),
                    None => map = SessionMap::read(messages.iter(), tasks),
                }
                read = Some(messages);
                map.current()
            });
            ServedTurn { part, todo_calls }
        })
        .collect()
}

/// With `keep_transcripts`, copies a preset's own transcripts out of the
/// run's workspace before it goes.
fn keep_agent_transcripts(
    scenario: &Scenario,
    cell: &Cell,
    seed: u64,
    root: &std::path::Path,
    keep_transcripts: Option<&std::path::Path>,
) -> Result<(), RunError> {
    let from = scenario
        .agent
        .preset
        .and_then(|preset| super::presets::of(preset).transcript_dir());
    let (Some(dir), Some(from)) = (keep_transcripts, from) else {
        return Ok(());
    };
    super::keep_transcripts::keep(root, from, dir, (&scenario.name, cell, seed))
        .map(drop)
        .map_err(|source| RunError::KeepTranscripts {
            scenario: scenario.name.clone(),
            path: dir.to_path_buf(),
            source,
        })
}

/// Why the run is no measurement, if it is not. Over ACP the conversation
/// says whether the agent is broken: one that answered every prompt was
/// stopped on purpose, whatever its status.
fn verdict(outcome: &ExternalOutcome, timeout_s: u64) -> Option<String> {
    match &outcome.acp {
        Some(acp) => acp
            .failure
            .as_ref()
            .map(|why| acp_failure(&why.to_string(), &outcome.log)),
        None => broken(outcome, timeout_s),
    }
}

/// The run's final plan: the one its planning calls left, else (an agent
/// whose planning tool agent-eval does not read) the last it told over
/// ACP.
fn plan_at_end(messages: &[Message], dialect: Dialect, agent_plans: &[AgentPlan]) -> Vec<PlanItem> {
    let plan = final_plan(messages, dialect);
    match agent_plans.last() {
        Some(last) if plan.is_empty() => last.items(),
        _ => plan,
    }
}

/// Lines of the agent's output quoted when it is broken.
const TAIL_LINES: usize = 20;

/// Why the agent is broken rather than measured, when it never got a
/// model response: it died (a non-zero status or a signal), made no
/// request before its timeout, or sent only requests the mock could not
/// read. The message ends with the last lines of its output. An agent
/// that got at least one response and then failed is a measured run
/// (stop `agent_exit` or `timeout`, its output's tail in the run log).
fn broken(outcome: &ExternalOutcome, timeout_s: u64) -> Option<String> {
    let wire = &outcome.observed;
    if wire.turns > 0 {
        return None;
    }
    let why = if wire.malformed_requests > 0 {
        let first = outcome.exchanges.iter().find_map(|e| match &e.reply {
            Reply::Rejected { message, .. } if e.request.is_none() => Some(message.as_str()),
            _ => None,
        });
        format!(
            "it sent {} request(s) the mock endpoint could not read (first: {})",
            wire.malformed_requests,
            first.unwrap_or("?")
        )
    } else if wire.stop == StopKind::Timeout {
        format!("it made no model request within its timeout ({timeout_s} s) and was killed")
    } else {
        match outcome.exit_code {
            Some(0) => return None,
            Some(code) => format!("it exited with status {code} before any model response"),
            None => "it was killed by a signal before any model response".to_string(),
        }
    };
    let lines: Vec<&str> = outcome.log.lines().collect();
    let tail = lines
        .get(lines.len().saturating_sub(TAIL_LINES)..)
        .unwrap_or_default()
        .join("\n");
    Some(if tail.trim().is_empty() {
        format!("the agent is broken: {why}; it printed nothing")
    } else {
        format!("the agent is broken: {why}; its output ends:\n{tail}")
    })
}

/// Why an ACP conversation failed, with the last lines of the agent's
/// stderr (the run's log, which over ACP holds stderr and agent-eval's
/// `acp:` lines).
fn acp_failure(why: &str, log: &str) -> String {
    let lines: Vec<&str> = log.lines().filter(|l| !l.starts_with("acp: ")).collect();
    let tail = lines
        .get(lines.len().saturating_sub(TAIL_LINES)..)
        .unwrap_or_default()
        .join("\n");
    if tail.trim().is_empty() {
        format!("the ACP agent failed: {why}; it printed nothing on stderr")
    } else {
        format!("the ACP agent failed: {why}; its stderr ends:\n{tail}")
    }
}

/// The agent command with the cell's settings added to its environment,
/// and the cell's reminder text as its reminder pattern when it has none.
fn with_cell_env(agent: &AgentCommand, cell: &Cell, seed: u64) -> AgentCommand {
    let settings = &cell.loop_settings;
    let mut agent = agent.clone();
    let task_via = agent.task_via.name();
    let mut set = |key: &str, value: String| {
        agent.env.entry(key.to_string()).or_insert(value);
    };
    set(
        "AGENT_EVAL_TODO",
        if settings.todo { "1" } else { "0" }.into(),
    );
    set("AGENT_EVAL_DIALECT", settings.dialect.name().into());
    set("AGENT_EVAL_REMINDER", settings.reminder.name().into());
    if let ReminderSpec::S03 { threshold } = settings.reminder {
        set("AGENT_EVAL_NAG_THRESHOLD", threshold.to_string());
    }
    set("AGENT_EVAL_PLACEMENT", settings.placement.to_string());
    set("AGENT_EVAL_SEED", seed.to_string());
    set("AGENT_EVAL_TASK_VIA", task_via.into());
    // The wire also reads the cell's own reminder text as a reminder (the
    // interval and every-turn policies carry no `<reminder>` tag).
    if agent.reminder_pattern.is_none() {
        agent.reminder_pattern = settings.reminder.marker().map(str::to_string);
    }
    agent
}

/// The plan at the end, replayed from the accepted planning calls of the
/// transcript (a call is accepted when its result is not a dialect error).
fn final_plan(messages: &[Message], dialect: Dialect) -> Vec<PlanItem> {
    let dialect = dialect.get();
    let mut plan = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        if message.role != Role::Assistant {
            continue;
        }
        let results = messages
            .get(index + 1)
            .map_or(&[][..], Message::content_blocks);
        for block in message.content_blocks() {
            let ContentBlock::ToolUse { id, name, input } = block else {
                continue;
            };
            if !dialect.is_planning_tool(name) {
                continue;
            }
            let accepted = results.iter().any(|b| {
                matches!(b, ContentBlock::ToolResult { tool_use_id, content, .. }
                    if tool_use_id == id && !dialect.is_error(content))
            });
            if accepted && let Some(next) = dialect.plan_from_call(&plan, name, input) {
                plan = next;
            }
        }
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(yaml: &str) -> Cell {
        let scenario = crate::scenario::load_str(
            std::path::Path::new("t.yaml"),
            &format!("task: t\nsteps: [{{text: a}}]\nmodel: {{script: [{{text: done}}]}}\n{yaml}"),
        )
        .unwrap();
        Cell::of_agent(&scenario)
    }

    #[test]
    fn the_cell_is_told_to_the_agent() {
        let agent = AgentCommand::new("x");
        let told = with_cell_env(
            &agent,
            &cell("agent: {todo: false, nag: {threshold: 2, placement: append}}"),
            7,
        );
        let env: Vec<(&str, &str)> = told
            .env
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            env,
            [
                ("AGENT_EVAL_DIALECT", "s03"),
                ("AGENT_EVAL_NAG_THRESHOLD", "2"),
                ("AGENT_EVAL_PLACEMENT", "append"),
                ("AGENT_EVAL_REMINDER", "s03"),
                ("AGENT_EVAL_SEED", "7"),
                ("AGENT_EVAL_TASK_VIA", "stdin"),
                ("AGENT_EVAL_TODO", "0"),
            ]
        );
        assert_eq!(told.reminder_pattern, None);
        // The command's own env wins.
        let mut agent = AgentCommand::new("x");
        agent.env.insert("AGENT_EVAL_TODO".into(), "1".into());
        let told = with_cell_env(&agent, &cell("agent: {todo: false}"), 0);
        assert_eq!(told.env["AGENT_EVAL_TODO"], "1");
    }

    #[test]
    fn a_policy_without_a_tag_gives_its_text_as_the_reminder_pattern() {
        let interval = cell("agent: {reminder: interval}");
        let told = with_cell_env(&AgentCommand::new("x"), &interval, 0);
        assert!(
            told.reminder_pattern
                .is_some_and(|p| p.contains("TODO LIST UPDATE REQUIRED"))
        );
    }
}
