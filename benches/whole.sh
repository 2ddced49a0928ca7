#!/usr/bin/env bash
# The file-tools episode as a user runs it, next to the plain Python s03
# loop, whole processes, in one run.
#
#   benches/whole.sh [EPISODES] [ROUNDS]      (default: 20000 3)
#
# Alternates ROUNDS times between `agent-eval run EPISODE --jobs 1`
# (`dist` build; EPISODE is benches/peer/file_tools_episode.yaml with
# `runs: {seeds: EPISODES}` appended, so a scripted run replays the
# episode EPISODES times and checks its `expect:` block) and
# `python3 benches/peer/s03_loop.py benches/peer/file_tools_episode.yaml
# EPISODES`, each timed from outside as a whole process: start-up,
# loading, every episode, the report (agent-eval writes its JSON report to
# /dev/null). The loop runs twice a round: with its temporary folders
# (Python's `tempfile`, so TMPDIR) on disk (under target/), and on tmpfs
# (/dev/shm), as agent-eval's workspaces are in memory: the tmpfs loop is
# the fair peer, and the target (>= 50x CPU at 20,000 episodes) is against
# it. Prints per side the median wall and CPU time (user + system) and the
# loops' times as multiples of agent-eval's. Nothing is taken out; the
# load average at the start and at the end is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
EPISODES=${1:-20000}
ROUNDS=${2:-3}
cargo build --profile dist --quiet --bin agent-eval
bin=target/dist/agent-eval
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
disk_tmp="$work/tmp"
mkdir -p "$disk_tmp"
shm_tmp=$(mktemp -d -p /dev/shm agent-eval-whole.XXXXXX 2>/dev/null || true)
trap 'rm -rf "$work" ${shm_tmp:+"$shm_tmp"}' EXIT
[ -n "$shm_tmp" ] || echo "whole.sh: no /dev/shm here: the tmpfs row is skipped" >&2
{ cat benches/peer/file_tools_episode.yaml; echo "runs: {seeds: $EPISODES}"; } > "$episode"

median() { sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f\n", m}'; }

echo "$EPISODES episodes, $ROUNDS rounds; $(nproc) cores; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
: > "$work/ae"; : > "$work/py"; : > "$work/shm"
TIMEFORMAT='%R %U %S'
for _ in $(seq "$ROUNDS"); do
    { time "$bin" run "$episode" --jobs 1 --quiet --json /dev/null > /dev/null; } 2> "$work/time" \
        || { echo "whole.sh: agent-eval run failed" >&2; exit 1; }
    read -r real user sys < "$work/time"
    echo "$real $(echo "$user + $sys" | bc -l)" >> "$work/ae"
    { time TMPDIR="$disk_tmp" "$py" benches/peer/s03_loop.py benches/peer/file_tools_episode.yaml "$EPISODES" > /dev/null; } 2> "$work/time"
    read -r real user sys < "$work/time"
    echo "$real $(echo "$user + $sys" | bc -l)" >> "$work/py"
    if [ -n "$shm_tmp" ]; then
        { time TMPDIR="$shm_tmp" "$py" benches/peer/s03_loop.py benches/peer/file_tools_episode.yaml "$EPISODES" > /dev/null; } 2> "$work/time"
        read -r real user sys < "$work/time"
        echo "$real $(echo "$user + $sys" | bc -l)" >> "$work/shm"
    fi
done
ae_wall=$(cut -d' ' -f1 "$work/ae" | median)
ae_cpu=$(cut -d' ' -f2 "$work/ae" | median)
py_wall=$(cut -d' ' -f1 "$work/py" | median)
py_cpu=$(cut -d' ' -f2 "$work/py" | median)
# A ratio, or n/a when the divisor is below the timer's resolution.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else printf "n/a" }'; }
printf '%-44s %10s %10s\n' "" "wall s" "CPU s"
printf '%-44s %10s %10s\n' "agent-eval run --jobs 1" "$ae_wall" "$ae_cpu"
printf '%-44s %10s %10s\n' "python s03 loop, temp folders on disk" "$py_wall" "$py_cpu"
if [ -n "$shm_tmp" ]; then
    shm_wall=$(cut -d' ' -f1 "$work/shm" | median)
    shm_cpu=$(cut -d' ' -f2 "$work/shm" | median)
    printf '%-44s %10s %10s\n' "python s03 loop, temp folders on tmpfs" "$shm_wall" "$shm_cpu"
fi
printf '%-44s %10s %10s\n' "disk loop / agent-eval" "$(ratio "$py_wall" "$ae_wall")" "$(ratio "$py_cpu" "$ae_cpu")"
if [ -n "$shm_tmp" ]; then
    printf '%-44s %10s %10s\n' "tmpfs loop / agent-eval (target >= 50x CPU)" \
        "$(ratio "$shm_wall" "$ae_wall")" "$(ratio "$shm_cpu" "$ae_cpu")"
fi
echo "agent-eval rounds (wall CPU): $(tr '\n' ';' < "$work/ae")"
echo "disk loop rounds (wall CPU): $(tr '\n' ';' < "$work/py")"
[ -z "$shm_tmp" ] || echo "tmpfs loop rounds (wall CPU): $(tr '\n' ';' < "$work/shm")"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
