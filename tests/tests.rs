//! The integration tests: one crate, one binary (`cargo test --test
//! integration`), each file of `tests/` one module of it.
//!
//! One binary instead of one per file: each integration-test binary links
//! the whole library (about 200 MB of debug information each), so 58 of
//! them cost most of a `cargo test` build after any change to `src/`
//! (figures in docs/architecture.md). `support` holds what every module
//! shares: the command builder for `agent-eval` and other processes (it
//! clears the CI engines' variables), the one way to skip a test for a
//! missing tool, and the way to run a test in a process of its own.
//!
//! A test that needs process state of its own (the process-wide Ctrl-C
//! flag, variables set in its environment, its own memory peak or its
//! descriptor count) stays in this binary and runs itself again in a
//! child process through [`support::run_alone`], filtered to its name;
//! there is no second test binary. `tests/layout.rs`'s check fails when
//! a file of `tests/` is neither a module here nor declared in Cargo.toml,
//! so no test file is silently left out of the build.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test, benchmark or example: a failed assumption is a failure to see"
)]

mod fake_api;
mod support;

mod acp;
mod action;
mod agent_dialect_probes;
mod agent_loop;
mod agent_presets;
mod agent_suggestion;
mod calibrate_hostile;
mod calibrate_recipe;
mod calibration;
mod calibration_real;
mod calibration_recovery;
mod cassettes;
mod ci_github;
mod ci_injection;
mod ci_recipes;
mod ci_reports;
mod claude_code_tasks;
mod cli;
mod cli_init;
mod cli_ux;
mod containment;
mod contradictions;
mod copilot;
mod copilot_sql_heap;
mod determinism;
mod dialect_properties;
mod dialect_schemas;
mod dialects;
mod floors;
mod function_length;
mod fuzz_inputs;
mod history;
mod history_baseline;
mod history_hostile;
mod history_profile;
mod hostile_files;
mod html_report;
mod http_cancel;
mod integrity;
mod layout;
mod metrics;
mod model_http;
mod output_targets;
mod read_only_commands;
mod readme;
mod readme_ci;
mod readme_figures;
mod readme_tour;
mod real_agents;
mod real_agents_repeat;
mod real_model_costs;
mod reaper;
mod reuse;
mod sandbox;
mod secrets;
mod sessions;
mod simulated_model;
mod stream;
mod temp_paths;
mod terminal_width;
mod todo_properties;
mod transcripts;
mod transcripts_real;
mod wire_external;
mod wire_reminders;
mod wire_robustness;
mod wire_roundtrip;
mod wire_run_agent;
mod wire_sdk;
mod wire_serve_cli;
mod wire_server;
