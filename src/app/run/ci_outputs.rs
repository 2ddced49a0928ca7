//! The outputs of `run` (and `merge`) meant for a CI page: GitHub
//! annotations and the job summary (`$GITHUB_STEP_SUMMARY`, appended),
//! and the GitLab Code Quality report (`--codequality`). Each failure is
//! located at the file and line it belongs to: a failed expectation at its
//! `expect:` entry (read again from the scenario file), a refused file at
//! the line of its error; paths relative to the CI's workspace.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::reporters::{Finished, Reporter, Streams};
use crate::app::ci::GithubOutputs;
use crate::app::{AppError, write_report};
use crate::report::findings::{self, Finding, ScenarioPlace};
use crate::report::{codequality, github, markdown, workflow_safe};

/// GitHub Actions' annotations and job summary.
pub(super) struct GithubReport {
    pub outputs: GithubOutputs,
    /// Annotations go to stderr when a report takes stdout.
    pub to_stderr: bool,
}

impl Reporter for GithubReport {
    fn write(
        &mut self,
        finished: &Finished<'_>,
        streams: &mut Streams<'_>,
    ) -> Result<(), AppError> {
        if self.outputs.annotations {
            let found = findings_of(finished, self.outputs.workspace.as_deref());
            // Agent-eval's own commands: the one kind of line the
            // workflow-safe sink lets through as a command.
            let text = workflow_safe::trusted(&github::annotations(&found));
            let stream: &mut dyn Write = if self.to_stderr {
                streams.err
            } else {
                streams.out
            };
            stream
                .write_all(text.as_bytes())
                .map_err(|source| AppError::Write {
                    path: PathBuf::from(if self.to_stderr { "stderr" } else { "stdout" }),
                    source,
                })?;
        }
        if let Some(path) = &self.outputs.step_summary {
            let summary = markdown::render(finished.results, finished.errors);
            if let Err(NotAFile) = append(path, summary.as_bytes())? {
                let _ = writeln!(
                    streams.err,
                    "warning: $GITHUB_STEP_SUMMARY ({}) is not a regular file; the job summary was not written",
                    crate::report::terminal::escape(&path.display().to_string())
                );
            }
        }
        Ok(())
    }
}

/// `--codequality FILE`.
pub(super) struct CodeQualityReport {
    pub path: PathBuf,
    pub workspace: Option<PathBuf>,
}

impl Reporter for CodeQualityReport {
    fn write(
        &mut self,
        finished: &Finished<'_>,
        streams: &mut Streams<'_>,
    ) -> Result<(), AppError> {
        let found = findings_of(finished, self.workspace.as_deref());
        write_report(
            &self.path,
            codequality::render(&found).as_bytes(),
            streams.out,
        )
    }
}

/// Every failure of `finished`: the bad inputs first, then the failed
/// expectations in report order.
fn findings_of(finished: &Finished<'_>, workspace: Option<&Path>) -> Vec<Finding> {
    let path_of = |file: &str| relative_to(Path::new(file), workspace);
    let place_of = |file: &str| ScenarioPlace {
        path: path_of(file),
        expect_lines: std::fs::read_to_string(file)
            .map(|text| crate::scenario::expectation_lines(&text))
            .unwrap_or_default(),
    };
    let mut found = findings::bad_inputs(finished.bad_inputs, &path_of);
    found.extend(findings::failed_expectations(finished.results, &place_of));
    found
}

/// `file` as CI shows it: relative to `workspace` when inside it (a
/// relative path is taken from the current folder), else as given.
fn relative_to(file: &Path, workspace: Option<&Path>) -> String {
    let shown = || file.display().to_string();
    let Some(workspace) = workspace.and_then(|w| w.canonicalize().ok()) else {
        return shown();
    };
    let absolute = if file.is_absolute() {
        file.to_path_buf()
    } else {
        match std::env::current_dir() {
            Ok(dir) => dir.join(file),
            Err(_) => return shown(),
        }
    };
    let absolute = absolute.canonicalize().unwrap_or(absolute);
    absolute
        .strip_prefix(&workspace)
        .map_or_else(|_| shown(), |rest| rest.display().to_string())
}

/// The job summary names no regular file (a FIFO, a device, a folder):
/// nothing is written to it, and nothing waits for a reader.
#[derive(Debug)]
struct NotAFile;

/// Appends `bytes` to `path` (created when missing, never truncated): the
/// job summary belongs to every step of the job. Opened without blocking
/// and checked before a byte is written, so a FIFO with no reader cannot
/// stop the run.
fn append(path: &Path, bytes: &[u8]) -> Result<Result<(), NotAFile>, AppError> {
    use std::os::unix::fs::OpenOptionsExt;
    let write = || -> std::io::Result<Result<(), NotAFile>> {
        let mut file = match std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(path)
        {
            Ok(file) => file,
            // A FIFO nobody reads: ENXIO; a folder: EISDIR.
            Err(e) if matches!(e.raw_os_error(), Some(libc::ENXIO | libc::EISDIR)) => {
                return Ok(Err(NotAFile));
            }
            Err(e) => return Err(e),
        };
        if !file.metadata()?.is_file() {
            return Ok(Err(NotAFile));
        }
        file.write_all(bytes)?;
        file.write_all(b"\n")?;
        Ok(Ok(()))
    };
    write().map_err(|source| AppError::Write {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_inside_the_workspace_is_shown_relative_to_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("scenarios").join("a.yaml");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, "task: t\n").unwrap();
        assert_eq!(relative_to(&file, Some(dir.path())), "scenarios/a.yaml");
        assert_eq!(relative_to(&file, None), file.display().to_string());
        let elsewhere = tempfile::tempdir().unwrap();
        assert_eq!(
            relative_to(&file, Some(elsewhere.path())),
            file.display().to_string()
        );
    }

    #[test]
    fn the_summary_is_appended_never_truncated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("summary.md");
        std::fs::write(&path, "earlier step\n").unwrap();
        append(&path, b"# agent-eval").unwrap().unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "earlier step\n# agent-eval\n"
        );
    }

    #[test]
    fn a_summary_that_is_no_regular_file_is_not_written_and_does_not_block() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(append(&fifo, b"x").unwrap().is_err());
        assert!(append(dir.path(), b"x").unwrap().is_err());
        assert!(append(Path::new("/dev/null"), b"x").unwrap().is_err());
    }
}
