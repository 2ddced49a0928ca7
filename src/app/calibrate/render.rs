//! What `calibrate` shows: the terminal text (parameters, fit, fidelity,
//! contradictions) and the JSON document (`--json`, documented in
//! docs/calibration.md).

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Value, json};

use super::read::ReadOutcome;
use crate::calibrate::Calibration;
use crate::model::simulated::profile::Source;
use crate::report::terminal::escape;

/// The JSON document's version.
pub const JSON_VERSION: u32 = 1;

fn source_name(source: Source) -> &'static str {
    match source {
        Source::Measured => "measured",
        Source::Fitted => "fitted",
        Source::Assumed => "assumed",
    }
}

/// The `--json` document.
pub fn json(
    result: &Calibration,
    outcome: &ReadOutcome,
    profile: Option<&str>,
    hash: Option<&str>,
) -> Value {
    json!({
        "version": JSON_VERSION,
        "inputs": {
            "files": outcome.files,
            "sessions": result.fitted_on.sessions,
            "training": result.training,
            "held_out": result.held_out,
            "bad": outcome.bad,
            "first_bad": outcome.first_bad,
        },
        "simulated_reminders": simulated_reminders(result),
        "params": result.params.iter().map(|row| json!({
            "name": row.name,
            "value": row.param.value,
            "interval": row.param.interval,
            "n": row.param.n,
            "source": source_name(row.param.source),
            "note": row.note,
        })).collect::<Vec<_>>(),
        "moments": result.moments.iter().map(|(name, observed, se)| json!({
            "name": name, "observed": finite(*observed), "se": finite(*se),
        })).collect::<Vec<_>>(),
        "fits": result.fits.iter().map(|fit| json!({
            "name": fit.name,
            "best": fit.best,
            "interval": fit.interval,
            "identified": fit.identified,
            "reason": fit.reason,
            "objective": fit.profile.iter().map(|(v, f)| json!([v, finite(*f)])).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "fidelity": result.fidelity,
        "distributions": result.distributions,
        "contradictions": result.contradictions,
        "profile": {"file": profile, "sha256": hash},
        "fitted_on": result.fitted_on,
    })
}

fn finite(value: f64) -> Option<f64> {
    value.is_finite().then_some(value)
}

fn number(value: Option<f64>) -> String {
    match value {
        Some(v) if v.abs() >= 100.0 => format!("{v:.0}"),
        Some(v) => format!("{v:.3}"),
        None => "-".into(),
    }
}

/// The terminal text.
pub fn terminal(
    result: &Calibration,
    outcome: &ReadOutcome,
    out: Option<&Path>,
    hash: Option<&str>,
) -> String {
    let mut text = String::new();
    let _ = writeln!(
        text,
        "calibrate: {} sessions from {} files ({} training, {} held out), {} turns; {} bad line(s) skipped\n",
        result.fitted_on.sessions,
        outcome.files,
        result.training,
        result.held_out,
        result.fitted_on.turns,
        outcome.bad
    );
    parameters(&mut text, result);
    fidelity(&mut text, result);
    if result.contradictions.is_empty() {
        let _ = writeln!(
            text,
            "No assumption of the simulated model is contradicted by these sessions."
        );
    } else {
        let _ = writeln!(text, "What the sessions contradict:");
        for said in &result.contradictions {
            let _ = writeln!(text, "  - {said}");
        }
    }
    if let (Some(path), Some(hash)) = (out, hash) {
        let _ = writeln!(
            text,
            "\nprofile: {} (sha256 {})",
            escape(&path.display().to_string()),
            hash.get(..12).unwrap_or(hash)
        );
    }
    text
}

fn parameters(text: &mut String, result: &Calibration) {
    let _ = writeln!(
        text,
        "{:<22} {:>9}  {:<19} {:>6}  {:<8}",
        "parameter", "value", "interval", "n", "source"
    );
    for row in &result.params {
        let interval = row.param.interval.map_or("-".to_string(), |[a, b]| {
            format!("[{}, {}]", number(Some(a)), number(Some(b)))
        });
        let _ = writeln!(
            text,
            "{:<22} {:>9}  {:<19} {:>6}  {:<8}",
            row.name,
            number(Some(row.param.value)),
            interval,
            row.param.n,
            source_name(row.param.source)
        );
    }
    let _ = writeln!(text);
    for row in result
        .params
        .iter()
        .filter(|r| r.param.source != Source::Measured)
    {
        let _ = writeln!(text, "  {}: {}", row.name, row.note);
    }
    let _ = writeln!(text);
}

fn fidelity(text: &mut String, result: &Calibration) {
    let held = if result.held_out > 0 {
        "held-out sessions"
    } else {
        "the training sessions (nothing held out)"
    };
    let _ = writeln!(
        text,
        "Fidelity on {held} (distributions: medians and Kolmogorov-Smirnov D; shares: difference)"
    );
    let _ = writeln!(
        text,
        "{:<36} {:>9} {:>9} {:>9} {:>8}  verdict",
        "statistic", "observed", "simulated", "distance", "p"
    );
    for row in &result.fidelity {
        let _ = writeln!(
            text,
            "{:<36} {:>9} {:>9} {:>9} {:>8}  {}",
            row.statistic,
            number(row.observed),
            number(row.simulated),
            number(row.distance),
            number(row.p_value),
            row.verdict.label()
        );
    }
    let _ = writeln!(text);
}

/// The reminder policy the calibration simulations ran under and where it
/// comes from (with the replay's hits where it was read off recorded
/// reminder turns).
fn simulated_reminders(result: &Calibration) -> Value {
    use crate::calibrate::reminders::ReminderSource;
    let source = &result.simulated_reminders;
    let mut value = json!({"source": match source {
        ReminderSource::NoneRecorded => "none recorded",
        ReminderSource::AgentPolicy => "the agent's policy (reminders not recorded)",
        ReminderSource::Replayed { .. } => "replayed on the recorded reminder turns",
    }});
    if let ReminderSource::Replayed {
        hits,
        recorded,
        predicted,
    } = source
    {
        value["hits"] = json!(hits);
        value["recorded"] = json!(recorded);
        value["predicted"] = json!(predicted);
    }
    value
}
