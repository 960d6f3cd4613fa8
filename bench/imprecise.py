#!/usr/bin/env python3
"""Imprecise timestamps (issue 35): the cost of --timestamp-error on the timescales patterns.

Usage:
  python3 bench/imprecise.py RVMON [BOUND]       (default BOUND = 10; 1 M time points)
  e.g. python3 bench/imprecise.py target/release/rvmon 10

For each of the ten timescales patterns (../shared/data/timescales, the 100 k trace made
1 M time points long by `rvmon gen repeat LOG --copies 10`), in one run: `rvmon check F LOG`
(the ordinary, pointwise monitor), then with --timestamp-error 0, 1 and 5 (the formula
rewritten and its continuous semantics monitored over half-unit cells). Best of RUNS
(default 3) wall time and peak RSS of the whole process, and the verdict counts.
"""
import os
import re
import subprocess
import sys
import tempfile
import time

RUNS = int(os.environ.get("RUNS", "3"))
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "..", "shared", "data", "timescales")
PATTERNS = ["AbsentAQ", "AbsentBQR", "AbsentBR", "AlwaysAQ", "AlwaysBQR", "AlwaysBR",
            "RecurBQR", "RecurGLB", "RespondBQR", "RespondGLB"]


def timed(cmd):
    best, rss, err = float("inf"), 0, ""
    for _ in range(RUNS):
        t = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        best = min(best, time.perf_counter() - t)
        lines = p.stderr.strip().splitlines()
        rss = max(rss, int(lines[-1]))
        err = "\n".join(lines[:-1])
    return best, rss, err


def counts(summary):
    v = re.search(r"(\d+) violation", summary)
    u = re.search(r"(\d+) undetermined", summary)
    return f"{v.group(1) if v else '?'}" + (f"+{u.group(1)}u" if u else "")


def main():
    rvmon = sys.argv[1]
    bound = sys.argv[2] if len(sys.argv) > 2 else "10"
    if not os.path.isdir(DATA):
        sys.exit(f"SKIPPED: {DATA} is absent")
    print(f"timescales, bound {bound}, 1 M time points; best of {RUNS}; seconds (MiB) violations")
    print("| pattern | pointwise | δ = 0 | δ = 1 | δ = 5 | δ=1 / pointwise |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as d:
        for pat in PATTERNS:
            log = os.path.join(d, f"{pat}.log")
            with open(log, "w") as f:
                subprocess.run([rvmon, "gen", "repeat", os.path.join(DATA, f"{pat}{bound}.log"),
                                "--copies", "10"], stdout=f, check=True)
            formula = os.path.join(DATA, "formulas", f"{pat}{bound}.mtl")
            cells = []
            base = None
            for extra in [[], ["--timestamp-error", "0"], ["--timestamp-error", "1"],
                          ["--timestamp-error", "5"]]:
                secs, rss, err = timed([rvmon, "check", formula, log, "--quiet"] + extra)
                if base is None:
                    base = secs
                if extra[-1:] == ["1"]:
                    ratio = secs / base
                cells.append(f"{secs:.2f} ({rss / 1024:.0f}) {counts(err)}")
            print(f"| {pat} | " + " | ".join(cells) + f" | {ratio:.1f}× |")
            os.remove(log)


if __name__ == "__main__":
    main()
