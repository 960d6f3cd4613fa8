#!/usr/bin/env python3
"""Runs Reelay (discrete, boolean) over a MonPoly-format propositional log.

Usage: reelay_run.py RYE_PATTERN LOG
Prints: time_points eval_seconds violations. The log is decoded into dicts first; only the
monitor's update loop is timed (the same convention as ../shared/peers' oracles).
"""
import sys
import time

import reelay


def main():
    pattern, log = sys.argv[1], sys.argv[2]
    names = sorted(set(t.strip("{}") for t in pattern.replace("(", " ").replace(")", " ").split() if t.startswith("{")))
    points = []
    with open(log) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("@"):
                continue
            present = {tok.split("(")[0] for tok in line.split()[1:]}
            points.append({n: (n in present) for n in names})
    monitor = reelay.discrete_timed_monitor(pattern=pattern, semantics="boolean", condense=False)
    violations = 0
    start = time.perf_counter()
    for p in points:
        if not monitor.update(p)["value"]:
            violations += 1
    elapsed = time.perf_counter() - start
    print(len(points), f"{elapsed:.4f}", violations)


if __name__ == "__main__":
    main()
