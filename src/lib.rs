//! agent-eval: measure the planning tools of coding agents (s03 TodoWrite
//! and its relatives) by running agents against mock LLMs over YAML
//! scenarios.
//!
//! The crate is built in floors; each imports only floors below it.
//!
//! 1. [`llm`] and [`metric`]: the conversation types, the `Model` trait and
//!    the protocol rule over them; the metric table. [`cancel`] (Ctrl-C) and
//!    [`input`] (opening user-named files without blocking) sit beside them.
//! 2. [`plan`]: the planning designs under test (dialects, the todo manager,
//!    reminder policies). [`sandbox`]: where runs act (workspace, contained
//!    processes, Landlock, the command runner and its read-only cache).
//! 3. [`agent`]: the loop and the model-facing tools, over `plan` and
//!    `sandbox`. [`model`]: the scripted, simulated, cassette and HTTP
//!    models.
//! 4. [`wire`]: any model behind the Anthropic, Chat Completions and
//!    Responses APIs (the server side).
//! 5. [`scenario`]: the YAML format, loaded strictly, and a scenario's cells.
//! 6. [`results`]: what an evaluation yields — run records, cell and
//!    scenario results, statistics, expectations, comparisons, baselines.
//! 7. [`eval`]: the engine — the plan of units, execution (built-in loop or
//!    outside agent), checks, sweeps.
//! 8. [`report`]: renderers of results (table, JSON, JUnit, Markdown, HTML,
//!    SVG, transcripts, run logs).
//! 9. [`app`]: one module per command; [`scaffold`] writes `init`'s files.
//!
//! Data flows upward: a [`scenario`] expands into cells, [`eval`] runs each
//! (the [`agent`] loop against a [`model`], or an outside agent against the
//! [`wire`]) in a [`sandbox`] workspace, [`results`] summarise the runs, and
//! [`report`] renders them.

pub mod agent;
pub mod app;
pub mod cancel;
pub mod eval;
pub mod input;
pub mod llm;
pub mod metric;
pub mod model;
pub mod plan;
pub mod report;
pub mod results;
pub mod sandbox;
pub mod scaffold;
pub mod scenario;
pub mod wire;
