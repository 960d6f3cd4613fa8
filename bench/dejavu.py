#!/usr/bin/env python3
"""First-order benchmark on the DejaVu FMSD properties (../shared/data/dejavu-fmsd).

Sizes: the shipped 10 k-event logs, and 100 k / 1 M events made of 10 / 100 renamed copies
(`rvmon gen repeat LOG --copies K --rename`: every value of copy k gets the suffix _k, so the
copies are about distinct users, files, locks). For each: `rvmon check SPEC LOG --sig SIG`,
whole process: events/s, peak RSS, violations (one per copy expected; the data race runs
closed, and counts the violated time points).

Usage: python3 bench/dejavu.py [--sizes 10k,100k,1M]
"""
import atexit
import shutil
import argparse
import os
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "..", "shared", "data", "dejavu-fmsd")
CASES = [
    ("access", "property1-access", os.path.join(DATA, "property1-access", "prop1.mfotl"), "prop1.sig"),
    ("file", "property2-file", os.path.join(DATA, "property2-file", "prop2.mfotl"), "prop2.sig"),
    ("fifo", "property3-fifo", os.path.join(ROOT, "examples", "dejavu", "fifo.mfotl"), "prop3.sig"),
    ("locks-basic", "property4-locks-basic", os.path.join(DATA, "property4-locks-basic", "prop4.mfotl"), "prop4.sig"),
    ("locks-cycles", "property5-locks-cycles", os.path.join(DATA, "property5-locks-cycles", "prop5.mfotl"), "prop5.sig"),
    ("datarace", "property6-locks-datarace", os.path.join(ROOT, "examples", "dejavu", "datarace.mfotl"), "prop6.sig"),
]
COPIES = {"10k": 1, "100k": 10, "1M": 100}


def closed_datarace(tmp):
    """`examples/dejavu/datarace.mfotl` closed (`FORALL t1. FORALL t2. FORALL x.`), written to
    `tmp`: one verdict per time point. The open form lists every racing triple at every later
    time point (49.5 M lines, 3.4 GB at 1 M events), which would time the printing."""
    text = open(os.path.join(ROOT, "examples", "dejavu", "datarace.mfotl")).read()
    assert text.count("\nNOT ONCE (") == 1
    closed = os.path.join(tmp, "datarace-closed.mfotl")
    with open(closed, "w") as f:
        f.write(text.replace("\nNOT ONCE (", "\nFORALL t1. FORALL t2. FORALL x. NOT ONCE ("))
    return closed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10k,100k,1M")
    args = ap.parse_args()
    subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)
    rvmon = os.path.join(ROOT, "target", "release", "rvmon")
    tmp = tempfile.mkdtemp(prefix="rvmon-dejavu-")
    atexit.register(shutil.rmtree, tmp, True)  # (gone when the script ends)
    print("| property | events | wall s | events/s | peak RSS MB | violations |")
    print("|---|---|---|---|---|---|")
    closed = closed_datarace(tmp)
    for name, d, spec, sig in CASES:
        spec = closed if name == "datarace" else spec
        base = os.path.join(DATA, d, "10000", "log-monpoly.txt")
        for size in args.sizes.split(","):
            k = COPIES[size]
            log = base
            if k > 1:
                log = os.path.join(tmp, f"{name}-{size}.log")
                with open(log, "w") as out:
                    subprocess.run([rvmon, "gen", "repeat", base, "--copies", str(k), "--rename"], stdout=out, check=True)
            events = sum(1 for line in open(log) if line.startswith("@"))
            best, rss, viol = float("inf"), 0.0, None
            for _ in range(3 if k < 100 else 1):
                start = time.perf_counter()
                p = subprocess.run(["/usr/bin/time", "-f", "%M", rvmon, "check", spec, log, "--sig", os.path.join(DATA, d, sig), "--format", "monpoly"],
                                   capture_output=True, text=True)
                best = min(best, time.perf_counter() - start)
                rss = max(rss, int(p.stderr.strip().splitlines()[-1]) / 1024)
                viol = len(p.stdout.splitlines())
            print(f"| {name} | {events} | {best:.3f} | {events / best:,.0f} | {rss:.1f} | {viol} |", flush=True)


if __name__ == "__main__":
    main()
