#!/bin/sh
# Pairs agent-eval with the plain Python s03 loop on the same scripted
# episode, in one run, and prints both costs and their ratio.
# Usage: benches/compare.sh [SCENARIO] [RUNS]   (from the project's root)
set -eu
SCENARIO=${1:-benches/data/file_tools_episode.yaml}
RUNS=${2:-2000}
cargo build -q --release --example episode_cost
RUST=$(target/release/examples/episode_cost "$SCENARIO" "$RUNS")
PY=$(python3 benches/plain_loop.py "$SCENARIO" "$RUNS")
echo "$RUST"
echo "$PY"
python3 - "$RUST" "$PY" <<'PYEOF'
import re, sys
rust, py = ([float(x) for x in re.findall(r"([0-9.]+) us", line)] for line in sys.argv[1:3])
print(f"ratio (python / agent-eval): cpu {py[0] / rust[0]:.1f}x, wall {py[1] / rust[1]:.1f}x")
PYEOF
