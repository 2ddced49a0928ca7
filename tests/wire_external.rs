//! External agents through the wire: the example s03 agent (its own code,
//! talking HTTP) on the shipped scripted scenarios gives the same
//! transcript and metrics as the built-in loop; the runner's environment,
//! task delivery, grace period and timeout.

use crate::support;

use agent_eval::agent::StopKind;
use agent_eval::eval::execute::agent_process::{ExternalRun, run_external};
use agent_eval::eval::{Cell, checks, model_for, run_once, workspace_image};
use agent_eval::llm::{ContentBlock, Model, ModelError, ModelRequest, ModelResponse};
use agent_eval::plan::dialect::Dialect;
use agent_eval::scenario::{self, ModelSpec, NagThreshold, Placement, ReminderSpec, Scenario};
use agent_eval::scenario::{AgentCommand, TaskVia};
use std::path::{Path, PathBuf};
use std::time::Duration;

const AGENT: &str = env!("CARGO_BIN_EXE_s03-agent");

fn scripted_scenarios() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/scripted"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
            .collect();
    paths.sort();
    paths
}

/// The transcript as JSON with workspace paths (`<tmp>/agent-eval-XXXXXX`)
/// replaced by `{WORKDIR}`.
fn normalized(messages: &[agent_eval::llm::Message]) -> String {
    let text = serde_json::to_string_pretty(messages).unwrap();
    let tmp = std::env::temp_dir().canonicalize().unwrap();
    let prefix = format!("{}/agent-eval-", tmp.display());
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find(&prefix) {
        out.push_str(&rest[..at]);
        out.push_str("{WORKDIR}");
        let tail = &rest[at + prefix.len()..];
        let name_len = tail
            .find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(tail.len());
        rest = &tail[name_len..];
    }
    out.push_str(rest);
    mask_clock(&out)
}

