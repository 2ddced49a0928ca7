//! `agent-eval calibrate PATH...`: the simulated model fitted to an agent's
//! own sessions, in phases — admit (the flags and every output path),
//! read (the sessions, bad lines skipped and counted), calibrate (measure,
//! fit, check on held-out sessions), write (profile, JSON, HTML), print,
//! status (2 when no session could be read). docs/calibration.md.

pub mod by_model;
mod html;
mod read;
mod render;

use std::io::Write;
use std::path::PathBuf;

use super::same_file::{Named, refuse_overlaps};
use super::{AppError, Status, check_output_path, write_atomic};
use crate::calibrate::{self, Calibration, Options};
use crate::transcript::{Format, GroupBy, Session};
pub use read::{ReadOutcome, read_sessions};

/// What `calibrate` was asked to do.
#[derive(Debug, Clone)]
pub struct CalibrateConfig {
    pub paths: Vec<PathBuf>,
    pub out: Option<PathBuf>,
    pub json: Option<PathBuf>,
    pub html: Option<PathBuf>,
    pub holdout: f64,
    pub seed: u64,
    /// Keep only sessions one of whose model names matches.
    pub model: Option<regex::Regex>,
    pub format: Option<Format>,
    /// The most simulated runs per point of the fit.
    pub simulated_runs: usize,
    /// What makes sessions one group (the unit of independence).
    pub group_by: GroupBy,
    /// Count inferred reminders in reminder_compliance too.
    pub infer_reminders: bool,
    /// `--by model`: one profile per model family (`out` is then a folder).
    pub by_model: bool,
    /// The fewest sessions a family needs under `--by model`.
    pub min_sessions: usize,
}

/// Runs `calibrate`.
pub fn calibrate(
    config: &CalibrateConfig,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Status, AppError> {
    admit(config)?;
    let outcome = read_sessions(&config.paths, config.format, config.group_by);
    report_bad(&outcome, err);
    let read = outcome.sessions.len();
    let sessions = keep_models(outcome.sessions.clone(), config.model.as_ref());
    if sessions.is_empty() {
        let why = if read > 0 {
            format!("none of the {read} sessions read names a model matching --model")
        } else {
            format!("no session could be read from {} file(s)", outcome.files)
        };
        let _ = writeln!(err, "error: {why}");
        return Ok(Status::BadInput);
    }
    let options = Options {
        holdout: config.holdout,
        seed: config.seed,
        simulated_runs: config.simulated_runs,
        infer_reminders: config.infer_reminders,
    };
    if config.by_model {
        return calibrate_by_model(config, sessions, &options, out);
    }
    let mut result =
        calibrate::calibrate(&sessions, &options).map_err(|e| AppError::Usage(e.to_string()))?;
    if crate::cancel::requested() {
        return Err(AppError::Interrupted);
    }
    if result.duplicates > 0 {
        let _ = writeln!(
            err,
            "warning: {} session(s) read twice (the same session id or the same content) counted once",
            result.duplicates
        );
    }
    result.fitted_on.files = outcome.files;
    result.fitted_on.inputs_hash = outcome.inputs_hash.clone();
    let profile_hash = write_outputs(config, &result, &outcome)?;
    let text = render::terminal(
        &result,
        &outcome,
        config.out.as_deref(),
        profile_hash.as_deref(),
    );
    out.write_all(text.as_bytes()).map_err(AppError::stdout)?;
    Ok(Status::Passed)
}

/// Flags and outputs checked before anything is read.
fn admit(config: &CalibrateConfig) -> Result<(), AppError> {
    if !(0.0..1.0).contains(&config.holdout) {
        return Err(AppError::Usage(format!(
            "--holdout must be in [0, 1), got {}",
            config.holdout
        )));
    }
    if config.paths.is_empty() {
        return Err(AppError::Usage(
            "calibrate needs at least one file or folder".into(),
        ));
    }
    if config.by_model && config.html.is_some() {
        return Err(AppError::Usage(
            "--html draws one calibration; with --by model, run calibrate --model REGEX --html for a family".into(),
        ));
    }
    // With --by model, --out is a folder of profiles: checked against the
    // inputs like a file (never one of them, never inside one).
    let outputs: Vec<Named<'_>> = [
        ("--out", &config.out),
        ("--json", &config.json),
        ("--html", &config.html),
    ]
    .into_iter()
    .filter_map(|(flag, path)| path.as_deref().map(|p| Named::new(flag, p)))
    .collect();
    for output in &outputs {
        if !(config.by_model && output.role == "--out") {
            check_output_path(output.path)?;
        }
    }
    let inputs: Vec<Named<'_>> = config
        .paths
        .iter()
        .map(|p| Named::new("a transcript path", p))
        .collect();
    refuse_overlaps(&outputs, &inputs)
}

