#!/usr/bin/env python3
"""Side-by-side benchmark on the timescales MTL patterns (../shared/data/timescales).

For every pattern x bound (10/100/1000) and size (100 k time points = the shipped trace, 1 M =
ten time-shifted copies made by `rvmon gen repeat`), in one run on one machine:
  * rvmon end to end (`rvmon check F LOG --output monpoly`): wall time, peak RSS, violations;
    at 100 k the output must equal MonPoly's recorded `expected` file;
  * rvmon from memory (the `engine_mem` bench: decoded trace, engine only);
  * Reelay 25 (discrete, boolean; update loop only, plus the whole process's wall/RSS);
  * r2u2_cli where its bounded past-time MLTL covers the pattern (outer `H` given a bound larger
    than the trace), whole process.
Peers get exactly rvmon's formula: it is printed fully parenthesised by `rvmon check --explain`
and translated token by token.

Usage: python3 bench/timescales.py [--peers-python PY] [--r2u2 BIN] [--sizes 100k,1M] [--patterns A,B]
"""
import atexit
import shutil
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "..", "shared", "data", "timescales")
PATTERNS = ["AbsentAQ", "AbsentBQR", "AbsentBR", "AlwaysAQ", "AlwaysBQR", "AlwaysBR", "RecurBQR", "RecurGLB", "RespondBQR", "RespondGLB"]
R2U2_COVERS = {"AbsentBR", "AlwaysBR", "RecurGLB"}  # bodies are bounded past-time MLTL
BIG = 2_000_000  # stands in for "unbounded" for r2u2 (longer than any trace here)


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def timed(cmd, stdout_path=None, repeat=1):
    """Runs cmd under /usr/bin/time (for peak RSS); returns (best wall seconds measured with
    perf_counter over `repeat` runs, peak RSS MB, stdout)."""
    best, rss, text = float("inf"), 0.0, None
    for _ in range(repeat):
        out = open(stdout_path, "w") if stdout_path else subprocess.PIPE
        start = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=out, stderr=subprocess.PIPE, text=True)
        best = min(best, time.perf_counter() - start)
        rss = max(rss, int(p.stderr.strip().splitlines()[-1]) / 1024)
        text = p.stdout if not stdout_path else None
    return best, rss, text


def canonical(rvmon, formula):
    text = sh([rvmon, "check", formula, "--explain"], stdin=subprocess.DEVNULL).stdout
    return re.search(r"^formula: (.*)$", text, re.M).group(1)


def to_rye(f):
    f = re.sub(r"(PAST_ALWAYS|ONCE|SINCE)\[0,\*\)", lambda m: m.group(1), f)
    f = re.sub(r"\[(\d+),\*\)", r"[\1:]", f)
    f = re.sub(r"\[(\d+),(\d+)\]", r"[\1:\2]", f)
    for a, b in [("PAST_ALWAYS", "historically"), ("ONCE", "once"), ("SINCE", "since"), ("NOT", "not"),
                 ("AND", "and"), ("OR", "or"), ("IMPLIES", "->")]:
        f = re.sub(rf"\b{a}\b", b, f)
    return re.sub(r"\b([a-z]\w*)\(\)", r"{\1}", f)


def to_c2po(f):
    f = re.sub(r"\[(\d+),\*\)", rf"[\1,{BIG}]", f)
    for a, b in [("PAST_ALWAYS", "H"), ("ONCE", "O"), ("SINCE", "S"), ("NOT", "!"), ("AND", "&&"), ("OR", "||"), ("IMPLIES", "->")]:
        f = re.sub(rf"\b{a}\b", b, f)
    return re.sub(r"\b([a-z]\w*)\(\)", r"\1", f)


def log_to_csv(log, csv):
    with open(log) as src, open(csv, "w") as dst:
        dst.write("# p,q,r,s\n")
        for line in src:
            if line.startswith("@"):
                present = {t.split("(")[0] for t in line.split()[1:]}
                dst.write(",".join("1" if n in present else "0" for n in "pqrs") + "\n")


