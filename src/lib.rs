//! agent-eval: measure the s03 TodoWrite design against a mock LLM.
//!
//! The data flows through the modules in order: [`scenario`] loads and
//! validates YAML; [`agent`] is the loop with its tools, TodoManager and
//! nag; [`model`] holds the scripted and simulated mock LLMs; [`eval`] runs
//! matrices of runs in fresh workspaces and measures them; [`report`]
//! renders the results as a table, JSON or JUnit.

pub mod agent;
pub mod app;
pub mod cancel;
pub mod eval;
pub mod llm;
pub mod model;
pub mod report;
pub mod scaffold;
pub mod scenario;
pub mod wire;
