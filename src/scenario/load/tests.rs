//! Loading scenarios end to end: defaults, spelling variants, positions
//! of errors, files named twice, axes and reminder policies.

use super::discover::tidy;
use super::*;
use crate::scenario::{
    Axis, AxisValue, CellSelector, Expectation, ModelSpec, NagThreshold, Placement, ReminderSpec,
};

fn load(text: &str) -> Result<Scenario, LoadError> {
    load_str(Path::new("dir/my_scenario.yaml"), text)
}

#[test]
fn defaults_fill_what_is_left_out() {
    let s = load(
        "task: t\nsteps:\n  - text: a\n  - {id: x, text: b}\nmodel:\n  script: [{text: hi}]\n",
    )
    .unwrap();
    assert_eq!(s.name, "my_scenario");
    assert_eq!(
        s.steps.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
        ["1", "x"]
    );
    assert_eq!(s.steps_total(), 0);
    assert!(s.agent.todo);
    assert_eq!(s.agent.nag_threshold(), Some(NagThreshold::After(3)));
    assert_eq!(s.agent.placement, Placement::Prepend);
    assert_eq!(s.agent.max_turns, 50);
    assert!(matches!(s.model, ModelSpec::Script(ref r) if r.len() == 1));
}

#[test]
fn off_may_be_written_bare_or_quoted() {
    for off in ["off", "\"off\""] {
        let s = load(&format!(
            "task: t\nagent: {{nag: {{threshold: {off}}}}}\nmodel:\n  script: [{{text: hi}}]\n"
        ))
        .unwrap();
        assert_eq!(s.agent.nag_threshold(), Some(NagThreshold::Off));
    }
    assert!(
        load("task: t\nagent: {nag: {threshold: true}}\nmodel:\n  script: [{text: hi}]\n").is_err()
    );
}

#[test]
fn expectations_round_trip_through_json() {
    let s = load(
        "task: t\nmodel:\n  script: [{text: hi}]\nexpect:\n  - reminders_at: [4, 5]\n  - stop: max_turns\n  - where: {todo: true, nag_threshold: off}\n    completion_rate: {at_least: 0.8}\n  - compare: {a: {todo: true}, b: {todo: false}}\n    full_completion_rate_p_value: {at_most: 0.05}\n",
    )
    .unwrap();
    assert_eq!(s.expect.len(), 4);
    let json = serde_json::to_string(&s.expect).unwrap();
    let back: Vec<Expectation> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, s.expect);
    let Expectation::Bound { selector, .. } = &s.expect[2] else {
        panic!("a bound expected");
    };
    assert_eq!(
        selector,
        &CellSelector::new(vec![
            (Axis::Todo, AxisValue::Bool(true)),
            (Axis::NagThreshold, AxisValue::Threshold(NagThreshold::Off)),
        ])
    );
}

#[test]
fn errors_name_file_line_and_column() {
    let e = load("task: t\nmodel:\n  script: [{text: hi}]\nsteps:\n  - text: a\n    chek: {file: x, exists: true}\n").unwrap_err();
    assert_eq!(e.file, Path::new("dir/my_scenario.yaml"));
    assert_eq!(e.position, Some((6, 5)));
    assert!(
        e.to_string()
            .starts_with("dir/my_scenario.yaml:6:5: unknown field `chek`"),
        "{e}"
    );
}

#[test]
fn errors_found_after_parsing_keep_their_line() {
    let at = |text: &str| load(text).unwrap_err().position.map(|p| p.0);
    let simulated = "task: t\nsteps:\n  - text: a\n    do: [{tool: bash, input: {command: ls}}]\n";
    // A duplicate id: the second one.
    assert_eq!(
        at(
            "task: t\nsteps:\n  - {id: x, text: a}\n  - text: b\n  - {id: x, text: c}\nmodel:\n  script: [{text: hi}]\n"
        ),
        Some(5)
    );
    // An implicit id colliding with a written one: the step without one.
    assert_eq!(
        at(
            "task: t\nsteps:\n  - {id: '2', text: a}\n  - text: b\nmodel:\n  script: [{text: hi}]\n"
        ),
        Some(4)
    );
    // A simulate parameter out of range: its own line.
    assert_eq!(
        at(&format!(
            "{simulated}model:\n  simulate:\n    sharpness: 2\n    recall_floor: 3\n"
        )),
        Some(8)
    );
    // A runs value out of range: its axis.
    assert_eq!(
        at(&format!(
            "{simulated}model:\n  simulate: {{}}\nruns:\n  todo: [true]\n  simulate.recall_floor: [0.5, 2]\n"
        )),
        Some(9)
    );
    // A scripted model with a simulate axis, and a simulated one without `do`.
    assert_eq!(
        at("task: t\nmodel:\n  script: [{text: hi}]\nruns:\n  simulate.attention_span: [1]\n"),
        Some(5)
    );
    assert_eq!(
        at("task: t\nsteps:\n  - text: a\nmodel:\n  simulate: {}\n"),
        Some(5)
    );
    // A seed listed twice.
    assert_eq!(
        at("task: t\nmodel:\n  script: [{text: hi}]\nruns:\n  seeds: [1, 2, 1]\n"),
        Some(5)
    );
}

#[test]
fn a_file_named_twice_is_loaded_once() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("x.yaml");
    std::fs::write(&file, "task: t\nmodel:\n  script: [{text: hi}]\n").unwrap();
    let dotted = dir.path().join(".").join("x.yaml");
    let (scenarios, errors) = load_all(&[file.clone(), dotted, dir.path().to_path_buf()]);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(scenarios.len(), 1);
    assert_eq!(scenarios[0].file, file);
    assert_eq!(tidy(Path::new("./a/./b.yaml")), Path::new("a/b.yaml"));
    assert_eq!(
        scenarios[0].sha256,
        sha256_hex(b"task: t\nmodel:\n  script: [{text: hi}]\n")
    );
    assert_eq!(
        sha256_hex(b"abc"),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}