def r2u2_violations(output):
    """Counts time steps with verdict F in R2U2's aggregated verdict stream."""
    count, prev = 0, -1
    for line in output.splitlines():
        m = re.match(r"^0:(\d+),([TF])$", line)
        if m:
            t = int(m.group(1))
            if m.group(2) == "F":
                count += t - prev
            prev = t
    return count


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--peers-python", default=os.environ.get("PEERS_PY"))
    ap.add_argument("--r2u2", default=os.environ.get("R2U2_CLI"))
    ap.add_argument("--sizes", default="100k,1M")
    ap.add_argument("--patterns", default=",".join(PATTERNS))
    args = ap.parse_args()
    sh(["cargo", "build", "--release", "-q"], cwd=ROOT)
    rvmon = os.path.join(ROOT, "target", "release", "rvmon")
    sh(["cargo", "bench", "-q", "-p", "rvmon-mtl", "--bench", "engine_mem", "--no-run"], cwd=ROOT)
    tmp = tempfile.mkdtemp(prefix="rvmon-bench-")
    atexit.register(shutil.rmtree, tmp, True)  # (gone when the script ends)
    print("| pattern | size | rvmon e2e Mtp/s | rvmon mem Mtp/s | rvmon RSS MB | reelay eval Mtp/s | reelay wall s | reelay RSS MB | r2u2 wall s | r2u2 RSS MB | rvmon wall s | speed-up vs reelay (wall) | violations rvmon/reelay/r2u2 |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for pattern in args.patterns.split(","):
        for bound in (10, 100, 1000):
            name = f"{pattern}{bound}"
            formula = os.path.join(DATA, "formulas", f"{name}.mtl")
            canon = canonical(rvmon, formula)
            for size in args.sizes.split(","):
                log = os.path.join(DATA, f"{name}.log")
                if size == "1M":
                    big = os.path.join(tmp, f"{name}-1M.log")
                    with open(big, "w") as out:
                        subprocess.run([rvmon, "gen", "repeat", log, "--copies", "10"], stdout=out, check=True)
                    log = big
                out_path = os.path.join(tmp, "out.txt")
                wall, rss, _ = timed([rvmon, "check", formula, log, "--output", "monpoly"], out_path, repeat=5)
                rv_lines = open(out_path).read()
                if size == "100k":
                    want = open(os.path.join(DATA, "expected", f"{name}.expected")).read()
                    assert rv_lines == want, f"{name}: rvmon differs from MonPoly's expected output"
                mem = sh(["cargo", "bench", "-q", "-p", "rvmon-mtl", "--bench", "engine_mem", "--", formula, log, "3"], cwd=ROOT).stdout.split()
                n, mem_rate = int(mem[0]), float(mem[2])
                row = [pattern, f"{size} (b={bound})", f"{n / wall / 1e6:.1f}", f"{mem_rate / 1e6:.1f}", f"{rss:.1f}"]
                viol = [str(len(rv_lines.splitlines()))]
                re_wall = None
                if args.peers_python:
                    rw, rrss, rout = timed([args.peers_python, os.path.join(ROOT, "bench", "reelay_run.py"), to_rye(canon), log])
                    rn, rsecs, rviol = rout.split()
                    re_wall = rw
                    row += [f"{int(rn) / float(rsecs) / 1e6:.2f}", f"{rw:.2f}", f"{rrss:.0f}"]
                    viol.append(rviol)
                else:
                    row += ["-", "-", "-"]
                    viol.append("-")
                if args.r2u2 and pattern in R2U2_COVERS:
                    csv = os.path.join(tmp, "trace.csv")
                    log_to_csv(log, csv)
                    spec = os.path.join(tmp, "spec.c2po")
                    with open(spec, "w") as s:
                        s.write(f"INPUT\np,q,r,s: bool;\nPTSPEC\n{to_c2po(canon)};\n")
                    ww, wrss, wout = timed([args.r2u2, "run", spec, csv])
                    row += [f"{ww:.2f}", f"{wrss:.0f}"]
                    viol.append(str(r2u2_violations(wout)))
                else:
                    row += ["-", "-"]
                    viol.append("-")
                row += [f"{wall:.3f}", f"{re_wall / wall:.0f}x" if re_wall else "-", "/".join(viol)]
                print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
