#!/usr/bin/env bash
# Paired cost per episode: agent-eval vs a plain Python s03 loop
# (benches/peer/s03_loop.py) on the same scripted episodes, in one run.
#
#   benches/compare.sh [N] [ROUNDS]
#
# For each episode file in benches/peer/*.yaml it alternates ROUNDS times
# between `agent-eval run` of the episode repeated N times (one job, so one
# core each) and the Python loop doing the same N episodes, and prints the
# median seconds per episode of each and their ratio. Both sides do the
# whole episode: a fresh workspace, the loop, the file checks, cleanup.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-2000}
ROUNDS=${2:-5}
python3 -c 'import yaml' 2>/dev/null || pip install --quiet 'pyyaml==6.0.2'
cargo build --release --quiet
bin=target/release/agent-eval
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.9f\n", m}'; }

printf '%-28s %14s %14s %8s\n' episode "agent-eval" "python loop" ratio
for episode in benches/peer/*_episode.yaml; do
    name=$(basename "$episode" .yaml)
    # The same episode, N seeds: a scripted run replays identically per seed.
    { cat "$episode"; printf '\nruns:\n  seeds: %d\n' "$N"; } | sed 's/^expect:/expect_unused:/' \
        | awk '/^expect_unused:/{skip=1} skip&&/^[^ -]/&&!/^expect_unused:/{skip=0} !skip' > "$work/$name.yaml"
    : > "$work/ae" ; : > "$work/py"
    for _ in $(seq "$ROUNDS"); do
        start=$(date +%s.%N)
        "$bin" run "$work/$name.yaml" --jobs 1 --quiet > /dev/null
        end=$(date +%s.%N)
        echo "($end - $start) / $N" | bc -l >> "$work/ae"
        python3 benches/peer/s03_loop.py "$episode" "$N" >> "$work/py"
    done
    ae=$(median < "$work/ae"); py=$(median < "$work/py")
    printf '%-28s %12.3fms %12.3fms %7.1fx\n' "$name" "$(echo "$ae*1000" | bc -l)" "$(echo "$py*1000" | bc -l)" "$(echo "$py/$ae" | bc -l)"
done
