#!/usr/bin/env bash
# Reading transcripts as a user does, next to a plain Python pass over the
# same files, whole processes, in MB/s.
#
#   benches/calibrate_read.sh [FOLDER] [ROUNDS]     (default: a generated corpus, 3)
#
# FOLDER is any folder of Claude Code transcripts (*.jsonl below it); by
# default a corpus shaped like Claude Code 2.1.x sessions is generated
# into target/calibrate-read-corpus/ (ignored by git): 120 sessions of 60
# turns, about 55 MB, responses split into a record per content block,
# tool results of a few kilobytes, TodoWrite calls and reminders.
#
# Alternates ROUNDS times between
#   agent-eval calibrate --format claude-code FOLDER --json /dev/null
# (`dist` build; the whole command: start-up, the read, and what it does
# with the sessions) and
#   python3 -c '... json.loads(line) for every line of every file ...'
# (no interpretation at all: the floor of a json-lines pass), each timed
# from outside. Prints each side's median wall time and MB/s over the
# corpus's bytes. The target for agent-eval's read is >= 100 MB/s on one
# core; `cargo bench --bench transcripts` measures the reader alone.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${2:-3}
cargo build --profile dist --quiet --bin agent-eval
bin=target/dist/agent-eval
if [ -n "${1:-}" ]; then
    corpus=$1
else
    corpus=target/calibrate-read-corpus
    if [ ! -d "$corpus" ]; then
        mkdir -p "$corpus"
        python3 - "$corpus" <<'PY'
import json, sys, os
out = sys.argv[1]
def text(n, seed):
    line = f"    let value_{seed} = compute(&input, {seed}); // a line of code\n"
    return (line * (n // len(line) + 1))[:n]
for s in range(120):
    meta = {"parentUuid": "p", "isSidechain": False, "userType": "external", "cwd": "/home/user/project",
            "sessionId": f"s{s}", "version": "2.1.330", "gitBranch": "main",
            "uuid": "00000000-0000-0000-0000-000000000000", "timestamp": "2026-11-27T00:00:00.000Z"}
    rec = lambda kind, **kw: {**meta, "type": kind, **kw}
    lines = [rec("user", message={"role": "user", "content": "Refactor the parser into modules."})]
    for t in range(60):
        usage = {"input_tokens": 4, "cache_read_input_tokens": 20000 + 900 * t,
                 "cache_creation_input_tokens": 300, "output_tokens": 250}
        def block(content):
            return rec("assistant", message={"id": f"msg_{s}_{t}", "type": "message", "role": "assistant",
                       "model": "claude-sonnet-4-5", "content": [content], "stop_reason": None, "usage": usage})
        lines.append(block({"type": "text", "text": text(300, t)}))
        if t % 7 == 0:
            todos = [{"content": f"Step {k}", "activeForm": f"Doing {k}",
                      "status": "completed" if k < t // 7 else "pending"} for k in range(6)]
            call = ("TodoWrite", {"todos": todos})
        else:
            call = ("Read", {"file_path": f"/home/user/project/src/m{t}.rs"})
        lines.append(block({"type": "tool_use", "id": f"toolu_{s}_{t}", "name": call[0], "input": call[1]}))
        lines.append(rec("user", message={"role": "user", "content": [
            {"tool_use_id": f"toolu_{s}_{t}", "type": "tool_result", "content": text(6000, t)}]}))
        if t % 10 == 9:
            lines.append(rec("attachment", attachment={"type": "todo_reminder", "content": [], "itemCount": 6}))
    with open(os.path.join(out, f"s{s}.jsonl"), "w") as f:
        for line in lines:
            f.write(json.dumps(line, separators=(",", ":")) + "\n")
PY
    fi
fi
bytes=$(find "$corpus" -name '*.jsonl' -type f -print0 | xargs -0 cat | wc -c)
echo "corpus: $corpus, $(find "$corpus" -name '*.jsonl' -type f | wc -l) files, $bytes bytes; load: $(cut -d' ' -f1-3 /proc/loadavg)"
python_pass='
import json, os, sys
n = 0
for root, _, files in os.walk(sys.argv[1]):
    for name in sorted(files):
        if name.endswith(".jsonl"):
            with open(os.path.join(root, name), "rb") as f:
                for line in f:
                    if line.strip():
                        json.loads(line)
                        n += 1
print(n, file=sys.stderr)
'
seconds() { local start end; start=$(date +%s.%N); "$@" >/dev/null 2>&1; end=$(date +%s.%N); echo "$end - $start" | bc -l; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
has_calibrate=1
"$bin" calibrate --help >/dev/null 2>&1 || has_calibrate=0
ours=(); theirs=()
for _ in $(seq "$ROUNDS"); do
    [ $has_calibrate = 1 ] && ours+=("$(seconds "$bin" calibrate --format claude-code "$corpus" --json /dev/null)")
    theirs+=("$(seconds python3 -c "$python_pass" "$corpus")")
done
sides="agent-eval python"
[ $has_calibrate = 1 ] || sides=python
for side in $sides; do
    if [ $side = agent-eval ]; then times=("${ours[@]}"); else times=("${theirs[@]}"); fi
    m=$(printf '%s\n' "${times[@]}" | median)
    printf '%-10s median %6.2f s  %7.1f MB/s\n' "$side" "$m" "$(echo "$bytes / 1000000 / $m" | bc -l)"
done
if [ $has_calibrate = 0 ]; then
    echo "calibrate_read.sh: this build has no \`agent-eval calibrate\`: only the Python side was timed" >&2
    exit 1
fi
