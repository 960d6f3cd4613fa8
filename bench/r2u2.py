#!/usr/bin/env python3
"""rvmon against r2u2_cli 4.2.4 on R2U2 specifications (issue 30): the same C2PO file and trace,
both writing r2u2_cli's verdict lines, in the same run on the same machine.

Usage:
  python3 bench/r2u2.py RVMON R2U2_CLI [STEPS]      (default STEPS = 1000000)
  e.g. python3 bench/r2u2.py target/release/rvmon /work/peers/r2u2/bin/r2u2_cli 1000000

The specification has three formulas, two future-time and one past-time:
  F1: G[5,10] a0                         (a window of 6 steps)
  F2: a0 U[0,5] (a1 && a2)
  F3: H[0,8] (a1 -> O[2,5] a0)
over a fixed-seed random trace of 3 Boolean signals. Best of RUNS (default 3) wall time of each
tool, its peak resident memory (/usr/bin/time), and whether the two outputs are identical byte
for byte. rvmon's queue memory, from --explain, is printed too.
"""
import os
import random
import re
import subprocess
import sys
import tempfile
import time

RUNS = int(os.environ.get("RUNS", "3"))
SPEC = """INPUT
    a0, a1, a2: bool;
FTSPEC
    G[5,10] a0;
    a0 U[0,5] (a1 && a2);
PTSPEC
    H[0,8] (a1 -> O[2,5] a0);
"""


def timed(cmd, out):
    """(best wall seconds, peak RSS in KiB) of `cmd`, its standard output to `out`."""
    best, rss = float("inf"), 0
    for _ in range(RUNS):
        with open(out, "w") as f:
            t0 = time.perf_counter()
            p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=f, stderr=subprocess.PIPE,
                               text=True, cwd=os.path.dirname(out))
            best = min(best, time.perf_counter() - t0)
        if p.returncode != 0:
            sys.exit("%s failed: %s" % (cmd[0], p.stderr[-500:]))
        rss = max(rss, int(p.stderr.strip().splitlines()[-1]))
    return best, rss


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rvmon, peer = os.path.abspath(sys.argv[1]), sys.argv[2]
    steps = int(sys.argv[3]) if len(sys.argv) > 3 else 1_000_000
    tmp = tempfile.mkdtemp(prefix="rvmon-r2u2-bench-")
    spec = os.path.join(tmp, "bench.c2po")
    with open(spec, "w") as f:
        f.write(SPEC)
    trace = os.path.join(tmp, "trace.csv")
    rng = random.Random(30)
    with open(trace, "w") as f:
        f.write("# a0,a1,a2\n")
        for _ in range(steps):
            f.write("%d,%d,%d\n" % (rng.random() < 0.9, rng.random() < 0.5, rng.random() < 0.5))
    ours, ours_rss = timed([rvmon, "check", spec, trace, "--output", "r2u2"], os.path.join(tmp, "ours.txt"))
    theirs, theirs_rss = timed([peer, "run", spec, trace], os.path.join(tmp, "theirs.txt"))
    verdict = re.compile(r"^\d+:\d+,[TF]$")
    with open(os.path.join(tmp, "theirs.txt")) as f:
        theirs_lines = [l for l in f.read().splitlines() if verdict.match(l)]
    with open(os.path.join(tmp, "ours.txt")) as f:
        ours_lines = f.read().splitlines()
    explain = subprocess.run([rvmon, "check", spec, "--explain"], capture_output=True, text=True).stdout
    memory = [l for l in explain.splitlines() if l.startswith("memory:")]
    print("%s vs %s; %d steps, 3 formulas; best of %d; %s" % (rvmon, peer, steps, RUNS, time.strftime("%Y-%m-%d")))
    print()
    print("| tool | seconds | steps/s | peak RSS MiB | verdict lines |")
    print("|---|---|---|---|---|")
    print("| rvmon | %.3f | %.0f | %.1f | %d |" % (ours, steps / ours, ours_rss / 1024, len(ours_lines)))
    print("| r2u2_cli | %.3f | %.0f | %.1f | %d |" % (theirs, steps / theirs, theirs_rss / 1024, len(theirs_lines)))
    print()
    print("speed-up: %.1fx; identical lines: %s; rvmon's queues: %s" % (
        theirs / ours, "yes" if ours_lines == theirs_lines else "NO", memory[0] if memory else "?"))


if __name__ == "__main__":
    main()
