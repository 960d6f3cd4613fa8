#!/usr/bin/env python3
"""STL robustness, rvmon against rtamt (issue 29's formulas), in the same run.

Usage: PEERS_PY=/path/to/python-with-rtamt python3 bench/stl.py RVMON [N ...]   (default N: 100000)

For each N, a fixed-seed smooth random walk `time,x,y` (x, y in [-2, 2], steps N(0, 0.1)) is
written to a temporary directory; each formula runs as a whole process under /usr/bin/time:
  * rvmon: `RVMON check F.stl TRACE.csv --robustness`;
  * rtamt: `../shared/peers/oracles/rtamt_oracle.py @F.stl TRACE.csv` (discrete, offline:
    `evaluate`, the pure-Python interpreter that `pip install rtamt` gives).
Both must print the same `<time> <robustness>` lines. Wall seconds (best of RUNS=3 for rvmon,
one run for rtamt, which is slow), peak RSS, and the ratio.
"""
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORACLE = os.path.join(ROOT, "..", "shared", "peers", "oracles", "rtamt_oracle.py")
FORMULAS = [
    "always[0,100]((x > 0.5) implies eventually[0,20](y < 0.0))",
    "historically[0,100]((x > 0.5) implies once[10,20](y < 0.0))",
    "always[0,50]((x > 0.5) implies ((y > -1.0) until[0,20] (x < 0.0)))",
]


def walk(n, path):
    rng = random.Random(29)
    x = y = 0.0
    with open(path, "w") as f:
        f.write("time,x,y\n")
        for t in range(n):
            x = max(-2.0, min(2.0, x + rng.gauss(0, 0.1)))
            y = max(-2.0, min(2.0, y + rng.gauss(0, 0.1)))
            f.write("%d,%.4f,%.4f\n" % (t, x, y))


def timed(cmd, out_path):
    with open(out_path, "w") as out:
        r = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + cmd, stdout=out, stderr=subprocess.PIPE, text=True)
    last = r.stderr.strip().splitlines()[-1].split()
    return float(last[0]), int(last[1]) / 1024


def lines(path):
    with open(path) as f:
        return [l for l in f if not l.startswith("#")]


def main():
    rvmon = sys.argv[1]
    sizes = [int(a) for a in sys.argv[2:]] or [100000]
    py = os.environ.get("PEERS_PY", "python3")
    runs = int(os.environ.get("RUNS", "3"))
    tmp = tempfile.mkdtemp(prefix="rvmon-stl-bench-")
    print("| formula | samples | rtamt s | rvmon s | rtamt / rvmon | RSS MB rtamt / rvmon | same output |")
    print("|---|---|---|---|---|---|---|")
    for n in sizes:
        trace = os.path.join(tmp, "walk%d.csv" % n)
        walk(n, trace)
        for k, f in enumerate(FORMULAS):
            spec = os.path.join(tmp, "f%d.stl" % k)
            with open(spec, "w") as s:
                s.write(f + "\n")
            ours = [timed([rvmon, "check", spec, trace, "--robustness"], os.path.join(tmp, "rvmon.out")) for _ in range(runs)]
            t_ours, m_ours = min(ours)
            t_peer, m_peer = timed([py, ORACLE, "@" + spec, trace], os.path.join(tmp, "rtamt.out"))
            same = lines(os.path.join(tmp, "rvmon.out")) == lines(os.path.join(tmp, "rtamt.out"))
            print("| `%s` | %d | %.2f | %.3f | %.0f× | %.0f / %.0f | %s |" % (
                f, n, t_peer, t_ours, t_peer / max(t_ours, 0.001), m_peer, m_ours, "yes" if same else "NO"))
            sys.stdout.flush()


if __name__ == "__main__":
    main()