/// `--by model`: a calibration a family with enough sessions, its profile
/// written as `DIR/<family>.yaml`, the table printed, and `--json` the
/// families' counts and parameters.
fn calibrate_by_model(
    config: &CalibrateConfig,
    sessions: Vec<Session>,
    options: &Options,
    out: &mut dyn Write,
) -> Result<Status, AppError> {
    let families = by_model::by_family(sessions);
    let mut results = by_model::calibrate_families(families, options, config.min_sessions)
        .map_err(|e| AppError::Usage(e.to_string()))?;
    if crate::cancel::requested() {
        return Err(AppError::Interrupted);
    }
    if let Some(dir) = &config.out {
        std::fs::create_dir_all(dir).map_err(|source| AppError::Write {
            path: dir.clone(),
            source,
        })?;
        for r in &mut results {
            let Some(calibration) = &r.calibration else {
                continue;
            };
            let path = by_model::profile_path(dir, &r.family);
            write_atomic(&path, calibration.profile().to_yaml().as_bytes())?;
            r.profile = Some(path);
        }
    }
    if let Some(path) = &config.json {
        let text = format!(
            "{}\n",
            serde_json::to_string_pretty(&by_model_json(&results)).unwrap_or_default()
        );
        write_atomic(path, text.as_bytes())?;
    }
    let text = by_model::table(&results, config.min_sessions);
    out.write_all(text.as_bytes())
        .map_err(|source| AppError::Write {
            path: "stdout".into(),
            source,
        })?;
    Ok(Status::Passed)
}

/// `--json` under `--by model`: each family's sessions and, where it was
/// calibrated, its profile.
fn by_model_json(results: &[by_model::FamilyResult]) -> serde_json::Value {
    let families: Vec<serde_json::Value> = results
        .iter()
        .map(|r| {
            serde_json::json!({
                "family": r.family,
                "sessions": r.sessions,
                "profile": r.calibration.as_ref().map(|c| c.profile()),
            })
        })
        .collect();
    serde_json::json!({ "families": families })
}

fn report_bad(outcome: &ReadOutcome, err: &mut dyn Write) {
    if outcome.bad == 0 {
        return;
    }
    let _ = writeln!(
        err,
        "warning: {} bad line(s) or file(s) skipped; the first:",
        outcome.bad
    );
    for what in &outcome.first_bad {
        let _ = writeln!(err, "  {}", crate::report::terminal::escape(what));
    }
}

/// Sessions one of whose model names `model` matches (all without it).
fn keep_models(sessions: Vec<Session>, model: Option<&regex::Regex>) -> Vec<Session> {
    match model {
        None => sessions,
        Some(re) => sessions
            .into_iter()
            .filter(|s| s.models.iter().any(|m| re.is_match(m)))
            .collect(),
    }
}

/// Writes the profile, the JSON and the HTML page; returns the profile's
/// hash.
fn write_outputs(
    config: &CalibrateConfig,
    result: &Calibration,
    outcome: &ReadOutcome,
) -> Result<Option<String>, AppError> {
    let mut profile_hash = None;
    let profile_name = config
        .out
        .as_ref()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned());
    if let Some(path) = &config.out {
        let text = result.profile().to_yaml();
        write_atomic(path, text.as_bytes())?;
        profile_hash = Some(crate::model::simulated::profile::hash_hex(text.as_bytes()));
    }
    let json = render::json(
        result,
        outcome,
        profile_name.as_deref(),
        profile_hash.as_deref(),
    );
    if let Some(path) = &config.json {
        let text = format!(
            "{}\n",
            serde_json::to_string_pretty(&json).unwrap_or_default()
        );
        write_atomic(path, text.as_bytes())?;
    }
    if let Some(path) = &config.html {
        write_atomic(path, html::page(result, &json).as_bytes())?;
    }
    Ok(profile_hash)
}
