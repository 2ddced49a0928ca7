#!/usr/bin/env python3
"""Strips what is machine- or session-specific from a request captured by capture.py.

Usage: sanitize.py CAPTURE.json OUT.json ROOT
ROOT is the capture's temporary folder (holding ws/, home/, codexhome/): its paths
become /workspace, /home/agent and /codex-home. UUIDs and long hex ids become
stable placeholders (the same id maps to the same placeholder, so links between
items survive), the port becomes PORT, the kernel version and clock readings are
blanked. Credentials never reach the capture (capture.py drops them).
"""

import json
import re
import sys

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
HEX64 = re.compile(r"\b[0-9a-f]{64}\b")
PORT = re.compile(r"127\.0\.0\.1:\d+")
KERNEL = re.compile(r"OS Version: Linux [^\s\\\"]+")
UNIX_MS = re.compile(r'(turn_started_at_unix_ms\\?"\s*:\s*)\d+')


def main():
    src, dst, root = sys.argv[1], sys.argv[2], sys.argv[3].rstrip("/")
    text = open(src, encoding="utf-8").read()
    for sub, name in (("ws", "/workspace"), ("home", "/home/agent"), ("codexhome", "/codex-home")):
        text = text.replace(f"{root}/{sub}", name)
    ids = {}

    def placeholder(match):
        value = match.group(0)
        if value not in ids:
            ids[value] = f"00000000-0000-4000-8000-{len(ids) + 1:012d}"
        return ids[value]

    text = UUID.sub(placeholder, text)
    text = HEX64.sub("0" * 64, text)
    text = PORT.sub("127.0.0.1:PORT", text)
    text = KERNEL.sub("OS Version: Linux", text)
    text = UNIX_MS.sub(r"\g<1>0", text)
    entry = json.loads(text)
    entry.pop("index", None)
    headers = entry.get("headers") or {}
    headers.pop("content-length", None)
    with open(dst, "w", encoding="utf-8") as f:
        json.dump(entry, f, indent=2, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
