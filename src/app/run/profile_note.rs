//! `run --profile`: the one note that says a profile was applied — which
//! file (path as given, and hash), its key figures, and, once, that the
//! shipped expectations were written for the default parameters — so a
//! run under a profile never reads like a run without one, and its
//! failures are not mistaken for regressions.

use std::io::Write;
use std::path::Path;

use crate::model::simulated::profile::{LoadedProfile, Source};
use crate::report::terminal::escape;
use crate::scenario::{ModelSpec, Scenario};

/// At most this many of the profile's figures are shown.
const FIGURES_SHOWN: usize = 6;

/// Applies `loaded` to every simulated scenario and returns how many of
/// those with expectations it changed the parameters of.
pub(super) fn apply(loaded: &LoadedProfile, scenarios: &mut [Scenario]) -> usize {
    let mut changed = 0;
    for scenario in scenarios.iter_mut() {
        let before = match &scenario.model {
            ModelSpec::Simulate(params) => Some(*params),
            _ => None,
        };
        scenario.use_profile(loaded);
        let after = match &scenario.model {
            ModelSpec::Simulate(params) => Some(*params),
            _ => None,
        };
        if before != after && !scenario.expect.is_empty() {
            changed += 1;
        }
    }
    changed
}

/// The note, printed once before the runs.
pub(super) fn print(path: &Path, loaded: &LoadedProfile, changed: usize, err: &mut dyn Write) {
    let _ = writeln!(err, "{}", header(path, loaded));
    if changed > 0 {
        let _ = writeln!(
            err,
            "note: the expectations of {changed} scenario{} were written for the simulated \
             model's default parameters, not this profile's: a failure under it says how your \
             agent differs from those defaults, not that anything regressed",
            if changed == 1 { "" } else { "s" },
        );
    }
}

/// `profile PATH (sha256 …), fitted on N sessions: name value (source), …`:
/// the measured and fitted figures (the assumed ones are the defaults).
fn header(path: &Path, loaded: &LoadedProfile) -> String {
    let figures: Vec<String> = loaded
        .profile
        .params
        .iter()
        .filter(|(_, p)| p.source != Source::Assumed)
        .take(FIGURES_SHOWN)
        .map(|(name, p)| format!("{name} {} ({})", short(p.value), source_word(p.source)))
        .collect();
    let figures = if figures.is_empty() {
        "every parameter assumed (the defaults)".to_string()
    } else {
        figures.join(", ")
    };
    format!(
        "profile {} (sha256 {}), fitted on {} sessions: {figures}",
        escape(&path.display().to_string()),
        loaded.short_hash(),
        loaded.profile.fitted_on.sessions,
    )
}

fn source_word(source: Source) -> &'static str {
    match source {
        Source::Measured => "measured",
        Source::Fitted => "fitted",
        Source::Assumed => "assumed",
        Source::Inferred => "inferred",
    }
}

/// A figure in at most three significant digits, no trailing zeros.
fn short(value: f64) -> String {
    let text = if value.abs() >= 100.0 {
        format!("{value:.0}")
    } else {
        format!("{value:.3}")
    };
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::short;

    #[test]
    fn figures_read_short() {
        assert_eq!(short(0.96), "0.96");
        assert_eq!(short(420.0), "420");
        assert_eq!(short(0.0575), "0.058");
        assert_eq!(short(4.0), "4");
    }
}
