//! The arguments of `calibrate` and how they become its config.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use crate::app::{AppError, CalibrateConfig};
use crate::transcript::{Format, GroupBy};

/// `calibrate --format`.
#[derive(Clone, Copy, ValueEnum)]
pub enum TranscriptFormat {
    /// Claude Code session transcripts (`~/.claude/projects/*/*.jsonl`).
    ClaudeCode,
    /// Codex rollouts (`~/.codex/sessions/**/rollout-*.jsonl`).
    Codex,
    /// agent-eval run logs (`run --log-dir`).
    RunLog,
}

/// `calibrate --group-by`: what makes sessions one group, the unit the
/// intervals resample and the held-out split keeps whole.
#[derive(Clone, Copy, ValueEnum)]
pub enum GroupByArg {
    /// A Claude Code project folder, a Codex working directory, a run
    /// log's scenario (the file's folder where none is named).
    Project,
    /// The folder holding the file.
    Folder,
    /// The file.
    File,
    /// Every session alone (sessions taken as independent).
    Session,
}

/// The arguments of `calibrate`.
#[derive(Args)]
pub struct CalibrateArgs {
    /// Transcript files or folders (every `*.jsonl` below a folder).
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Write the profile (YAML, numbers only) here.
    #[arg(long, value_name = "PROFILE.yaml")]
    pub out: Option<PathBuf>,
    /// Write the whole result as JSON here.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write a self-contained HTML page with plots here.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// The share of sessions held out from the fit to check it on.
    #[arg(long, default_value_t = 0.5, value_name = "SHARE")]
    pub holdout: f64,
    /// Seeds the split, the resampling and the simulations.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Keep only sessions one of whose model names matches this regular
    /// expression.
    #[arg(long, value_name = "REGEX")]
    pub model: Option<String>,
    /// What the files are (detected per file when not given).
    #[arg(long, value_enum)]
    pub format: Option<TranscriptFormat>,
    /// The most simulated runs per point of the fit (one a task shape).
    #[arg(long, default_value_t = crate::calibrate::DEFAULT_SIMULATED_RUNS, value_name = "N")]
    pub simulated_runs: usize,
    /// Count reminders inferred from a Claude Code version's policy (where
    /// the version records none) in reminder_compliance too, beside the
    /// rule's check on the sessions that do record them.
    #[arg(long)]
    pub infer_reminders: bool,
    /// What makes sessions one group (resampled and held out together).
    #[arg(long, value_enum, default_value = "project")]
    pub group_by: GroupByArg,
    /// One profile per model family: `--out` is then a folder that gets
    /// `<family>.yaml` for each family with enough sessions.
    #[arg(long, value_enum, value_name = "WHAT")]
    pub by: Option<CalibrateBy>,
    /// The fewest sessions a family needs under `--by model`.
    #[arg(long, default_value_t = crate::app::calibrate::by_model::MIN_SESSIONS, value_name = "N")]
    pub min_sessions: usize,
}

/// `calibrate --by`.
#[derive(Clone, Copy, ValueEnum)]
pub enum CalibrateBy {
    /// A model family: the model name without its date stamp or tag.
    Model,
}

impl CalibrateArgs {
    pub fn config(self) -> Result<CalibrateConfig, AppError> {
        let model = self
            .model
            .as_deref()
            .map(regex::Regex::new)
            .transpose()
            .map_err(|e| AppError::Usage(format!("--model: {e}")))?;
        Ok(CalibrateConfig {
            paths: self.paths,
            out: self.out,
            json: self.json,
            html: self.html,
            holdout: self.holdout,
            seed: self.seed,
            model,
            format: self.format.map(|f| match f {
                TranscriptFormat::ClaudeCode => Format::ClaudeCode,
                TranscriptFormat::Codex => Format::Codex,
                TranscriptFormat::RunLog => Format::RunLog,
            }),
            simulated_runs: self.simulated_runs.max(1),
            infer_reminders: self.infer_reminders,
            group_by: match self.group_by {
                GroupByArg::Project => GroupBy::Project,
                GroupByArg::Folder => GroupBy::Folder,
                GroupByArg::File => GroupBy::File,
                GroupByArg::Session => GroupBy::Session,
            },
            by_model: matches!(self.by, Some(CalibrateBy::Model)),
            min_sessions: self.min_sessions.max(1),
        })
    }
}
