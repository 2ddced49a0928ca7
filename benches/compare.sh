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
# the machine), and the ratios of the peers to agent-eval. Every side does the whole episode: a fresh workspace, the
# loop, the file checks, cleanup.
#
# The Python peers run in their own virtual environment, target/peer-venv,
# made on the first run from the pinned benches/peer/requirements.txt (so
# nothing is installed into the user's Python). If inspect_ai cannot be
# installed, its column is skipped with a message and the rest still runs.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-300}
ROUNDS=${2:-3}
cargo build --release --quiet
bin=target/release/agent-eval
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
ms() { printf '%.3fms' "$(echo "$1*1000" | bc -l)"; }
ratio() { printf '%.1fx' "$(echo "$1/$2" | bc -l)"; }

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
# One row: name, then the three medians (seconds) or "skipped".
row() {
    if [ "$4" = skipped ]; then
        printf '%-26s %12s %12s %12s %10s %10s\n' "$1" "$(ms "$2")" "$(ms "$3")" skipped "$(ratio "$3" "$2")" -
    else
        printf '%-26s %12s %12s %12s %10s %10s\n' "$1" "$(ms "$2")" "$(ms "$3")" "$(ms "$4")" \
            "$(ratio "$3" "$2")" "$(ratio "$4" "$2")"
    fi
}
header() { printf '%-26s %12s %12s %12s %10s %10s\n' "$1" "agent-eval" "python loop" "inspect_ai" "loop/ae" "inspect/ae"; }

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
    : > "$work/ae"; : > "$work/py"; : > "$work/in"; : > "$work/fixed"
    for _ in $(seq "$ROUNDS"); do
        TIMEFORMAT='%R %U %S'
        # The peers time their episodes inside the interpreter (its start,
        # the imports and the YAML parse are not counted). agent-eval is
        # timed from outside, so its fixed cost (process start, loading the
        # scenario, the report) is taken out the same way: a one-episode
        # run is timed too, and the difference is spread over N - 1.
        { time "$bin" run "$work/$name.one.yaml" --jobs 1 --quiet > /dev/null 2>&1; } 2> "$work/time"
        read -r real1 user1 sys1 < "$work/time"
        { time "$bin" run "$work/$name.yaml" --jobs 1 --quiet > /dev/null 2>&1; } 2> "$work/time"
        read -r real user sys < "$work/time"
        echo "$(echo "($real - $real1) / ($N - 1)" | bc -l) $(echo "($user + $sys - $user1 - $sys1) / ($N - 1)" | bc -l)" >> "$work/ae"
        echo "$real1" >> "$work/fixed"
        "$py" benches/peer/s03_loop.py "$episode" "$N" >> "$work/py"
        if [ "$inspect" = yes ]; then
            "$py" benches/peer/inspect_episode.py "$episode" "$N" 2> "$work/in.err" >> "$work/in" \
                || { cat "$work/in.err" >&2; exit 1; }
        fi
    done
    for column in 1 2; do
        ae=$(cut -d' ' -f"$column" "$work/ae" | median)
        pl=$(cut -d' ' -f"$column" "$work/py" | median)
        if [ "$inspect" = yes ]; then in=$(cut -d' ' -f"$column" "$work/in" | median); else in=skipped; fi
        echo "$column $(row_name "$name")|$ae|$pl|$in" >> "$work/table"
    done
    echo "$(row_name "$name"): agent-eval's fixed cost (a one-episode run, wall): $(ms "$(median < "$work/fixed")")" >> "$work/fixed-costs"
done
for column in 1 2; do
    echo
    if [ "$column" = 1 ]; then header "wall time per episode"; else header "CPU time per episode"; fi
    grep "^$column " "$work/table" | cut -d' ' -f2- | while IFS='|' read -r what ae pl in; do
        row "$what" "$ae" "$pl" "$in"
    done
done
echo
cat "$work/fixed-costs"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
