//! What `calibrate` shows: the terminal text (parameters, fit, fidelity,
//! contradictions) and the JSON document (`--json`, documented in
//! docs/calibration.md).

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Value, json};

use super::read::ReadOutcome;
use crate::calibrate::Calibration;
use crate::calibrate::simulate::FIDELITY_REPLICATES;
use crate::model::simulated::profile::Source;
use crate::report::terminal::escape;

/// The JSON document's version.
pub const JSON_VERSION: u32 = 1;

fn source_name(source: Source) -> &'static str {
    match source {
        Source::Measured => "measured",
        Source::Fitted => "fitted",
        Source::Inferred => "inferred",
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
            "duplicates_dropped": result.duplicates,
            "groups": {
                "by": outcome.group_by,
                "count": result.groups,
                "sessions_alone": result.sessions_alone,
            },
        },
        "reminders": {
            "recorded": result.reminders.recorded,
            "inferred": result.reminders.inferred,
            "counted": if result.reminders_inferred_used { "recorded and inferred" } else { "recorded" },
            "inference_check": result.reminder_check,
        },
        "goodness_of_fit": result.goodness_of_fit.map(|t| json!({
            "statistic": finite(t.statistic),
            "df": t.df,
            "p_value": t.p_value,
            "moments": t.moments,
            "fitted": t.fitted,
            "fits": !t.rejected(),
            "verdict": t.verdict(),
        })),
        "simulated_reminders": simulated_reminders(result),
        "params": result.params.iter().map(|row| json!({
            "name": row.name,
            "value": row.param.value,
            "default": row.default,
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
        "fidelity": result.fidelity.iter().map(|row| {
            let mut value = serde_json::to_value(row).unwrap_or(Value::Null);
            if let Some(map) = value.as_object_mut() {
                map.insert("verdict_text".into(), json!(row.verdict_text()));
            }
            value
        }).collect::<Vec<_>>(),
        "fidelity_simulation": {
            "runs_per_shape": result.fidelity_runs_per_shape,
            "under_ten_times_observed": result.fidelity_short,
        },
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
    groups(&mut text, result, outcome);
    reminders(&mut text, result);
    parameters(&mut text, result);
    goodness_of_fit(&mut text, result);
    fidelity(&mut text, result);
    conclusion(&mut text, result);
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

/// The units of independence, and the duplicates left out.
fn groups(text: &mut String, result: &Calibration, outcome: &ReadOutcome) {
    let by = serde_json::to_value(outcome.group_by)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    if result.sessions_alone {
        let _ = writeln!(
            text,
            "groups: fewer than two (--group-by {by}), so each session stands alone: intervals and the held-out split treat sessions as independent"
        );
    } else {
        let _ = writeln!(
            text,
            "groups: {} (--group-by {by}); intervals resample groups, and the held-out split keeps each group whole",
            result.groups
        );
    }
    if result.duplicates > 0 {
        let _ = writeln!(
            text,
            "duplicates: {} session(s) read twice (same session id or content) counted once",
            result.duplicates
        );
    }
    let _ = writeln!(text);
}

/// The reminded turns, recorded and inferred, and which were counted.
fn reminders(text: &mut String, result: &Calibration) {
    let counts = result.reminders;
    if counts.recorded + counts.inferred == 0 {
        return;
    }
    let counted = if result.reminders_inferred_used {
        "both counted in reminder_compliance (source: inferred)"
    } else if counts.inferred > 0 {
        "reminder_compliance counts the recorded ones only (--infer-reminders adds the inferred)"
    } else {
        "reminder_compliance counts them"
    };
    let _ = writeln!(
        text,
        "reminders: {} recorded, {} inferred from the version's policy; {counted}",
        counts.recorded, counts.inferred
    );
    if let Some(check) = result.reminder_check.filter(|_| counts.inferred > 0) {
        let _ = writeln!(
            text,
            "  the inference rule, checked: {}",
            crate::calibrate::reminders::check_words(&check)
        );
    }
    let _ = writeln!(text);
}

/// The whole fit's test, and what follows from it.
fn goodness_of_fit(text: &mut String, result: &Calibration) {
    let Some(test) = result.goodness_of_fit else {
        return;
    };
    let _ = writeln!(text, "Goodness of fit: {}.", test.verdict());
    if test.rejected() {
        let _ = writeln!(
            text,
            "The simulated model does not fit these sessions: no parameter is fitted, the attention parameters and drift weights keep their assumed values."
        );
    }
    let _ = writeln!(text);
}

fn parameters(text: &mut String, result: &Calibration) {
    let _ = writeln!(
        text,
        "{:<22} {:>9} {:>9}  {:<19} {:>6}  {:<8}",
        "parameter", "value", "default", "interval", "n", "source"
    );
    for row in &result.params {
        let interval = row.param.interval.map_or("-".to_string(), |[a, b]| {
            format!("[{}, {}]", number(Some(a)), number(Some(b)))
        });
        let _ = writeln!(
            text,
            "{:<22} {:>9} {:>9}  {:<19} {:>6}  {:<8}",
            row.name,
            number(Some(row.param.value)),
            number(Some(row.default)),
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
        "Fidelity on {held} (distributions: medians and Kolmogorov-Smirnov D; shares: difference; verdicts about the observed data)"
    );
    let _ = writeln!(
        text,
        "{:<38} {:>8} {:>9} {:>9} {:>6} {:>7} {:>8}  verdict",
        "statistic", "observed", "simulated", "n obs", "n sim", "distance", "p"
    );
    for row in &result.fidelity {
        let [observed, simulated, n_observed, n_simulated, distance, p] = row.figures();
        let _ = writeln!(
            text,
            "{:<38} {observed:>8} {simulated:>9} {n_observed:>9} {n_simulated:>6} {distance:>7} {p:>8}  {}",
            row.statistic,
            row.verdict_text()
        );
    }
    if let Some(line) = simulation_line(result) {
        let _ = writeln!(text, "{line}");
    }
    let _ = writeln!(text);
}

/// How the fidelity check's simulated sample was made, where it took more
/// than the one round of runs a shape or stayed short somewhere
/// (`calibrate::tenfold`); `None` where one round sufficed.
fn simulation_line(result: &Calibration) -> Option<String> {
    let runs = result.fidelity_runs_per_shape;
    if result.fidelity_short.is_empty() {
        return (runs > FIDELITY_REPLICATES as u64).then(|| {
            format!("Simulated {runs} runs of each held-out task shape, so that every statistic's simulated sample is at least ten times the observed one.")
        });
    }
    Some(format!(
        "Simulated {runs} runs of each held-out task shape; the simulated sample is still under ten times the observed one for: {} (the fitted model seldom gives them).",
        result.fidelity_short.join(", ")
    ))
}

/// What the fidelity check and the fit say, together: a conclusion is
/// never drawn from a statistic with too few observations, nor from a fit
/// the data reject.
pub fn conclusion_lines(result: &Calibration) -> Vec<String> {
    let mut lines = Vec::new();
    let too_few: Vec<&str> = result
        .fidelity
        .iter()
        .filter(|r| r.verdict.too_few())
        .map(|r| r.statistic)
        .collect();
    let rejected = result.goodness_of_fit.is_some_and(|t| t.rejected());
    if rejected {
        lines.push(
            "The simulated model does not fit these sessions (goodness of fit above).".into(),
        );
    }
    if !too_few.is_empty() {
        lines.push(format!(
            "Too few observations to judge: {}. Nothing is concluded about them.",
            too_few.join(", ")
        ));
    }
    if result.contradictions.is_empty() && too_few.is_empty() && !rejected {
        lines
            .push("No assumption of the simulated model is contradicted by these sessions.".into());
    }
    lines
}

fn conclusion(text: &mut String, result: &Calibration) {
    for line in conclusion_lines(result) {
        let _ = writeln!(text, "{line}");
    }
    if !result.contradictions.is_empty() {
        let _ = writeln!(text, "What the sessions contradict:");
        for said in &result.contradictions {
            let _ = writeln!(text, "  - {said}");
        }
    }
}

/// The reminder policy the calibration simulations ran under and where it
/// comes from (with the replay's hits where it was read off recorded
/// reminder turns).
fn simulated_reminders(result: &Calibration) -> Value {
    use crate::calibrate::policy::ReminderSource;
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
        && let Some(map) = value.as_object_mut()
    {
        map.insert("hits".into(), json!(hits));
        map.insert("recorded".into(), json!(recorded));
        map.insert("predicted".into(), json!(predicted));
    }
    value
}
