#!/usr/bin/env python3
"""Statistical model checking (issue 34, paper 28): AAlergia's learning time against AALpy's,
on runs of the Craps model, and PESTIM on the true model.

Usage:
  python3 bench/smc.py RVMON PYTHON [TRACES...]   (default TRACES 5000 20000 100000)
  e.g. python3 bench/smc.py target/release/rvmon /tmp/venv/bin/python

PYTHON has aalpy 2.0.0; its oracle script (../shared/peers/oracles/aalpy_oracle.py
alergia) learns the same sequences. Each run is a whole process, best of RUNS (default 3);
the learned models must be the same text.
"""
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLE = os.path.join(HERE, "..", "..", "shared", "peers", "oracles", "aalpy_oracle.py")
CRAPS = os.path.join(HERE, "..", "examples", "smc", "craps.dot")
RUNS = int(os.environ.get("RUNS", "3"))


def timed(cmd):
    best, out = float("inf"), None
    for _ in range(RUNS):
        t = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, capture_output=True, text=True)
        best = min(best, time.perf_counter() - t)
        if p.returncode != 0:
            sys.exit(f"{cmd}: {p.stderr}")
        out, rss = p.stdout, int(p.stderr.strip().splitlines()[-1])
    return best, rss, out


def main():
    rvmon, python = sys.argv[1], sys.argv[2]
    sizes = [int(n) for n in sys.argv[3:]] or [5000, 20000, 100000]
    print("| runs of Craps (lengths 5-20) | states | AALpy s (MiB) | rvmon s (MiB) | ratio |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="rvmon-smc-") as tmp:
        for n in sizes:
            seqs = os.path.join(tmp, f"craps{n}.txt")
            with open(seqs, "w") as f:
                subprocess.run([rvmon, "smc", "sample", CRAPS, "--traces", str(n),
                                "--length", "5..20", "--seed", str(n)], stdout=f, check=True)
            theirs_s, theirs_rss, theirs = timed([python, ORACLE, "alergia", seqs])
            ours_s, ours_rss, ours = timed([rvmon, "smc", "learn", seqs])
            assert theirs == ours, "the models differ"
            states = ours.splitlines()[0].split("states=")[1]
            print(f"| {n} | {states} | {theirs_s:.2f} ({theirs_rss / 1024:.0f}) "
                  f"| {ours_s:.3f} ({ours_rss / 1024:.0f}) | {theirs_s / ours_s:.0f}× |", flush=True)
        t, _, out = timed([rvmon, "smc", "check", CRAPS, "F won", "--pestim", "0.01,0.01"])
        print(f"\nPESTIM on the true Craps model, delta = alpha = 0.01: {t:.2f} s, "
              f"{out.splitlines()[1]}")


if __name__ == "__main__":
    main()
