#!/usr/bin/env bash
# The file-tools episode as a user runs it, next to the plain Python s03
# loop, whole processes, in one run.
#
#   benches/whole.sh [EPISODES] [ROUNDS]      (default: 20000 3)
#
# Alternates ROUNDS times between `agent-eval run EPISODE --jobs 1`
# (release build; EPISODE is benches/peer/file_tools_episode.yaml with
# `runs: {seeds: EPISODES}` appended, so a scripted run replays the
# episode EPISODES times and checks its `expect:` block) and
# `python3 benches/peer/s03_loop.py benches/peer/file_tools_episode.yaml
# EPISODES`, each timed from outside as a whole process: start-up,
# loading, every episode, the report (agent-eval writes its JSON report to
# /dev/null). Prints per side the median wall and CPU time (user +
# system) and the loop's CPU time as a multiple of agent-eval's (the
# target is >= 50x at 20,000 episodes). Nothing is taken out; the load
# average at the start and at the end is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
EPISODES=${1:-20000}
ROUNDS=${2:-3}
cargo build --release --quiet --bin agent-eval
bin=target/release/agent-eval
py=python3
[ -x target/peer-venv/bin/python ] && py=target/peer-venv/bin/python
"$py" -c 'import yaml' 2>/dev/null || {
    echo "whole.sh: the Python loop needs PyYAML (run benches/compare.sh once to make target/peer-venv)" >&2
    exit 1
}
# In target/ (ignored by git), so nothing is written outside the project.
mkdir -p target
work=$(mktemp -d -p target)
trap 'rm -rf "$work"' EXIT
episode="$work/file_tools_episode.yaml"
{ cat benches/peer/file_tools_episode.yaml; echo "runs: {seeds: $EPISODES}"; } > "$episode"

median() { sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f\n", m}'; }

echo "$EPISODES episodes, $ROUNDS rounds; $(nproc) cores; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
: > "$work/ae"; : > "$work/py"
TIMEFORMAT='%R %U %S'
for _ in $(seq "$ROUNDS"); do
    { time "$bin" run "$episode" --jobs 1 --quiet --json /dev/null > /dev/null; } 2> "$work/time" \
        || { echo "whole.sh: agent-eval run failed" >&2; exit 1; }
    read -r real user sys < "$work/time"
    echo "$real $(echo "$user + $sys" | bc -l)" >> "$work/ae"
    { time "$py" benches/peer/s03_loop.py benches/peer/file_tools_episode.yaml "$EPISODES" > /dev/null; } 2> "$work/time"
    read -r real user sys < "$work/time"
    echo "$real $(echo "$user + $sys" | bc -l)" >> "$work/py"
done
ae_wall=$(cut -d' ' -f1 "$work/ae" | median)
ae_cpu=$(cut -d' ' -f2 "$work/ae" | median)
py_wall=$(cut -d' ' -f1 "$work/py" | median)
py_cpu=$(cut -d' ' -f2 "$work/py" | median)
printf '%-40s %10s %10s\n' "" "wall s" "CPU s"
printf '%-40s %10s %10s\n' "agent-eval run --jobs 1" "$ae_wall" "$ae_cpu"
printf '%-40s %10s %10s\n' "python s03 loop" "$py_wall" "$py_cpu"
printf '%-40s %9.1fx %9.1fx\n' "loop / agent-eval (target >= 50x CPU)" \
    "$(echo "$py_wall / $ae_wall" | bc -l)" "$(echo "$py_cpu / $ae_cpu" | bc -l)"
echo "agent-eval rounds (wall CPU): $(tr '\n' ';' < "$work/ae")"
echo "loop rounds (wall CPU): $(tr '\n' ';' < "$work/py")"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
