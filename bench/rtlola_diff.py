#!/usr/bin/env python3
"""rvmon against rtlola-cli on the RTLola interpreter suite, output value by output value.

Usage: python3 bench/rtlola_diff.py RTLOLA_CLI [SHARED_DATA_DIR]

For every test definition in ../shared/data/rtlola/definitions, runs
  rtlola-cli monitor --offline relative-secs --stdout --verbosity outputs SPEC --csv-in TRACE
              --output-time-format relative-secs
  rvmon check SPEC TRACE --values --output rtlola
and compares the lines (every output value and every trigger; those of one time sorted, as
rtlola-cli prints a stream's instances in hash order). Specifications that rvmon
rejects as unsupported are listed as such.
"""
import json, os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rtlola_random import by_time  # noqa: E402  (the lines of one time sorted)


def main():
    rtlola = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    data = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "..", "..", "shared", "data", "rtlola")
    rvmon = os.path.join(here, "..", "target", "release", "rvmon")
    defs = os.path.join(data, "definitions")
    same, differ, unsupported = [], [], []
    for name in sorted(os.listdir(defs)):
        d = json.load(open(os.path.join(defs, name)))
        spec = os.path.normpath(os.path.join(defs, d["spec_file"]))
        trace = os.path.normpath(os.path.join(defs, d["input_file"]))
        case = name.split(".")[0]
        if not trace.endswith(".csv"):
            unsupported.append(case + " (not CSV)")
            continue
        ours = subprocess.run([rvmon, "check", spec, trace, "--values", "--output", "rtlola"],
                              capture_output=True, text=True)
        if ours.returncode == 2:
            unsupported.append(case + ": " + ours.stderr.strip().splitlines()[-1][:100])
            continue
        theirs = subprocess.run([rtlola, "monitor", "--offline", "relative-secs", "--stdout", "--verbosity",
                                 "outputs", spec, "--csv-in", trace, "--output-time-format", "relative-secs"],
                                capture_output=True, text=True)
        # rtlola-cli prints a stream's instances in hash order: one time's lines sorted.
        a = by_time([l for l in theirs.stdout.splitlines() if l.startswith("[")])
        b = by_time(ours.stdout.splitlines())
        if a == b:
            same.append(f"{case} ({len(a)} lines)")
        else:
            first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            differ.append(f"{case}: line {first + 1}: rtlola {a[first:first + 1]} rvmon {b[first:first + 1]}")
    print(f"identical: {len(same)}")
    for s in same:
        print("  " + s)
    print(f"different: {len(differ)}")
    for s in differ:
        print("  " + s)
    print(f"unsupported by rvmon: {len(unsupported)}")
    for s in unsupported:
        print("  " + s)
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
