//! `agent-eval init`: writes the scaffold and says what to run next.

use std::io::Write;
use std::path::Path;

use super::{AppError, Status};
use crate::scaffold;

/// Writes the scaffold under `dir` and lists the files written.
pub fn init(dir: &Path, out: &mut dyn Write) -> Result<Status, AppError> {
    let written = scaffold::scaffold(dir).map_err(|e| AppError::Usage(e.to_string()))?;
    let report = |out: &mut dyn Write| -> std::io::Result<()> {
        for path in &written {
            writeln!(out, "wrote {}", path.display())?;
        }
        let scenarios = dir.join("scenarios");
        writeln!(out, "\nnext:")?;
        writeln!(out, "  agent-eval run {}", scenarios.display())?;
        writeln!(
            out,
            "  agent-eval replay {}",
            scenarios.join("greet_scripted.yaml").display()
        )
    };
    report(out).map_err(AppError::stdout)?;
    Ok(Status::Passed)
}