/// `ls -l` prints modification times (`10:23`): two runs a minute apart
/// differ there, so `HH:MM` is masked on both sides.
fn mask_clock(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let window = chars.get(i..i + 5);
        if let Some([a, b, ':', c, d]) = window
            && [a, b, c, d].iter().all(|ch| ch.is_ascii_digit())
        {
            out.push_str("HH:MM");
            i += 5;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// The example agent, set up as the scenario's `agent:` settings describe
/// the loop (it honours s03 settings only).
fn agent_for(scenario: &Scenario) -> AgentCommand {
    let mut agent = AgentCommand::new(format!("'{AGENT}'"));
    agent.timeout_s = 120;
    let settings = &scenario.agent;
    agent.env.insert(
        "S03_TODO".into(),
        if settings.todo { "1" } else { "0" }.into(),
    );
    let threshold = match settings.reminder {
        ReminderSpec::S03 {
            threshold: NagThreshold::After(n),
        } => n.to_string(),
        ReminderSpec::S03 {
            threshold: NagThreshold::Off,
        }
        | ReminderSpec::Off => "off".into(),
        _ => panic!(
            "{}: the example agent only knows s03 reminders",
            scenario.name
        ),
    };
    agent.env.insert("S03_NAG_THRESHOLD".into(), threshold);
    agent.env.insert(
        "S03_PLACEMENT".into(),
        match settings.placement {
            Placement::Prepend => "prepend",
            Placement::Append => "append",
            Placement::Fold => panic!("{}: the example agent cannot fold", scenario.name),
        }
        .into(),
    );
    agent
}

/// Whether the example agent implements the scenario's loop settings.
fn s03_design(scenario: &Scenario) -> bool {
    let settings = &scenario.agent;
    settings.dialect == Dialect::S03
        && settings.repeat_guard.is_none()
        && settings.placement != Placement::Fold
        && matches!(
            settings.reminder,
            ReminderSpec::S03 { .. } | ReminderSpec::Off
        )
}

#[test]
fn the_example_agent_matches_the_built_in_loop_on_every_scripted_scenario() {
    let paths = scripted_scenarios();
    let mut compared = 0;
    let mut planning_tokens = 0;
    for (i, path) in paths.iter().enumerate() {
        let scenario = scenario::load(path).unwrap();
        if !matches!(scenario.model, ModelSpec::Script(_)) || !s03_design(&scenario) {
            continue;
        }
        let cell = Cell::of_agent(&scenario);
        let built_in = run_once(&scenario, &cell, 0).unwrap();
        compared += 1;

        let dir = workspace_image::create(&scenario.workspace).unwrap();
        let mut agent = agent_for(&scenario);
        // Half of the runs stream, half take one JSON body.
        if i % 2 == 1 {
            agent.env.insert("S03_STREAM".into(), "1".into());
        }
        let log = dir
            .root()
            .parent()
            .unwrap()
            .join(format!("wire-external-{i}.log"));
        let mut run = ExternalRun::new(dir.root(), &scenario.task, &agent);
        run.max_turns = Some(scenario.agent.max_turns);
        run.dialect = Dialect::S03;
        let outcome = run_external(model_for(&scenario, &cell, 0).unwrap(), &run).unwrap();
        let _ = std::fs::remove_file(&log);
        let name = &scenario.name;
        let metrics = &built_in.result;
        let wire = &outcome.observed;
        assert_eq!(wire.stop, metrics.stop, "{name}: stop\n{}", outcome.log);
        assert_eq!(wire.turns, metrics.turns, "{name}: turns");
        assert_eq!(
            wire.reminders_at, metrics.reminders_at,
            "{name}: reminders_at"
        );
        assert_eq!(wire.todo_calls, metrics.todo_calls, "{name}: todo_calls");
        assert_eq!(
            wire.unknown_tool_calls, metrics.unknown_tool_calls,
            "{name}: unknown"
        );
        assert_eq!(
            wire.rejected_todo_updates, metrics.rejected_todo_updates,
            "{name}: rejected"
        );
        assert_eq!(
            wire.protocol_violations, metrics.protocol_violations,
            "{name}: violations"
        );
        assert_eq!(wire.malformed_requests, 0, "{name}");
        // The price of planning, off the wire as off the transcript.
        assert_eq!(wire.price, metrics.price(), "{name}: price of planning");
        assert!(metrics.context_tokens > 0, "{name}");
        planning_tokens += metrics.planning_tokens;
        let steps: Vec<Option<bool>> = scenario
            .steps
            .iter()
            .map(|s| s.check.as_ref().map(|c| checks::holds(c, &dir)))
            .collect();
        assert_eq!(steps, built_in.step_results, "{name}: steps");
        assert_eq!(
            normalized(&outcome.transcript),
            normalized(&built_in.messages),
            "{name}: transcript"
        );
    }
    assert!(
        compared >= 7,
        "only {compared} scripted s03 scenarios compared"
    );
    assert!(planning_tokens > 0, "no scenario planned");
}

/// Ends its turn at once; remembers nothing.
struct Done;

impl Model for Done {
    fn respond(&mut self, _: &ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        Ok(ModelResponse::from_blocks(vec![ContentBlock::text("ok")]))
    }
}

fn shell_run(
    command: &str,
    via: TaskVia,
    timeout_s: u64,
) -> agent_eval::eval::execute::agent_process::ExternalOutcome {
    let dir = tempfile::tempdir().unwrap();
    let mut agent = AgentCommand::new(command);
    agent.task_via = via;
    agent.timeout_s = timeout_s;
    agent.env.insert("EXTRA".into(), "from-scenario".into());
    let mut run = ExternalRun::new(dir.path(), "the task", &agent);
    run.grace = Duration::from_millis(300);
    run_external(Box::new(Done), &run).unwrap()
}

/// The real keys are set in the environment of a process of its own:
/// setting them here would reach every test running beside this one.
#[test]
fn the_agent_gets_the_mock_environment_and_no_real_key() {
    support::run_alone(
        module_path!(),
        "the_agent_gets_the_mock_environment_and_no_real_key_alone",
        &[
            ("ANTHROPIC_AUTH_TOKEN", "real-secret"),
            ("OPENAI_ORG_ID", "real-org"),
        ],
    );
}

#[test]
#[ignore = "run in a process of its own by the_agent_gets_the_mock_environment_and_no_real_key"]
fn the_agent_gets_the_mock_environment_and_no_real_key_alone() {
    assert_eq!(
        std::env::var("ANTHROPIC_AUTH_TOKEN").as_deref(),
        Ok("real-secret")
    );
    let outcome = shell_run(
        "env | grep -E '^(ANTHROPIC|OPENAI|MODEL_ID|EXTRA|AGENT_TASK)' | sort; cat; pwd",
        TaskVia::Stdin,
        60,
    );
    let log = &outcome.log;
    assert!(
        !log.contains("real-secret") && !log.contains("real-org"),
        "{log}"
    );
    assert!(
        log.contains("ANTHROPIC_API_KEY=agent-eval-dummy-key"),
        "{log}"
    );
    assert!(
        log.contains("ANTHROPIC_BASE_URL=http://127.0.0.1:"),
        "{log}"
    );
    assert!(
        log.contains("/v1\n") && log.contains("OPENAI_BASE_URL=http://127.0.0.1:"),
        "{log}"
    );
    assert!(log.contains("MODEL_ID=agent-eval-mock"), "{log}");
    assert!(log.contains("EXTRA=from-scenario"), "{log}");
    assert!(log.contains("the task"), "{log}");
    assert!(!log.contains("AGENT_TASK"), "{log}");
    assert_eq!(outcome.exit_code, Some(0));
    // It never asked the model anything: it stopped on its own.
    assert_eq!(outcome.observed.stop, StopKind::AgentExit);
    assert_eq!(outcome.observed.turns, 0);
}

#[test]
fn the_task_can_come_as_an_argument_or_in_the_environment() {
    let outcome = shell_run("printf '[%s]' ", TaskVia::Arg, 60);
    assert_eq!(outcome.log, "[the task]");
    let outcome = shell_run("printf '<%s>' \"$AGENT_TASK\"; cat", TaskVia::Env, 60);
    assert_eq!(outcome.log, "<the task>");
}

#[test]
fn a_finished_model_and_a_lingering_agent_end_after_the_grace_period() {
    // Asks once (the model ends its turn), then hangs with a child.
    let command = "curl -s -o /dev/null -H 'content-type: application/json' \
        -d '{\"model\":\"m\",\"max_tokens\":5,\"tools\":[{\"name\":\"bash\",\"input_schema\":{}}],\"messages\":[{\"role\":\"user\",\"content\":\"t\"}]}' \
        \"$ANTHROPIC_BASE_URL/v1/messages\"; sleep 300 & sleep 300";
    if support::command("curl").arg("--version").output().is_err() {
        support::skip_unless_required("curl is not installed");
        return;
    }
    let outcome = shell_run(command, TaskVia::Stdin, 120);
    assert!(outcome.stopped_after_grace, "{}", outcome.log);
    assert_eq!(outcome.observed.stop, StopKind::EndTurn);
    assert_eq!(outcome.observed.turns, 1);
}

#[test]
fn the_timeout_kills_the_whole_process_group() {
    let child = support::unique_sleep(4);
    let command = format!("(sleep {child}) & sleep 300");
    let outcome = shell_run(&command, TaskVia::Stdin, 1);
    assert_eq!(outcome.observed.stop, StopKind::Timeout);
    assert_eq!(
        support::gone_soon(&child),
        Vec::<u32>::new(),
        "a child of the agent outlived the run"
    );
}

#[test]
fn the_example_agent_matches_the_built_in_loop_on_simulated_scenarios_seed_for_seed() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/simulated");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    paths.sort();
    let mut runs = 0;
    for path in &paths {
        let scenario = scenario::load(path).unwrap();
        if !matches!(scenario.model, ModelSpec::Simulate(_)) || !s03_design(&scenario) {
            continue;
        }
        let cell = Cell::of_agent(&scenario);
        for seed in 0..3 {
            let built_in = run_once(&scenario, &cell, seed).unwrap();
            let workspace = workspace_image::create(&scenario.workspace).unwrap();
            let agent = agent_for(&scenario);
            let mut run = ExternalRun::new(workspace.root(), &scenario.task, &agent);
            run.max_turns = Some(scenario.agent.max_turns);
            let outcome = run_external(model_for(&scenario, &cell, seed).unwrap(), &run).unwrap();
            let name = format!("{} seed {seed}", scenario.name);
            let metrics = &built_in.result;
            let wire = &outcome.observed;
            assert_eq!(wire.stop, metrics.stop, "{name}: stop");
            assert_eq!(wire.turns, metrics.turns, "{name}: turns");
            assert_eq!(wire.reminders_at, metrics.reminders_at, "{name}");
            assert_eq!(wire.todo_calls, metrics.todo_calls, "{name}");
            assert_eq!(
                wire.unknown_tool_calls, metrics.unknown_tool_calls,
                "{name}"
            );
            assert_eq!(
                wire.rejected_todo_updates, metrics.rejected_todo_updates,
                "{name}"
            );
            assert_eq!(
                wire.protocol_violations, metrics.protocol_violations,
                "{name}"
            );
            assert_eq!(wire.price, metrics.price(), "{name}: price of planning");
            assert!(metrics.planning_tokens > 0, "{name}");
            let steps: Vec<Option<bool>> = scenario
                .steps
                .iter()
                .map(|s| s.check.as_ref().map(|c| checks::holds(c, &workspace)))
                .collect();
            assert_eq!(steps, built_in.step_results, "{name}: steps");
            assert_eq!(
                normalized(&outcome.transcript),
                normalized(&built_in.messages),
                "{name}: transcript"
            );
            runs += 1;
        }
    }
    assert!(runs >= 3, "no simulated scenario was run");
}

#[test]
fn a_daemon_that_left_the_process_group_is_killed_too() {
    if support::command("setsid")
        .arg("--version")
        .output()
        .is_err()
    {
        support::skip_unless_required("setsid is not installed");
        return;
    }
    let daemon = support::unique_sleep(5);
    let command = format!("setsid sh -c 'sleep {daemon}' > /dev/null 2>&1 < /dev/null & exit 0");
    let outcome = shell_run(&command, TaskVia::Stdin, 60);
    assert_eq!(outcome.exit_code, Some(0));
    assert_eq!(
        support::gone_soon(&daemon),
        Vec::<u32>::new(),
        "a daemon of the agent outlived the run"
    );
}
