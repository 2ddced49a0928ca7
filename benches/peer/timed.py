"""Runs a command and prints its wall and CPU time (user + system, its
children included) in seconds with microsecond digits, on one line:
`WALL CPU`. Used by benches/compare.sh instead of the shell's `time`, whose
figures have millisecond digits only (a fixed cost subtracted at that
resolution made per-episode figures of 0 and ratios that divide by zero).
The command's output goes to /dev/null; a failure is its exit status."""

import resource
import subprocess
import sys
import time


def main() -> int:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"{wall:.6f} {cpu:.6f}")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
