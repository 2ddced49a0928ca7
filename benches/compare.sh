#!/usr/bin/env bash
# Paired cost per episode: agent-eval vs a plain Python s03 loop
# (benches/peer/s03_loop.py) vs inspect_ai (benches/peer/inspect_episode.py)
# on the same scripted episodes, in one run.
#
#   benches/compare.sh [N] [ROUNDS]
#
# For each episode file benches/peer/*_episode.yaml it alternates ROUNDS
# times between `agent-eval run` of the episode repeated N times (one job,
# so one core), the Python loop doing the same N episodes, and inspect_ai
# doing them as one eval of N samples (one at a time), and prints the
# median seconds per episode of each, in wall time and in CPU time (user
# + system, the spawned shells included; less sensitive to other load on
# the machine), and the ratios of the peers to agent-eval. agent-eval is
# measured twice, as it runs by default and with `--no-reuse`: by default
# a shell call it knows to only read, repeated on the same files, is not
# run again (its effect is reused), while the peers run every call, so the
# `--no-reuse` column is the like-for-like one; both are shown. Times are
# taken with microsecond digits (benches/peer/timed.py), and a figure
# below what can be measured is printed `n/a`, never 0 or a division by
# zero. Every side does the whole episode: a fresh workspace, the
# loop, the file checks, cleanup.
#
# The Python peers run in their own virtual environment, target/peer-venv,
# made on the first run from the pinned benches/peer/requirements.txt (so
# nothing is installed into the user's Python). If inspect_ai cannot be
# installed, its column is skipped with a message and the rest still runs.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-1000}
ROUNDS=${2:-3}
cargo build --profile dist --quiet
bin=target/dist/agent-eval
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The Python side: a venv with PyYAML (required) and inspect_ai (optional).
venv=target/peer-venv
requirements=benches/peer/requirements.txt
stamp=$venv/.requirements.sha256
want=$(sha256sum "$requirements" | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    rm -rf "$venv"
    if python3 -m venv "$venv" \
        && "$venv/bin/pip" install --quiet --disable-pip-version-check 'pyyaml==6.0.2'; then
        if "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"; then
            echo "$want" > "$stamp"
        else
            echo "compare.sh: inspect_ai could not be installed into $venv (see pip's message above)" >&2
        fi
    else
        echo "compare.sh: could not set up the virtual environment $venv; the Python loop uses python3" >&2
        rm -rf "$venv"
    fi
fi
if [ -x "$venv/bin/python" ]; then py=$venv/bin/python; else py=python3; fi
"$py" -c 'import yaml' 2>/dev/null || "$py" -m pip install --quiet 'pyyaml==6.0.2'
if "$py" -c 'import inspect_ai' 2>/dev/null; then
    inspect=yes
else
    inspect=no
    echo "compare.sh: inspect_ai is not available: the inspect_ai column is skipped" >&2
fi

median() { sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.9f\n", m}'; }
# Seconds as microseconds; n/a when not above zero (below resolution).
us() { awk -v s="$1" 'BEGIN { if (s > 0) printf "%.1fus", s * 1e6; else printf "n/a" }'; }
# A ratio, or n/a when either side is not above zero.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.1fx", a / b; else printf "n/a" }'; }

# What each episode file measures, as its row's name.
row_name() {
    case "$1" in
        file_tools_episode) echo "file tools only" ;;
        one_shell_episode) echo "read-only shell call" ;;
        spawn_episode) echo "one spawn (writes)" ;;
        *) echo "$1" ;;
    esac
}

