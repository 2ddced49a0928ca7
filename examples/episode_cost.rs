//! Mean CPU and wall time of one scripted episode through the library
//! (`run_once`: workspace, loop, checks, protocol check, cleanup), for
//! `benches/compare.sh`, which pairs it with the plain Python loop.
//!
//! Usage: `cargo run --release --example episode_cost [SCENARIO] [RUNS]`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test, benchmark or example: a failed assumption is a failure to see"
)]

use std::path::PathBuf;
use std::time::Instant;

use agent_eval::eval::{Cell, run_once};
use agent_eval::scenario;

fn cpu_seconds() -> f64 {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let file = PathBuf::from(
        args.next()
            .unwrap_or_else(|| "benches/data/file_tools_episode.yaml".into()),
    );
    let runs: u32 = args.next().map_or(Ok(5000), |r| r.parse())?;
    let scenario = scenario::load(&file)?;
    let cell = Cell::of_agent(&scenario);
    for _ in 0..runs / 10 {
        run_once(&scenario, &cell, 0)?;
    }
    let (cpu, wall) = (cpu_seconds(), Instant::now());
    for _ in 0..runs {
        run_once(&scenario, &cell, 0)?;
    }
    let cpu = cpu_seconds() - cpu;
    let wall = wall.elapsed().as_secs_f64();
    println!(
        "agent-eval: cpu {:.1} us/episode, wall {:.1} us/episode",
        cpu / f64::from(runs) * 1e6,
        wall / f64::from(runs) * 1e6
    );
    Ok(())
}
