//! Regenerates the README's figures from the shipped scenarios: every table
//! between `<!-- figures: NAME -->` and `<!-- end -->` in README.md is
//! rendered again from a run of its scenario at the scenario's own seeds
//! (`agent_eval::app::figures`).
//!
//! ```sh
//! cargo run --release --example figures            # rewrite README.md in place
//! cargo run --release --example figures -- --check # exit 1 if README.md differs
//! ```

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test, benchmark or example: a failed assumption is a failure to see"
)]

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let check = std::env::args().any(|a| a == "--check");
    let readme_path = root.join("README.md");
    let result = std::fs::read_to_string(&readme_path)
        .map_err(|e| format!("{}: {e}", readme_path.display()))
        .and_then(|readme| {
            let blocks = agent_eval::app::figures::render_all(root).map_err(|e| e.to_string())?;
            let fresh =
                agent_eval::app::figures::splice(&readme, &blocks).map_err(|e| e.to_string())?;
            Ok((readme, fresh))
        });
    match result {
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
        Ok((readme, fresh)) if readme == fresh => {
            println!("README.md: every figures block matches the runs");
            ExitCode::SUCCESS
        }
        Ok(_) if check => {
            eprintln!(
                "README.md: figures differ from the runs; `cargo run --release --example figures` rewrites them"
            );
            ExitCode::from(1)
        }
        Ok((_, fresh)) => match std::fs::write(&readme_path, fresh) {
            Ok(()) => {
                println!("README.md: figures rewritten from the runs");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {}: {e}", readme_path.display());
                ExitCode::from(2)
            }
        },
    }
}
