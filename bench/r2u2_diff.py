#!/usr/bin/env python3
"""Differential test of `rvmon check SPEC TRACE --output r2u2` against r2u2_cli 4.2.4 (issue 30):
random MLTL formulas (future time and past time, bounds 0-8, nested up to depth 4) over random
Boolean traces, the verdict lines compared formula by formula, as R2U2's test suites compare them.

Usage:
  python3 bench/r2u2_diff.py RVMON R2U2_CLI [CASES] [SEED]
  e.g. python3 bench/r2u2_diff.py target/release/rvmon /work/peers/r2u2/bin/r2u2_cli 300 1

Formulas where a constant alone decides an operator (`a0 && false`, `F[0,2] true`,
`a0 U[2,3] true`) are not generated: r2u2_cli never finishes a step of them (rvmon does, with
the same verdicts). Each case runs both tools with a 20 s timeout. Prints a line per
difference and a summary; exits 1 if any case differs.
"""
import atexit
import shutil
import collections
import os
import random
import subprocess
import sys
import tempfile

ATOMS = 3


def formula(rng, past, depth):
    if depth == 0 or rng.random() < 0.25:
        return "a%d" % rng.randrange(ATOMS)
    r = rng.random()
    sub = lambda: formula(rng, past, depth - 1)
    a, b = sorted((rng.randrange(9), rng.randrange(9)))
    if r < 0.15:
        return "!(%s)" % sub()
    if r < 0.45:
        op = rng.choice(["&", "|", "->", "<->"])
        return "(%s) %s (%s)" % (sub(), op, sub())
    if r < 0.75:
        op = rng.choice(["H", "O"] if past else ["G", "F"])
        return "%s[%d,%d] (%s)" % (op, a, b, sub())
    op = rng.choice(["S", "T"] if past else ["U", "R"])
    return "(%s) %s[%d,%d] (%s)" % (sub(), op, a, b, sub())


def lines(text):
    out = collections.defaultdict(list)
    for line in text.splitlines():
        head, _, rest = line.partition(":")
        if head.isdigit() and rest:
            out[head].append(rest)
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rvmon, peer = sys.argv[1], sys.argv[2]
    cases = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    tmp = tempfile.mkdtemp(prefix="rvmon-r2u2-diff-")
    atexit.register(shutil.rmtree, tmp, True)  # (gone when the script ends)
    differ = 0
    for case in range(cases):
        past = rng.random() < 0.5
        specs = [formula(rng, past, rng.randrange(1, 5)) for _ in range(rng.randrange(1, 4))]
        spec = os.path.join(tmp, "s.mltl")
        with open(spec, "w") as f:
            f.write("".join(s + "\n" for s in specs))
        trace = os.path.join(tmp, "t.csv")
        with open(trace, "w") as f:
            f.write("# a0,a1,a2\n")
            for _ in range(rng.randrange(1, 40)):
                f.write(",".join(str(rng.randrange(2)) for _ in range(ATOMS)) + "\n")
        try:
            theirs = subprocess.run([peer, "run", spec, trace], capture_output=True, text=True,
                                    timeout=20, cwd=tmp)
        except subprocess.TimeoutExpired:
            print("case %d: r2u2_cli did not finish: %s" % (case, specs))
            continue
        ours = subprocess.run([rvmon, "check", spec, trace, "--output", "r2u2"],
                              capture_output=True, text=True, timeout=20)
        if lines(theirs.stdout) != lines(ours.stdout) or ours.returncode != 0:
            differ += 1
            print("case %d differs: %s\n  r2u2_cli: %s\n  rvmon:    %s %s" % (
                case, specs, dict(lines(theirs.stdout)), dict(lines(ours.stdout)), ours.stderr.strip()))
    print("%d cases, %d differ" % (cases, differ))
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
