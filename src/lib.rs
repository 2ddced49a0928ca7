//! agent-eval: measure the planning tools of coding agents (s03 TodoWrite
//! and its relatives) by running agents against mock LLMs over YAML
//! scenarios.
//!
//! # The map
//!
//! The crate is built in floors, bottom to top; a module imports only
//! modules on floors below its own, and no two files import each other
//! (`tests/floors.rs` checks the floors; docs/architecture.md is the long
//! map).
//!
//! **Floor 1, the ground.** [`llm`] holds the conversation (messages,
//! content blocks, tool schemas), the [`llm::Model`] trait every model
//! backend implements and the protocol rule over a conversation.
//! [`metric`] is the table of every metric a report shows, one entry each.
//! [`cancel`] turns Ctrl-C and SIGTERM into a flag the long loops read, and
//! [`input`] opens the files a user names without blocking on a FIFO, and
//! [`lenient`] reads foreign JSON formats into records a newer writer
//! cannot fail.
//!
//! **Floor 2, what is measured and where it acts.** [`plan`] holds the
//! planning designs under test: the plan items, the dialects (one file and
//! one JSON schema file each, [`plan::dialect`]), the s03 todo manager and
//! the reminder policies. [`sandbox`] is where a run acts: its workspace,
//! contained processes, the Landlock rules, the command runner and the
//! cache of read-only commands.
//!
//! **Floor 3, the agents and the models.** [`agent`] is the built-in agent
//! loop and the model-facing tools (`bash`, `read_file`, `write_file`,
//! `edit_file`) over `plan` and `sandbox`. [`model`] holds the models it
//! talks to: scripted, simulated, cassette and real HTTP models.
//!
//! **Floor 4, the wire.** [`wire`] serves any model behind the Anthropic
//! Messages, Chat Completions and Responses APIs, so an outside agent (a
//! real CLI) can be driven by a mock; it records the exchanges and what
//! is observed on them. Beside it, [`acp`] is the Agent Client Protocol's
//! client side (agent-eval as the editor of an agent that speaks ACP on its
//! stdio: sessions, prompts, plan and tool updates, typed), and
//! [`transcript`] reads the logs agents
//! write of their own sessions (Claude Code, Codex, agent-eval run logs)
//! into one session / part / turn record for calibration.
//!
//! **Floor 5, the input.** [`scenario`] is the YAML format, loaded
//! strictly with errors at their line and column, and the cells a
//! scenario's axes expand into. [`scaffold`] holds the files `init`
//! writes.
//!
//! **Floor 6, the results.** [`results`] is what an evaluation yields: the
//! run record, cell and scenario results, statistics, expectations and
//! their verdicts, comparisons, the JSON report read back and merged,
//! baselines and the history database.
//!
//! **Floor 7, the engine.** [`eval`] plans the units (scenario, cell,
//! seed), runs each (the built-in loop, or an outside agent against the
//! wire), runs the checks and the sweeps, and hands its events and
//! results to whoever reports them.
//!
//! **Floor 8, calibration.** [`calibrate`] measures and fits the simulated
//! model's parameters on [`transcript`] sessions, running the engine to
//! compare them.
//!
//! **Floor 9, the renderers.** [`report`] turns results into a table,
//! JSON, JUnit, Markdown, HTML, SVG charts, transcripts and run logs; it
//! reads results and never the engine.
//!
//! **Floor 10, the commands.** [`app`] has one module per command (`run`,
//! `sweep`, `check`, `replay`, `serve`, `init`, ...), the argument parsing
//! and the exit statuses; `main.rs` only calls it.
//!
//! # The data flow
//!
//! A [`scenario`] file is loaded and expanded into cells; [`eval`] runs
//! each cell's seeds, each run being the [`agent`] loop against a
//! [`model`] with a [`plan`] dialect and reminder policy in a [`sandbox`]
//! workspace (or an outside agent against the [`wire`]); the runs become
//! [`results`] (records, summaries, verdicts); [`report`] renders them; and
//! [`app`] ties a command's flags to all of it.

pub mod acp;
pub mod agent;
pub mod app;
pub mod calibrate;
pub mod cancel;
pub mod eval;
pub mod input;
pub mod lenient;
pub mod llm;
pub mod metric;
pub mod model;
pub mod plan;
pub mod report;
pub mod results;
pub mod sandbox;
pub mod scaffold;
pub mod scenario;
pub mod transcript;
pub mod wire;
