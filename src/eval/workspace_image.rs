//! A run's workspace: the scenario's [`WorkspaceImage`] (fixture, then
//! `files`), read once per scenario and shared by its runs, opened as a
//! fresh [`Workspace`] per run (in memory until a process needs the
//! folder, which is made only then and removed when the workspace is
//! dropped).

use std::sync::Arc;

use crate::sandbox::workspace::{CreateError, ImageError, Workspace, WorkspaceImage};
use crate::scenario::WorkspaceSpec;

/// Builds the image a spec describes (reading the fixture).
pub fn build_image(spec: &WorkspaceSpec) -> Result<WorkspaceImage, ImageError> {
    WorkspaceImage::build(
        spec.fixture.as_ref().map(|f| f.value.as_path()),
        spec.files(),
    )
}

/// The spec's image: the one the loader built, else built now (and kept
/// for the scenario's other runs).
pub fn image(spec: &WorkspaceSpec) -> Result<Arc<WorkspaceImage>, ImageError> {
    if let Some(image) = spec.image.get() {
        return Ok(image.clone());
    }
    let image = Arc::new(build_image(spec)?);
    Ok(spec.image.get_or_init(|| image).clone())
}

/// Creates a run's workspace: in memory, its folder made only when a
/// process needs it (see [`Workspace::create_deferred`]).
pub fn create_for_run(spec: &WorkspaceSpec) -> std::io::Result<Workspace> {
    let image = image(spec).map_err(|e| std::io::Error::other(e.to_string()))?;
    Workspace::create_deferred(&image).map_err(|e: CreateError| e.into())
}

/// Creates a workspace on disk, its files written: for a process that
/// works in the folder from the start (an external agent). Check it with
/// [`crate::eval::checks::holds`] like any other.
pub fn create(spec: &WorkspaceSpec) -> std::io::Result<Workspace> {
    let image = image(spec).map_err(|e| std::io::Error::other(e.to_string()))?;
    let workspace =
        Workspace::create(&image).map_err(|e: CreateError| -> std::io::Error { e.into() })?;
    workspace.materialize()?;
    Ok(workspace)
}
