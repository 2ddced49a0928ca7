#!/usr/bin/env bash
# The logic of the agent-eval GitHub Action (action.yml runs it; tests/action.rs
# runs it with the variables set as the runner sets them).
#
# Reads the action's inputs from INPUT_* variables, runs `agent-eval run` with the
# reports the action publishes, and writes the step's outputs to $GITHUB_OUTPUT:
#   passed     true | false
#   exit-code  agent-eval's exit status (0 held, 1 failed or regressed, 2 bad input)
#   json, html, markdown   the reports' paths
# It always exits 0 when agent-eval ran, so the steps after it (saving the history,
# uploading the HTML report) still run; the action's last step gates on exit-code.
# Annotations and the job summary come from agent-eval itself (GITHUB_ACTIONS=true).
set -euo pipefail

: "${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set: run this inside GitHub Actions or set it}"
out_dir="${INPUT_REPORT_DIR:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/agent-eval}"
mkdir -p "$out_dir"

args=(run)
# Paths: whitespace- or newline-separated, as a YAML block lets a user write them.
read -r -d '' -a paths <<<"${INPUT_PATHS:-scenarios/}" || true
if [ "${#paths[@]}" -eq 0 ]; then
    echo "agent-eval action: the 'paths' input is empty" >&2
    exit 2
fi
args+=("${paths[@]}")

json="$out_dir/report.json"
markdown="$out_dir/summary.md"
args+=(--json "$json" --markdown "$markdown")
html=""
if [ "${INPUT_HTML:-true}" = "true" ]; then
    html="$out_dir/report.html"
    args+=(--html "$html")
fi
if [ -n "${INPUT_AGENT:-}" ]; then
    args+=(--agent "$INPUT_AGENT")
fi
case "${INPUT_BASELINE:-}" in
    "") ;;
    history)
        db="${INPUT_HISTORY_PATH:?the action sets INPUT_HISTORY_PATH when baseline is history}"
        mkdir -p "$(dirname "$db")"
        # A history restored from the cache is the baseline; a new one only records.
        if [ -s "$db" ]; then
            args+=(--baseline "$db")
        fi
        args+=(--history "$db")
        ;;
    *) args+=(--baseline "$INPUT_BASELINE") ;;
esac
# More arguments: shell words, separated by spaces or new lines, quoted
# with '...' or "..." or a backslash as in a shell (`--filter 'two words'`).
# xargs splits them: nothing is expanded, nothing is run (no eval).
if [ -n "${INPUT_ARGS:-}" ] && [ -n "${INPUT_ARGS//[[:space:]]/}" ]; then
    if ! words=$(printf '%s\n' "$INPUT_ARGS" | xargs printf '%s\0' 2>&1 >/dev/null); then
        echo "agent-eval action: the 'args' input is not valid shell words: $words" >&2
        exit 2
    fi
    while IFS= read -r -d '' word; do
        args+=("$word")
    done < <(printf '%s\n' "$INPUT_ARGS" | xargs printf '%s\0')
fi

printf 'agent-eval'; printf ' %q' "${args[@]}"; echo
status=0
agent-eval "${args[@]}" || status=$?

{
    if [ "$status" -eq 0 ]; then echo "passed=true"; else echo "passed=false"; fi
    echo "exit-code=$status"
    echo "json=$json"
    echo "markdown=$markdown"
    echo "html=$html"
} >>"$GITHUB_OUTPUT"