echo "N=$N episodes per side per round, $ROUNDS rounds; $(nproc) cores; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "python: $("$py" --version 2>&1)$([ "$inspect" = yes ] && echo ", inspect_ai $("$py" -c 'import inspect_ai; print(inspect_ai.__version__)')")"
# One row: name, then the four medians (seconds; inspect_ai's may be
# "skipped"): agent-eval, agent-eval --no-reuse, the loop, inspect_ai.
row() {
    local inspect=skipped inspect_ratio=-
    if [ "$5" != skipped ]; then inspect=$(us "$5"); inspect_ratio=$(ratio "$5" "$3"); fi
    printf '%-26s %11s %11s %12s %12s %9s %11s %11s\n' "$1" "$(us "$2")" "$(us "$3")" "$(us "$4")" \
        "$inspect" "$(ratio "$4" "$2")" "$(ratio "$4" "$3")" "$inspect_ratio"
}
header() {
    printf '%-26s %11s %11s %12s %12s %9s %11s %11s\n' "$1" "agent-eval" "--no-reuse" "python loop" \
        "inspect_ai" "loop/ae" "loop/no-re" "insp/no-re"
}
# agent-eval's seconds per episode (wall and CPU) from a one-episode and an
# N-episode run of the same file, with the extra flags given: the fixed
# cost (start, loading, the report) taken out, as the peers time inside.
per_episode() {
    local name=$1; shift
    local one all
    one=$("$py" benches/peer/timed.py "$bin" run "$work/$name.one.yaml" --jobs 1 --quiet "$@")
    all=$("$py" benches/peer/timed.py "$bin" run "$work/$name.yaml" --jobs 1 --quiet "$@")
    echo "$one $all" | awk -v n="$N" '{ printf "%.9f %.9f %.9f\n", ($3 - $1) / (n - 1), ($4 - $2) / (n - 1), $1 }'
}

: > "$work/table"; : > "$work/fixed-costs"
for episode in benches/peer/*_episode.yaml; do
    name=$(basename "$episode" .yaml)
    # The same episode, N seeds: a scripted run replays identically per
    # seed. Its `expect:` block stays, so agent-eval checks every episode
    # (steps done, turns, stop) and a failure stops the comparison, as the
    # peers' own checks do.
    { cat "$episode"; printf '\nruns:\n  seeds: %d\n' "$N"; } > "$work/$name.yaml"
    { cat "$episode"; printf '\nruns:\n  seeds: 1\n'; } > "$work/$name.one.yaml"
    # Each file gets one line per round: wall seconds and CPU seconds
    # (user + system, spawned shells included) per episode.
    : > "$work/ae"; : > "$work/nr"; : > "$work/py"; : > "$work/in"; : > "$work/fixed"
    for _ in $(seq "$ROUNDS"); do
        # The peers time their episodes inside the interpreter (its start,
        # the imports and the YAML parse are not counted). agent-eval is
        # timed from outside, so its fixed cost (process start, loading the
        # scenario, the report) is taken out the same way: a one-episode
        # run is timed too, and the difference is spread over N - 1.
        per_episode "$name" > "$work/measured"
        read -r wall cpu fixed < "$work/measured"
        echo "$wall $cpu" >> "$work/ae"
        echo "$fixed" >> "$work/fixed"
        per_episode "$name" --no-reuse > "$work/measured"
        read -r wall cpu _ < "$work/measured"
        echo "$wall $cpu" >> "$work/nr"
        "$py" benches/peer/s03_loop.py "$episode" "$N" >> "$work/py"
        if [ "$inspect" = yes ]; then
            "$py" benches/peer/inspect_episode.py "$episode" "$N" 2> "$work/in.err" >> "$work/in" \
                || { cat "$work/in.err" >&2; exit 1; }
        fi
    done
    for column in 1 2; do
        ae=$(cut -d' ' -f"$column" "$work/ae" | median)
        nr=$(cut -d' ' -f"$column" "$work/nr" | median)
        pl=$(cut -d' ' -f"$column" "$work/py" | median)
        if [ "$inspect" = yes ]; then in=$(cut -d' ' -f"$column" "$work/in" | median); else in=skipped; fi
        echo "$column $(row_name "$name")|$ae|$nr|$pl|$in" >> "$work/table"
    done
    echo "$(row_name "$name"): agent-eval's fixed cost (a one-episode run, wall): $(us "$(median < "$work/fixed")")" >> "$work/fixed-costs"
done
for column in 1 2; do
    echo
    if [ "$column" = 1 ]; then header "wall time per episode"; else header "CPU time per episode"; fi
    grep "^$column " "$work/table" | cut -d' ' -f2- | while IFS='|' read -r what ae nr pl in; do
        row "$what" "$ae" "$nr" "$pl" "$in"
    done
done
echo
cat "$work/fixed-costs"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
