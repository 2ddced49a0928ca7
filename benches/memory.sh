#!/bin/sh
# Peak resident memory of agent-eval at growing episode counts.
#
#   benches/memory.sh [EPISODES...]      (default: 10000 100000 1000000)
#   COMMANDS=merge benches/memory.sh 100000   (some of: sweep run merge session)
#   COMMANDS=session benches/memory.sh 1000 2000   (steps per part)
#
# A cell runs at most 100,000 seeds, so the matrices have 10 or 11 cells:
#   - `sweep scenarios/ten_step_refactor.yaml --thresholds 1,2,3,4,5,6,7,8,off`
#     (9 thresholds with the planning tool and the baseline without it:
#     10 cells) with --seeds N/10;
#   - `run` on a copy of that scenario whose nag_threshold axis lists
#     1..9 and off (todo true and false: 11 cells) with --seeds N/11.
#   - `merge` of the three shards (`run --shard K/3`, not measured) of that
#     `run`: the shard reports are written to target/ (some 450 MB at a
#     million episodes) and deleted after the row.
#   - `session`: one run of a two-part session of N steps a part (each
#     writes a file; s03, whose todo takes at most 20 items), the figure
#     `memory grows with steps x turns` was about: its peak must stay flat
#     as N doubles (the conversation grows with the turns only).
#     Not in the default COMMANDS (N there counts episodes).
# Each writes its JSON report to /dev/null (the report is built and written
# in full). Prints GNU time's "Maximum resident set size" and the wall
# time. Builds the `dist` binary first.
set -eu
cd "$(dirname "$0")/.."
cargo build --profile dist --quiet --bin agent-eval
bin=target/dist/agent-eval
scenario=scenarios/ten_step_refactor.yaml
[ $# -gt 0 ] || set -- 10000 100000 1000000
commands=${COMMANDS:-sweep run merge}
# A two-part session of $1 steps a part, written to $2.
session_scenario() {
    awk -v n="$1" 'BEGIN {
        print "name: long-session"; print "session:"
        for (part = 0; part < 2; part++) {
            printf "  - task: \"Part %d: write the files.\"\n    steps:\n", part + 1
            for (i = 0; i < n; i++) {
                k = part * n + i
                printf "      - text: \"Write f%d.txt\"\n", k
                printf "        check: {file: f%d.txt, exists: true}\n", k
                printf "        do: [{tool: write_file, input: {path: f%d.txt, content: x}}]\n", k
            }
        }
        print "model:"; print "  simulate: {}"; print "agent:"; print "  max_turns: 10000"
        print "runs:"; print "  seeds: 1"
    }' >"$2"
}
wants() { case " $commands " in *" $1 "*) return 0 ;; esac; return 1; }
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
    if wants session; then
        session_scenario "$n" "$work/session.yaml"
        result=$(measure "$bin" run "$work/session.yaml" --quiet --json /dev/null)
        printf '%-6s %10s %9s  %s\n' session "2x$n" ${result}
    fi
    if wants sweep; then
        seeds=$((n / 10))
        result=$(measure "$bin" sweep "$scenario" --thresholds 1,2,3,4,5,6,7,8,off --seeds "$seeds" --json /dev/null)
        printf '%-6s %10s %9s  %s\n' sweep $((seeds * 10)) ${result}
    fi
    seeds=$((n / 11))
    if wants run; then
        result=$(measure "$bin" run "$wide" --quiet --seeds "$seeds" --json /dev/null)
        printf '%-6s %10s %9s  %s\n' run $((seeds * 11)) ${result}
    fi
    if wants merge; then
        for k in 1 2 3; do
            "$bin" run "$wide" --quiet --seeds "$seeds" --shard "$k/3" \
                --json "$work/shard$k.json" >/dev/null
        done
        result=$(measure "$bin" merge "$work/shard1.json" "$work/shard2.json" \
            "$work/shard3.json" --quiet --json /dev/null)
        printf '%-6s %10s %9s  %s\n' merge $((seeds * 11)) ${result}
        rm -f "$work/shard1.json" "$work/shard2.json" "$work/shard3.json"
    fi
done
