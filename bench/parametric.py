#!/usr/bin/env python3
"""Five parametric properties monitored together against one by one (paper 24's claim).

Workload: `rvmon gen iterators`, `rvmon gen maps` and `rvmon gen sync`, EVENTS events each,
merged into one program trace (round robin; each workload's object ids offset so that they
stay distinct, since `dispose(i)` is common to all three). Properties: HasNext and
UnsafeIterator (`examples/rvm/iterators.rvm`), UnsafeMapIterator (`maps.rvm`),
SafeSyncCollection and SafeSyncMap (`sync.rvm`).

Each run is the whole process (`rvmon check SPEC LOG`): the five in one file, then each alone
on the same log, timed back to back RUNS times (best of). The violations of the joint run must
equal the sum of the single runs'.

Usage: python3 bench/parametric.py [EVENTS] [RUNS]
"""
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RVMON = os.environ.get("RVMON", os.path.join(ROOT, "target", "release", "rvmon"))
PROPERTIES = [
    ("iterators.rvm", "HasNext"),
    ("iterators.rvm", "UnsafeIterator"),
    ("maps.rvm", "UnsafeMapIterator"),
    ("sync.rvm", "SafeSyncCollection"),
    ("sync.rvm", "SafeSyncMap"),
]


def block(path, name):
    """The text of property `name` in an .rvm file: from its header to the closing brace."""
    text = open(path).read()
    m = re.search(r"^" + name + r"\(.*?^\}", text, re.S | re.M)
    assert m, f"{name} not in {path}"
    return m.group(0) + "\n"


def merged_log(tmp, events):
    gens = [
        ["iterators", "--collections", "1000", "--iterators", "10000"],
        ["maps", "--maps", "1000", "--iterators", "10000"],
        ["sync", "--collections", "1000", "--iterators", "10000"],
    ]
    logs = []
    for g in gens:
        out = subprocess.run([RVMON, "gen", *g, "--events", str(events)], capture_output=True, text=True, check=True)
        logs.append(out.stdout.splitlines())
    line = re.compile(r"@\d+ (\w+)\(([^)]*)\)")
    path = os.path.join(tmp, "program.log")
    ts = 0
    with open(path, "w") as f:
        for k in range(max(len(l) for l in logs)):
            for w, log in enumerate(logs):
                if k >= len(log):
                    continue
                m = line.fullmatch(log[k])
                args = ",".join(str(int(a) + w * 100_000_000) for a in m.group(2).split(","))
                f.write(f"@{ts} {m.group(1)}({args})\n")
                ts += 1
    return path, ts


def timed(spec, log):
    start = time.perf_counter()
    p = subprocess.run([RVMON, "check", spec, log], capture_output=True, text=True)
    wall = time.perf_counter() - start
    assert p.returncode in (0, 1), p.stderr
    return wall, len(p.stdout.splitlines())


def main():
    events = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)
    tmp = tempfile.mkdtemp(prefix="rvmon-parametric-")
    log, total = merged_log(tmp, events)
    singles = []
    for f, name in PROPERTIES:
        path = os.path.join(tmp, f"{name}.rvm")
        with open(path, "w") as out:
            out.write(block(os.path.join(ROOT, "examples", "rvm", f), name))
        singles.append((name, path))
    five = os.path.join(tmp, "five.rvm")
    with open(five, "w") as out:
        out.write("".join(open(p).read() for _, p in singles))
    best = {}
    counts = {}
    for _ in range(runs):
        for name, spec in [("together", five)] + singles:
            wall, n = timed(spec, log)
            best[name] = min(best.get(name, wall), wall)
            counts[name] = n
    alone = sum(best[n] for n, _ in singles)
    assert counts["together"] == sum(counts[n] for n, _ in singles), counts
    print(f"{total:,} events; best of {runs} runs")
    print("| run | wall s | M events/s | violations |")
    print("|---|---|---|---|")
    for name, _ in singles:
        print(f"| {name} alone | {best[name]:.2f} | {total / best[name] / 1e6:.2f} | {counts[name]} |")
    print(f"| the five one by one (sum) | {alone:.2f} | {total / alone / 1e6:.2f} | {sum(counts[n] for n, _ in singles)} |")
    print(f"| the five together | {best['together']:.2f} | {total / best['together'] / 1e6:.2f} | {counts['together']} |")
    print(f"together / one by one: {best['together'] / alone:.2f}")


if __name__ == "__main__":
    main()