#[test]
fn reminder_policies_by_name_or_map() {
    let with = |agent: &str| {
        load(&format!(
            "task: t\nagent: {agent}\nmodel:\n  script: [{{text: hi}}]\n"
        ))
    };
    let s = with("{reminder: interval}").unwrap();
    assert_eq!(s.agent.reminder, ReminderSpec::Interval { every: 6 });
    let s = with("{reminder: {policy: claude-code, turns_between: 4}, nag: {placement: fold}}")
        .unwrap();
    assert_eq!(
        s.agent.reminder,
        ReminderSpec::ClaudeCode {
            turns_since_write: 10,
            turns_between: 4
        }
    );
    assert_eq!(s.agent.placement, Placement::Fold);
    for bad in [
        "{reminder: nope}",
        "{reminder: {policy: interval, threshold: 3}}",
        "{reminder: {every: 3}}",
        "{reminder: {policy: interval, every: 0}}",
    ] {
        assert!(with(bad).is_err(), "{bad}");
    }
}

#[test]
fn a_reminder_and_a_nag_threshold_are_two_thresholds() {
    let e = load(
        "task: t\nagent:\n  nag: {threshold: 2}\n  reminder: off\nmodel:\n  script: [{text: hi}]\n",
    )
    .unwrap_err();
    assert_eq!(e.position.map(|p| p.0), Some(4), "{e}");
    assert!(
        e.message.contains("agent.reminder and agent.nag.threshold"),
        "{e}"
    );
    // The placement alone is no conflict.
    load("task: t\nagent:\n  nag: {placement: append}\n  reminder: off\nmodel:\n  script: [{text: hi}]\n").unwrap();
}

#[test]
fn runs_vary_any_axis() {
    let s = load(
        "task: t\nsteps:\n  - {text: a, do: [{tool: bash, input: {command: ls}}]}\nmodel:\n  simulate: {}\nruns:\n  dialect: [s03]\n  reminder: [off, {policy: interval, every: 2}]\n  placement: [fold]\n  simulate.attention_span: [100, 200]\n",
    )
    .unwrap();
    let names: Vec<String> = s.runs.axes.iter().map(|(a, _)| a.name()).collect();
    assert_eq!(
        names,
        [
            "dialect",
            "reminder",
            "placement",
            "simulate.attention_span"
        ]
    );
    for bad in [
        "runs:\n  simulate.nope: [1]\n",
        "runs:\n  bogus: [1]\n",
        "runs:\n  simulate.recall_floor: [2]\n",
        "runs:\n  dialect: []\n",
    ] {
        let text = format!(
            "task: t\nsteps:\n  - {{text: a, do: [{{tool: bash, input: {{command: ls}}}}]}}\nmodel:\n  simulate: {{}}\n{bad}"
        );
        assert!(load(&text).is_err(), "{bad}");
    }
    let scripted =
        load("task: t\nmodel:\n  script: [{text: hi}]\nruns:\n  simulate.attention_span: [1]\n");
    assert!(scripted.is_err());
}

/// `agent.env` is checked as `execve` will see it, with its line: a
/// name holding `=` would silently set another variable, a NUL would
/// fail every run, and the run mark is the harness's.
#[test]
fn agent_env_names_and_values_are_checked_at_load() {
    let with_env = |agent: &str, env: &str| {
        load(&format!(
            "task: t\nagent:\n  {agent}\n  env:\n    {env}\nmodel:\n  script: [{{text: hi}}]\n"
        ))
    };
    for agent in ["command: 'true'", "preset: codex"] {
        for (env, says) in [
            ("\"A=B\": x", "is not a variable name"),
            ("\"\": x", "is not a variable name"),
            ("A: \"x\\0y\"", "holds a NUL byte"),
            ("AGENT_EVAL_RUN_MARK: x", "may not set AGENT_EVAL_RUN_MARK"),
        ] {
            let err = with_env(agent, env).unwrap_err().to_string();
            assert!(err.contains("my_scenario.yaml:5:"), "{env}: {err}");
            assert!(err.contains(says), "{env}: {err}");
        }
        with_env(agent, "HOME: ./home").unwrap();
    }
}

/// Keys of `agent:` that conflict: each refused with the words it always
/// had, byte for byte, at `reminder:` or else at `agent:`.
#[test]
fn agent_conflicts_say_what_they_always_said() {
    let cases = [
        (
            "agent:\n  nag: {threshold: 2}\n  reminder: off\n",
            "dir/my_scenario.yaml:6:13: agent.reminder and agent.nag.threshold both set a reminder policy; write the threshold as `reminder: {policy: s03, threshold: N}` or drop one",
        ),
        (
            "agent:\n  preset: claude-code\n  command: x\n",
            "dir/my_scenario.yaml:4:1: agent.preset and agent.command both name the agent to run; keep one",
        ),
        (
            "agent:\n  preset: claude-code\n  sandbox: true\n",
            "dir/my_scenario.yaml:4:1: agent.task_via (but `acp`), agent.reminder_pattern and agent.sandbox are a command's; a preset sets them itself (it takes agent.env, agent.timeout_s and `task_via: acp`)",
        ),
        (
            "agent:\n  command: \" \"\n",
            "dir/my_scenario.yaml:4:1: agent.command is empty",
        ),
    ];
    for (agent, said) in cases {
        let text = format!("task: t\nmodel:\n  script: [{{text: hi}}]\n{agent}");
        assert_eq!(load(&text).unwrap_err().to_string(), said, "{agent}");
    }
}
