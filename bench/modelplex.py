#!/usr/bin/env python3
"""ModelPlex monitor conditions (issue 35): state pairs per second on paper 17's water tank.

Usage:
  python3 bench/modelplex.py RVMON [PAIRS]         (default PAIRS = 10000000)
  e.g. cargo build --release -p rvmon-cli -p rvmon-modelplex --example throughput
       python3 bench/modelplex.py target/release/rvmon 10000000

A compliant water-tank run (fixed seed): inflows f in hundredths between max(-1, -x) and
m - x, plant steps t of 0.25 to 1, the level x' = x + f*t exactly (decimals of up to four
digits). It measures, best of RUNS (default 3):
  - `rvmon check examples/modelplex/watertank.modelplex TRACE.csv` (exact arithmetic),
  - the same with --tolerance 0.000001,
  - a condition that reads the same columns and decides at once (`x' > -1000000`): what
    reading the CSV costs,
  - the evaluator alone, without reading (target/release/examples/throughput, next to
    RVMON), exact and with the tolerance.
There is no peer to compare with: ModelPlex's own monitors are generated code inside
KeYmaera X (a JVM application that no registry reachable here distributes).
"""
import os
import random
import re
import subprocess
import sys
import tempfile
import time

RUNS = int(os.environ.get("RUNS", "3"))
HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = os.path.join(HERE, "..", "examples", "modelplex", "watertank.modelplex")


def trace(path, pairs):
    rng = random.Random(35)
    x4 = 2000  # the level in units of 1/400 (x = 5)
    with open(path, "w") as f:
        f.write("time,x,f,t\n0,5,0,0\n")
        rows = []
        for i in range(1, pairs + 1):
            down, up = x4 // 4, -(-x4 // 4)  # floor and ceil of x in hundredths
            fc = rng.randint(max(-100, -down), 1000 - up)
            tq = rng.randint(1, 4)  # t in quarters
            x4 += fc * tq
            rows.append(f"{i},{x4 / 400:g},{fc / 100:g},{tq / 4:g}\n")
            if len(rows) == 100000:
                f.write("".join(rows))
                rows = []
        f.write("".join(rows))


def timed(cmd):
    """(best wall seconds, peak RSS KiB, exit status) of `cmd`."""
    best, rss, status = float("inf"), 0, None
    for _ in range(RUNS):
        t = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, capture_output=True, text=True)
        best = min(best, time.perf_counter() - t)
        rss = max(rss, int(p.stderr.strip().splitlines()[-1]))
        status = p.returncode
    return best, rss, status


def main():
    rvmon = sys.argv[1]
    pairs = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000_000
    throughput = os.path.join(os.path.dirname(rvmon), "examples", "throughput")
    with tempfile.TemporaryDirectory() as d:
        csv = os.path.join(d, "watertank.csv")
        trace(csv, pairs)
        quick = os.path.join(d, "read.modelplex")
        with open(quick, "w") as f:
            f.write("x' > -1000000 & f' > -1000000 & t' > -1000000\n")
        print(f"{pairs} pairs, {os.path.getsize(csv) / 1e6:.0f} MB of CSV; best of {RUNS}")
        for name, cmd in [
            ("check, exact", [rvmon, "check", SPEC, csv]),
            ("check, --tolerance 0.000001", [rvmon, "check", SPEC, csv, "--tolerance", "0.000001"]),
            ("reading only (x' > -1e6)", [rvmon, "check", quick, csv]),
        ]:
            secs, rss, status = timed(cmd)
            print(f"  {name:32} {secs:6.2f} s  {pairs / secs / 1e6:5.2f} M pairs/s  "
                  f"{rss / 1024:5.0f} MiB  status {status}")
        if os.path.exists(throughput):
            for name, extra in [("evaluator alone, exact", []),
                                ("evaluator alone, tolerance", ["0.000001"])]:
                best = 0.0
                for _ in range(RUNS):
                    out = subprocess.run([throughput, SPEC, str(pairs)] + extra,
                                         capture_output=True, text=True).stdout
                    best = max(best, float(re.search(r"pairs_per_second=(\d+)", out).group(1)))
                print(f"  {name:32}          {best / 1e6:5.2f} M pairs/s")
        else:
            print(f"  ({throughput} not built: the evaluator alone is not measured)")


if __name__ == "__main__":
    main()
