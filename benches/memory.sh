#!/bin/sh
# Peak resident memory of agent-eval at growing episode counts.
#
#   benches/memory.sh [EPISODES...]      (default: 10000 100000 1000000)
#
# A cell runs at most 100,000 seeds, so the matrices have 10 or 11 cells:
#   - `sweep scenarios/ten_step_refactor.yaml --thresholds 1,2,3,4,5,6,7,8,off`
#     (9 thresholds with the planning tool and the baseline without it:
#     10 cells) with --seeds N/10;
#   - `run` on a copy of that scenario whose nag_threshold axis lists
#     1..9 and off (todo true and false: 11 cells) with --seeds N/11.
# Each writes its JSON report to /dev/null (the report is built and written
# in full; nothing large lands on disk). Prints GNU time's "Maximum resident
# set size" and the wall time. Builds the release binary first.
set -eu
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin agent-eval
bin=target/release/agent-eval
scenario=scenarios/ten_step_refactor.yaml
[ $# -gt 0 ] || set -- 10000 100000 1000000
# In target/ (ignored by git) so the copy can name the fixtures relatively.
mkdir -p target
work=$(mktemp -d -p target)
trap 'rm -rf "$work"' EXIT
wide="$work/ten_step_refactor_11_cells.yaml"
# (two folders down: its fixtures are ../../fixtures)
sed -e 's/^  nag_threshold: .*/  nag_threshold: [1, 2, 3, 4, 5, 6, 7, 8, 9, "off"]/' \
    -e 's#\.\./fixtures/#../../fixtures/#' "$scenario" >"$wide"
measure() {
    /usr/bin/time -v "$@" >/dev/null 2>"$work/time" || true
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time")
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time")
    echo "$(echo "$rss" | awk '{printf "%.1f", $1/1024}') $wall"
}
printf '%-6s %10s %9s  %s\n' command episodes "peak MiB" wall
for n in "$@"; do
    seeds=$((n / 10))
    result=$(measure "$bin" sweep "$scenario" --thresholds 1,2,3,4,5,6,7,8,off --seeds "$seeds" --json /dev/null)
    printf '%-6s %10s %9s  %s\n' sweep $((seeds * 10)) ${result}
    seeds=$((n / 11))
    result=$(measure "$bin" run "$wide" --quiet --seeds "$seeds" --json /dev/null)
    printf '%-6s %10s %9s  %s\n' run $((seeds * 11)) ${result}
done
