//! Reading scenario files: discovery, parsing with position-carrying
//! errors, and the checks that need the file system (the fixture folder).
//!
//! The rooms: this file reads one file and runs the steps of
//! [`load_str`] in their fixed order; `error` is the one error type
//! ([`LoadError`], `FILE:LINE:COLUMN: message`); `discover` finds the files
//! of folders and loads many at once; `parse` turns YAML into the raw
//! shape with saphyr's budgets; `fixture` resolves and measures the
//! workspace fixture and builds its image; `parts` numbers the steps of
//! the parts; `checks` holds the checks across keys that parsing cannot
//! make (session agent, simulated-model axes and parameters, expected
//! parts, the profile); `position` finds where a key is written, so those
//! checks point at a line.

mod checks;
mod discover;
mod error;
mod fixture;
mod parse;
mod parts;
mod position;

use std::io::Read;
use std::path::Path;

use sha2::{Digest, Sha256};

use self::checks::{
    check_expected_parts, check_session_agent, check_simulate_axes, check_simulated_model,
    resolve_profile,
};
pub use self::discover::{discover, load_all};
pub use self::error::LoadError;
use self::fixture::{build_workspace_image, resolve_fixture};
use self::parse::{MAX_SCENARIO_BYTES, parse_raw};
use self::parts::parts_and_steps;
use self::position::{position_of, top_level_key};
use super::model::ModelSpec;
use super::{ExactExpectation, Expectation, Scenario};

/// Reads and validates one scenario file.
pub fn load(file: &Path) -> Result<Scenario, LoadError> {
    let handle = crate::input::open_regular(file)
        .map_err(|e| LoadError::new(file, None, format!("cannot read: {e}")))?;
    let mut bytes = Vec::new();
    handle
        .take(MAX_SCENARIO_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| LoadError::new(file, None, format!("cannot read: {e}")))?;
    if bytes.len() as u64 > MAX_SCENARIO_BYTES {
        return Err(LoadError::new(
            file,
            None,
            format!("file is larger than {MAX_SCENARIO_BYTES} bytes"),
        ));
    }
    let text = String::from_utf8(bytes).map_err(|e| {
        let valid = e
            .as_bytes()
            .get(..e.utf8_error().valid_up_to())
            .unwrap_or_default();
        let valid = std::str::from_utf8(valid).unwrap_or_default();
        let line = valid.matches('\n').count() as u64 + 1;
        let column = valid.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u64 + 1;
        LoadError::new(file, Some((line, column)), format!("not UTF-8 text: {e}"))
    })?;
    load_str(file, &text)
}

/// Validates scenario text as if read from `file` (which names it in errors
/// and anchors the fixture path). The checks run in the order written here,
/// so a file with several faults is refused at the same one every time.
pub fn load_str(file: &Path, text: &str) -> Result<Scenario, LoadError> {
    let raw = parse_raw(file, text)?;
    let mut workspace = raw.workspace;
    resolve_fixture(file, &mut workspace)?;
    build_workspace_image(file, text, &workspace)?;
    let session = raw.session.is_some();
    let (parts, steps) = parts_and_steps(file, text, raw.task, raw.steps, raw.session)?;
    let mut agent = raw.agent.validate().map_err(|conflict| {
        // A conflict between keys of `agent:` is shown at `agent:`.
        let position = conflict.position().or_else(|| top_level_key(text, "agent"));
        LoadError::new(file, position, conflict.to_string())
    })?;
    if let Some((_, at)) = agent.awaiting_command.as_mut() {
        *at = top_level_key(text, "agent");
    }
    if session {
        check_session_agent(file, text, &agent)?;
    }
    let model_at = position_of(&raw.model);
    let mut model = raw.model.value;
    let (profile, simulate_written) = resolve_profile(file, text, &mut model, model_at)?;
    let (runs, runs_at) = match raw.runs {
        Some(spanned) => {
            let at = top_level_key(text, "runs").or_else(|| position_of(&spanned));
            (spanned.value, at)
        }
        None => (crate::scenario::RunsSpec::default(), None),
    };
    check_simulate_axes(file, text, &runs, runs_at, &model)?;
    if let ModelSpec::Simulate(params) = &model {
        check_simulated_model(file, text, params, model_at, &steps)?;
    }
    let name = raw.name.unwrap_or_else(|| {
        file.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "scenario".to_string())
    });
    let mut expect = raw.expect;
    check_expected_parts(file, text, &expect, parts.len())?;
    // A cassette is checked for drift whether or not it says so.
    if model.is_cassette()
        && !expect
            .iter()
            .any(|e| matches!(e, Expectation::Exact(ExactExpectation::DriftTurns(_))))
    {
        expect.push(Expectation::Exact(ExactExpectation::DriftTurns(Vec::new())));
    }
    Ok(Scenario {
        name,
        description: raw.description,
        file: file.to_path_buf(),
        task: parts.first().map(|p| p.task.clone()).unwrap_or_default(),
        workspace,
        steps,
        parts,
        session,
        session_position: session.then(|| top_level_key(text, "session")).flatten(),
        agent,
        model,
        runs,
        expect,
        runs_position: runs_at.or(Some((1, 1))),
        sha256: sha256_hex(text.as_bytes()),
        profile,
        simulate_written,
    })
}

/// SHA-256 of `bytes` in lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    Sha256::digest(bytes)
        .iter()
        .fold(String::with_capacity(64), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        })
}

#[cfg(test)]
mod tests;
