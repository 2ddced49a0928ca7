#!/bin/sh
# Peak resident memory of a long outside-agent session on the wire.
#
#   benches/wire_memory.sh [TURNS...]     (default: 1000 3000)
#   BIN=target/debug/agent-eval benches/wire_memory.sh 500   (another build)
#
# A stand-in client (Python, plain HTTP, the Anthropic Messages API) sends
# its whole conversation with every request, as Claude Code and Codex do,
# with a 40 KB system prompt and 20 tools of about 2 KB each, and runs
# every bash call the model makes (`echo`); agent-eval runs it with
# `--agent` on a scripted scenario of TURNS bash calls. The wire's record
# keeps each message, system prompt and tool list once, so the peak grows
# with the turns, not with the turns squared (it kept every request whole:
# 2,000 requests of a conversation hold 4 million messages as sent).
# Prints GNU time's "Maximum resident set size" (of agent-eval or the
# client, whichever is larger: agent-eval's), the wall time, agent-eval's
# CPU time (the whole tree's user + system less the client's own, which
# the client measures) and the time per request as the client sees it
# (from sending the body to reading the answer: the server's parsing, the
# model, the record), the median of the first and of the last tenth of the
# requests: with the per-request work linear in the request, the last
# tenth's grows only by parsing the longer conversation. Builds the
# `dist` binary first unless BIN is given.
#
#   CALLGRIND=1 benches/wire_memory.sh 300 1000 3000
#
# counts instructions instead, which the machine's load does not move:
# agent-eval's (valgrind --tool=callgrind; the client, a child process, is
# not traced) for a session of N turns and one of N + 50, and their
# difference over 50: what one request costs around turn N, everything
# included (reading the body, the model, the record, the report's share).
# A time per request that stops growing is the same figure at every N.
set -eu
cd "$(dirname "$0")/.."
if [ -z "${BIN:-}" ]; then
    cargo build --profile dist --quiet --bin agent-eval
fi
bin=${BIN:-target/dist/agent-eval}
[ $# -gt 0 ] || set -- 1000 3000
mkdir -p target
work=$(mktemp -d -p target)
trap 'rm -rf "$work"' EXIT
cat >"$work/client.py" <<'EOF'
import json, os, sys, time, urllib.request
report = sys.argv[1]
latencies = []
url = os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages"
system = "You are a careful coding agent. Follow the rules below. " * 700
tools = [{"name": "bash", "description": "Runs a shell command. " * 90,
          "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}}}]
tools += [{"name": "tool_%d" % k, "description": "A tool this run never calls. " * 70,
           "input_schema": {"type": "object", "properties": {"x": {"type": "string"}}}}
          for k in range(19)]
messages = [{"role": "user", "content": sys.stdin.read().strip()}]
while True:
    body = json.dumps({"model": "m", "max_tokens": 1024, "system": system,
                       "tools": tools, "messages": messages}).encode()
    request = urllib.request.Request(url, body, {"content-type": "application/json"})
    start = time.perf_counter()
    answer = urllib.request.urlopen(request, timeout=60).read()
    latencies.append(time.perf_counter() - start)
    reply = json.loads(answer)
    messages.append({"role": "assistant", "content": reply["content"]})
    calls = [b for b in reply["content"] if b["type"] == "tool_use"]
    if reply["stop_reason"] != "tool_use" or not calls:
        break
    messages.append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": c["id"],
         "content": "ran: " + c["input"].get("command", "")} for c in calls]})
def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else 0.0
tenth = max(1, len(latencies) // 10)
cpu = os.times()
with open(report, "w") as out:
    out.write("%.3f %.3f %.3f\n" % (cpu.user + cpu.system,
              1000 * median(latencies[:tenth]), 1000 * median(latencies[-tenth:])))
EOF
# A scripted scenario of $1 bash calls, written to $2.
scenario() {
    awk -v n="$1" -v client="$PWD/$work/client.py" -v report="$PWD/$work/client.txt" 'BEGIN {
        print "name: long-wire-session"; print "task: Run the commands."
        print "steps:"; print "  - text: Run them"
        print "agent:"; print "  todo: false"; print "  max_turns: 10000"
        printf "  command: python3 %s %s\n", client, report; print "  task_via: stdin"
        print "  timeout_s: 3600"
        print "model:"; print "  script:"
        for (i = 0; i < n; i++) printf "    - {tool: bash, input: {command: \"echo %d\"}}\n", i
        print "    - text: Done."
    }' >"$2"
}
# agent-eval's instructions for a session of $1 turns, under callgrind.
instructions() {
    scenario "$1" "$work/session.yaml"
    valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" \
        "$bin" run "$work/session.yaml" --quiet --json /dev/null >"$work/out" 2>"$work/valgrind" ||
        cat "$work/out" "$work/valgrind" >&2
    # The process's own count (a child forked before its exec reports one too).
    pid=$(sed -n 's/^==\([0-9]*\)==.*/\1/p;T;q' "$work/valgrind")
    sed -n "s/^==$pid== Collected : //p" "$work/valgrind"
}
if [ -n "${CALLGRIND:-}" ]; then
    echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (instructions do not depend on it)"
    printf '%7s %16s %16s %16s\n' turns "instr (N)" "instr (N + 50)" "instr/request"
    for n in "$@"; do
        a=$(instructions "$n")
        b=$(instructions $((n + 50)))
        printf '%7s %16s %16s %16s\n' "$n" "$a" "$b" $(((b - a) / 50))
    done
    exit 0
fi
echo "$(nproc) cores; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%7s %9s %10s %9s %13s %13s\n' turns "peak MiB" wall "CPU s" "ms/req first" "ms/req last"
for n in "$@"; do
    scenario "$n" "$work/session.yaml"
    /usr/bin/time -v "$bin" run "$work/session.yaml" --quiet --json /dev/null \
        >"$work/out" 2>"$work/time" || cat "$work/out" "$work/time" >&2
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time")
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time")
    user=$(sed -n 's/.*User time (seconds): //p' "$work/time")
    sys=$(sed -n 's/.*System time (seconds): //p' "$work/time")
    read -r client_cpu first last <"$work/client.txt"
    cpu=$(awk -v u="$user" -v s="$sys" -v c="$client_cpu" 'BEGIN { printf "%.2f", u + s - c }')
    printf '%7s %9s %10s %9s %13s %13s\n' "$n" "$(echo "$rss" | awk '{printf "%.1f", $1/1024}')" \
        "$wall" "$cpu" "$first" "$last"
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
