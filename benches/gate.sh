#!/usr/bin/env bash
# The CI gate next to the plain Python reference, in one run.
#
#   benches/gate.sh [ROUNDS]
#
# Alternates ROUNDS times (default 3) between the shipped gate,
# `agent-eval run scenarios/` (`dist` build, default jobs, whole
# process: start, loading, every scenario's seeds, the report), and the
# plain Python s03 loop (benches/peer/s03_loop.py) running 2,000
# episodes of benches/peer/file_tools_episode.yaml, also timed as a whole
# process from outside. Prints, per side, the median wall time and the
# median CPU time (user + system, child processes included: the shells a
# scenario's steps start count), and the gate's wall time as a multiple
# of the reference's (the target is <= 1.2x). On a loaded machine the CPU
# column is the steadier one; the load average at the start is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
cargo build --profile dist --quiet
bin=target/dist/agent-eval
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
py=python3
[ -x target/peer-venv/bin/python ] && py=target/peer-venv/bin/python
"$py" -c 'import yaml' 2>/dev/null || {
    echo "gate.sh: the Python reference needs PyYAML (run benches/compare.sh once to make target/peer-venv)" >&2
    exit 1
}

median() { sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f\n", m}'; }

echo "$ROUNDS rounds; $(nproc) cores; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
: > "$work/gate"; : > "$work/py"
TIMEFORMAT='%R %U %S'
for _ in $(seq "$ROUNDS"); do
    { time "$bin" run scenarios/ --quiet > /dev/null 2>&1; } 2> "$work/time" \
        || { echo "gate.sh: agent-eval run scenarios/ failed" >&2; exit 1; }
    read -r real user sys < "$work/time"
    echo "$real $(echo "$user + $sys" | bc -l)" >> "$work/gate"
    { time "$py" benches/peer/s03_loop.py benches/peer/file_tools_episode.yaml 2000 > /dev/null; } 2> "$work/time"
    read -r real user sys < "$work/time"
    echo "$real $(echo "$user + $sys" | bc -l)" >> "$work/py"
done
gate_wall=$(cut -d' ' -f1 "$work/gate" | median)
gate_cpu=$(cut -d' ' -f2 "$work/gate" | median)
py_wall=$(cut -d' ' -f1 "$work/py" | median)
py_cpu=$(cut -d' ' -f2 "$work/py" | median)
printf '%-44s %10s %10s\n' "" "wall s" "CPU s"
printf '%-44s %10s %10s\n' "agent-eval run scenarios/" "$gate_wall" "$gate_cpu"
printf '%-44s %10s %10s\n' "python s03 loop, 2,000 episodes" "$py_wall" "$py_cpu"
printf '%-44s %9.2fx %9.2fx\n' "gate / reference (target <= 1.2x wall)" \
    "$(echo "$gate_wall / $py_wall" | bc -l)" "$(echo "$gate_cpu / $py_cpu" | bc -l)"
