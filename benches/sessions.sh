#!/usr/bin/env bash
# Long sessions and long tasks cost time linear in their length.
#
#   benches/sessions.sh [SHORT LONG] [SHORT_STEPS LONG_STEPS]
#                       (default: 1000 4000 500 2000)
#   BIN=target/debug/agent-eval benches/sessions.sh 100 400 100 400
#   ROUNDS=5 benches/sessions.sh      (runs of each row; default 3)
#
# Two measurements, each at a short and a long size, the long one four
# times the short one, so linear time is a ratio of 4 (the goal: <= 4.5;
# a quadratic cost, every turn paying for the turns before it, shows as
# 16):
#
#   - parts: a simulated session of N parts, each asking for one file
#     (one step, one `write_file`), one seed, `max_turns` at its cap
#     (10,000): the conversation grows by a few messages a part. Its steps
#     have no `check` (not scored): a scenario may hold 100,000 YAML
#     nodes, and 4,000 parts with checks would hold more;
#   - steps: one task of N steps (each writes a file), one part, the turn
#     cap raised to 10,000, the simulated model never stopping early
#     (`stop_weight: 0`): the conversation grows by a turn a step.
#
# Every row is one whole process (`agent-eval run SCENARIO --jobs 1`, its
# JSON report to a file the turns are read from): CPU (user + system, to
# the millisecond, from the shell's `time`), wall, and peak resident memory
# (GNU time), which must stay flat-ish (it grows with the conversation,
# linearly, not with the turns squared). The workspaces' temporary folders
# (TMPDIR) are on tmpfs (/dev/shm) when there is one: a session of
# thousands of files mirrors them into a folder for a command now and
# then, and on a disk shared with other builds creating those files costs
# more system time, and varies more, than everything else the run does.
# Each row is run ROUNDS times; the median CPU time is printed (with the
# peak and wall time of that run). Prints the ratio of the median CPU
# times of the long and the short size.
# Builds the `dist` binary (fat LTO) first unless BIN is given.
#
# CALLGRIND=1 counts instructions instead of CPU time (valgrind
# --tool=callgrind, one round: the count does not depend on the load, the
# CPU time does, and on a shared machine the larger working set of the
# long run costs it more); the ratios are then of instructions.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${BIN:-}" ]; then
    cargo build --profile dist --quiet --bin agent-eval
fi
bin=${BIN:-target/dist/agent-eval}
short=${1:-1000}
long=${2:-4000}
rounds=${ROUNDS:-3}
[ -z "${CALLGRIND:-}" ] || rounds=1
short_steps=${3:-500}
long_steps=${4:-2000}
mkdir -p target
work=$(mktemp -d -p target)
trap 'rm -rf "$work"' EXIT
tmp=$(mktemp -d -p /dev/shm agent-eval-sessions.XXXXXX 2>/dev/null || true)
[ -n "$tmp" ] && trap 'rm -rf "$work" "$tmp"' EXIT
export TMPDIR=${tmp:-${TMPDIR:-/tmp}}

# A session of $1 parts of one step each, written to $2.
parts_scenario() {
    awk -v n="$1" 'BEGIN {
        print "name: many-parts"; print "session:"
        for (k = 0; k < n; k++) {
            printf "  - task: \"Write f%d.txt.\"\n    steps:\n", k
            printf "      - text: \"Write f%d.txt\"\n", k
            printf "        do: [{tool: write_file, input: {path: f%d.txt, content: x}}]\n", k
        }
        print "model:"; print "  simulate: {}"; print "agent:"; print "  max_turns: 10000"
        print "runs:"; print "  seeds: 1"
    }' >"$2"
}
# One task of $1 steps, written to $2.
steps_scenario() {
    awk -v n="$1" 'BEGIN {
        print "name: many-steps"; print "task: \"Write the files.\""; print "steps:"
        for (k = 0; k < n; k++) {
            printf "  - text: \"Write f%d.txt\"\n", k
            printf "    check: {file: f%d.txt, exists: true}\n", k
            printf "    do: [{tool: write_file, input: {path: f%d.txt, content: x}}]\n", k
        }
        print "model:"; print "  simulate: {stop_weight: 0}"; print "agent:"; print "  max_turns: 10000"
        print "runs:"; print "  seeds: 1"
    }' >"$2"
}
# Runs scenario $1 under callgrind; prints "instructions - - turns".
measure_instructions() {
    valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" \
        "$bin" run "$1" --jobs 1 --quiet --json "$work/report.json" >/dev/null 2>"$work/valgrind" || true
    turns=$(sed -n 's/^ *"turns": \([0-9]*\),*$/\1/p;T;q' "$work/report.json")
    # The process's own count (a child forked before its exec reports one too).
    pid=$(sed -n 's/^==\([0-9]*\)==.*/\1/p;T;q' "$work/valgrind")
    echo "$(sed -n "s/^==$pid== Collected : //p" "$work/valgrind") - - ${turns:-?}"
}
# Runs scenario $1; prints "CPU-seconds wall peak-MiB turns".
measure() {
    if [ -n "${CALLGRIND:-}" ]; then
        measure_instructions "$1"
        return
    fi
    local TIMEFORMAT='%3U %3S'
    { time /usr/bin/time -v "$bin" run "$1" --jobs 1 --quiet --json "$work/report.json" \
        >/dev/null 2>"$work/time"; } 2>"$work/cpu" || true
    read -r user sys <"$work/cpu"
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time")
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time")
    turns=$(sed -n 's/^ *"turns": \([0-9]*\),*$/\1/p;T;q' "$work/report.json")
    awk -v u="$user" -v s="$sys" -v r="$rss" -v w="$wall" -v t="${turns:-?}" \
        'BEGIN { printf "%.3f %s %.1f %s\n", u + s, w, r / 1024, t }'
}
echo "$(nproc) cores; TMPDIR $TMPDIR; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %6s %7s %8s %9s %10s\n' what size turns "CPU s" "peak MiB" wall
# One row: kind ($1: parts or steps) at size $2; its CPU time goes to $work/cpu_$1_$2.
row() {
    "$1_scenario" "$2" "$work/$1.yaml"
    for _ in $(seq "$rounds"); do measure "$work/$1.yaml"; done | sort -g >"$work/rounds"
    set -- "$1" "$2" $(sed -n "$(( (rounds + 1) / 2 ))p" "$work/rounds")
    printf '%-6s %6s %7s %8s %9s %10s\n' "$1" "$2" "$6" "$3" "$5" "$4"
    echo "$3" >"$work/cpu_$1_$2"
}
ratio() { awk -v a="$(cat "$1")" -v b="$(cat "$2")" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "n/a" }'; }
row parts "$short"
row parts "$long"
row steps "$short_steps"
row steps "$long_steps"
echo "CPU ratio, parts $long / $short: $(ratio "$work/cpu_parts_$long" "$work/cpu_parts_$short")" \
    "(linear: $(awk -v a="$long" -v b="$short" 'BEGIN { printf "%.0f", a / b }'); goal <= 4.5 at 4x)"
echo "CPU ratio, steps $long_steps / $short_steps: $(ratio "$work/cpu_steps_$long_steps" "$work/cpu_steps_$short_steps")"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
