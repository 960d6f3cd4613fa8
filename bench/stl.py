#!/usr/bin/env python3
"""STL robustness, rvmon against rtamt, stlrom and Reelay (issue 29's formulas), in the same run.

Usage:
  PEERS_PY=/path/to/venv/bin/python python3 bench/stl.py RVMON [N ...]     (default N: 100000)
  e.g. PEERS_PY=/tmp/stlpeers2/bin/python python3 bench/stl.py target/release/rvmon 100000 1000000

The peers live in a virtualenv outside the repository (stlrom has no wheel: its sdist builds a C++
library and needs flex and bison; see ../shared/peers/README.md §1):
  apt-get install -y flex bison
  python3 -m venv /tmp/stlpeers2
  /tmp/stlpeers2/bin/pip install rtamt==0.4.10 stlrom reelay      # tested: stlrom 0.3.0, reelay 25.0.0
Every peer is optional: one that PEERS_PY cannot import gets "not installed" in its cells.
Environment: RUNS (default 3; best of RUNS for rvmon, stlrom and Reelay; rtamt runs once, it is
slow), PEERS (default "rtamt,stlrom,reelay": the peers to run, so a long run can be split; the others
get "not run").

For each N, a fixed-seed smooth random walk `time,x,y` (t = 0..N-1; x, y in [-2, 2], steps
N(0, 0.1)) is written to a temporary directory. Everything runs as a whole process (interpreter
start-up, reading the CSV, monitoring, writing) under /usr/bin/time: wall seconds (measured around it)
and peak RSS.

  * rtamt, formulas 1-3: `../shared/peers/oracles/rtamt_oracle.py @F.stl TRACE.csv` (discrete,
    offline `evaluate`, the pure-Python interpreter that `pip install rtamt` gives) against
    `RVMON check F.stl TRACE.csv --robustness`; both must print the same `<time> <robustness>`
    lines ("same output").
  * stlrom, formulas 1 and 3 (stlrom has no past operators): the issue's measure, "stlrom's offline
    evaluation of `alw_[0,T]` of the same formula at time 0". A Python script reads the CSV
    (str.split, which is faster than the csv module), feeds every sample to an `STLDriver` with
    PREVIOUS interpolation (piecewise constant, as the stlrom oracle) and SPACE semantics, and calls
    `eval_rob(0)` once on `alw_[0,T] (φ)`, T the last time; it reports its split (CSV parse,
    add_sample, eval_rob; the rest of the wall time is interpreter start-up, imports and exit).
    Timed against it: rvmon on φ (`check F.stl --robustness`: the robustness at every sample, a
    larger job) and rvmon on `always[0,T](φ)` (`check --robustness`, whose first line is the value at
    time 0; it still writes a line per sample). The value at time 0 must agree: stlrom's, rvmon's
    `always[0,T](φ)` first line, the minimum of rvmon's per-sample robustness of φ (the same number
    in discrete time) and rvmon `--dense` (the exact dense, piecewise-constant value, untimed).
  * Reelay, formula 2 (past only), in Rye syntax: `reelay.discrete_timed_monitor(pattern=...,
    semantics='robustness', condense=False)`, fed the CSV line by line, printing `<time>
    <robustness>` per sample (Python repr, as rvmon); compared line by line with rvmon's output.
    Before the run a probe checks that Rye's `{x > c}` / `{y < c}` robustness are x - c / c - y.
samples/s is N over rvmon's whole-process wall time (the issue's goal: >= 20 M samples/s end to end).
"""
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORACLE = os.path.join(ROOT, "..", "shared", "peers", "oracles", "rtamt_oracle.py")
FORMULAS = [
    "always[0,100]((x > 0.5) implies eventually[0,20](y < 0.0))",
    "historically[0,100]((x > 0.5) implies once[10,20](y < 0.0))",
    "always[0,50]((x > 0.5) implies ((y > -1.0) until[0,20] (x < 0.0)))",
]
# The same formulas in the peers' syntax (stlrom: future only; Reelay: past only).
STLROM = {
    0: "alw_[0,100] ((x[t] > 0.5) => (ev_[0,20] (y[t] < 0.0)))",
    2: "alw_[0,50] ((x[t] > 0.5) => ((y[t] > -1.0) until_[0,20] (x[t] < 0.0)))",
}
REELAY = {
    1: "historically[0:100]({x > 0.5} -> once[10:20]{y < 0.0})",
}
NOT_INSTALLED = "not installed"

STLROM_SCRIPT = r'''
import math, sys, time
t0 = time.perf_counter()
import stlrom
phi, path = sys.argv[1], sys.argv[2]
ts, xs, ys = [], [], []
with open(path) as f:
    next(f)
    for line in f:
        a, b, c = line.split(",")
        ts.append(float(a)); xs.append(float(b)); ys.append(float(c))
t1 = time.perf_counter()
d = stlrom.STLDriver()
if not d.parse_string("signal x, y\nphi := alw_[0,%r] (%s)\n" % (ts[-1], phi)):
    sys.exit("stlrom: parse error")
d.set_interpol("PREVIOUS"); d.set_semantics("SPACE")
add = d.add_sample
for k in range(len(ts)):
    add([ts[k], xs[k], ys[k]])
t2 = time.perf_counter()
r = d.get_monitor("phi").eval_rob(0.0)
t3 = time.perf_counter()
print("0 %s" % ("inf" if r == math.inf else "-inf" if r == -math.inf else repr(float(r))))
sys.stderr.write("split %.3f %.3f %.3f\n" % (t1 - t0, t2 - t1, t3 - t2))
'''

REELAY_SCRIPT = r'''
import math, sys
import reelay
m = reelay.discrete_timed_monitor(pattern=sys.argv[1], semantics="robustness", condense=False)
upd = m.update
w = sys.stdout.write
inf = math.inf
with open(sys.argv[2]) as f:
    next(f)
    for line in f:
        a, b, c = line.split(",")
        v = upd({"x": float(b), "y": float(c)})["value"]
        w("%s %s\n" % (a, "inf" if v == inf else "-inf" if v == -inf else repr(float(v))))
'''

REELAY_PROBE = r'''
import reelay
def rob(p, x, y):
    return reelay.discrete_timed_monitor(pattern=p, semantics="robustness", condense=False).update({"x": x, "y": y})["value"]
print(rob("{x > 0.5}", 1.25, 0.0), rob("{y < 0.0}", 0.0, 0.3), rob("{x > 0.5}", -0.25, 0.0))
'''


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
    """Wall seconds, peak RSS in MB, the command's own stderr lines (None if it failed)."""
    with open(out_path, "w") as out:
        t0 = time.perf_counter()
        r = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + cmd, stdout=out, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - t0  # /usr/bin/time's %e has a resolution of 10 ms
    err = r.stderr.strip().splitlines()
    if r.returncode != 0:
        sys.stderr.write("FAILED (exit %d): %s\n%s\n" % (r.returncode, " ".join(cmd), "\n".join(err[-5:])))
        return None
    last = err[-1].split()
    return wall, int(last[1]) / 1024, err[:-1]


def best(cmd, out_path, runs):
    res = [timed(cmd, out_path) for _ in range(runs)]
    if any(r is None for r in res):
        return None
    return min(res, key=lambda r: r[0])


def lines(path):
    with open(path) as f:
        return [l for l in f if not l.startswith("#")]


def first_value(path):
    for l in lines(path):
        return l.split()[1]
    return None


def min_value(path):
    m = math.inf
    with open(path) as f:
        for l in f:
            if not l.startswith("#"):
                v = float(l.split()[1])
                if v < m:
                    m = v
    return repr(m)


def importable(py, module):
    try:
        return subprocess.run([py, "-c", "import " + module], capture_output=True).returncode == 0
    except OSError:
        return False


def rate(n, secs):
    return "%.1f M" % (n / max(secs, 0.001) / 1e6)


def ratio(peer, ours):
    return "%.0f×" % (peer / max(ours, 0.001)) if peer / max(ours, 0.001) >= 10 else "%.1f×" % (peer / max(ours, 0.001))


def main():
    rvmon = sys.argv[1]
    sizes = [int(a) for a in sys.argv[2:]] or [100000]
    py = os.environ.get("PEERS_PY", "python3")
    runs = int(os.environ.get("RUNS", "3"))
    wanted = os.environ.get("PEERS", "rtamt,stlrom,reelay").split(",")
    have = {p: p in wanted and importable(py, p) for p in ("rtamt", "stlrom", "reelay")}
    absent = {p: NOT_INSTALLED if p in wanted else "not run" for p in have}
    tmp = tempfile.mkdtemp(prefix="rvmon-stl-bench-")
    with open(os.path.join(tmp, "stlrom_at0.py"), "w") as f:
        f.write(STLROM_SCRIPT)
    with open(os.path.join(tmp, "reelay_rob.py"), "w") as f:
        f.write(REELAY_SCRIPT)
    sys.stderr.write("peers (%s): %s\n" % (py, ", ".join("%s %s" % (p, "yes" if h else "no") for p, h in have.items())))
    if have["reelay"]:
        probe = subprocess.run([py, "-c", REELAY_PROBE], capture_output=True, text=True).stdout.split()
        sys.stderr.write("Reelay probe: {x > 0.5} at x=1.25 -> %s, {y < 0.0} at y=0.3 -> %s, {x > 0.5} at x=-0.25 -> %s"
                         " (x - c, c - y: 0.75, -0.3, -0.75)\n" % tuple(probe))
    t_rows, s_rows, r_rows = [], [], []
    for n in sizes:
        trace = os.path.join(tmp, "walk%d.csv" % n)
        walk(n, trace)
        for k, f in enumerate(FORMULAS):
            sys.stderr.write("N=%d formula %d ...\n" % (n, k + 1))
            spec = os.path.join(tmp, "f%d.stl" % k)
            with open(spec, "w") as s:
                s.write(f + "\n")
            ours_out = os.path.join(tmp, "rvmon.out")
            ours = best([rvmon, "check", spec, trace, "--robustness"], ours_out, runs)
            t_ours, m_ours = ours[0], ours[1]
            # rtamt, every formula.
            if have["rtamt"]:
                peer = timed([py, ORACLE, "@" + spec, trace], os.path.join(tmp, "rtamt.out"))
                if peer is None:
                    cells = ("failed", "–", "– / %.0f" % m_ours, "–")
                else:
                    same = lines(ours_out) == lines(os.path.join(tmp, "rtamt.out"))
                    cells = ("%.2f" % peer[0], ratio(peer[0], t_ours), "%.0f / %.0f" % (peer[1], m_ours), "yes" if same else "NO")
            else:
                cells = (absent["rtamt"], "–", "– / %.0f" % m_ours, "–")
            t_rows.append("| `%s` | %d | %s | %.3f | %s | %s | %s | %s |" % (
                f, n, cells[0], t_ours, cells[1], rate(n, t_ours), cells[2], cells[3]))
            # stlrom, future formulas: alw_[0,T] (phi) at time 0.
            if k in STLROM:
                T = n - 1
                whole = os.path.join(tmp, "f%d_all.stl" % k)
                with open(whole, "w") as s:
                    s.write("always[0,%d](%s)\n" % (T, f))
                whole_out = os.path.join(tmp, "rvmon_all.out")
                allt = best([rvmon, "check", whole, trace, "--robustness"], whole_out, runs)
                dense_out = os.path.join(tmp, "rvmon_dense.out")
                dense = timed([rvmon, "check", whole, trace, "--robustness", "--dense"], dense_out)
                ours_min = min_value(ours_out)
                ours_all = first_value(whole_out)
                ours_dense = first_value(dense_out) if dense else "failed"
                if have["stlrom"]:
                    st_out = os.path.join(tmp, "stlrom.out")
                    st = best([py, os.path.join(tmp, "stlrom_at0.py"), STLROM[k], trace], st_out, runs)
                    if st is None:
                        st_cells = ("failed (see stderr)", "–", "–", "–", "–", "–")
                        agree = "–"
                    else:
                        split = [l for l in st[2] if l.startswith("split ")][-1].split()[1:]
                        st_val = first_value(st_out)
                        vals = [float(v) for v in (st_val, ours_all, ours_min, ours_dense) if v != "failed"]
                        st_cells = ("%.2f" % st[0], "%s / %s / %s" % tuple(split), "%.0f" % st[1],
                                    ratio(st[0], t_ours), ratio(st[0], allt[0]), st_val)
                        agree = "yes" if all(v == vals[0] for v in vals) else "NO"
                else:
                    st_cells = (absent["stlrom"], "–", "–", "–", "–", absent["stlrom"])
                    agree = "–"
                s_rows.append("| `%s` | %d | %s | %s | %s | %.3f (%s/s) | %s | %.3f (%s/s) | %s | %.0f / %.0f | %s / %s / %s / %s | %s |" % (
                    STLROM[k], n, st_cells[0], st_cells[1], st_cells[2], t_ours, rate(n, t_ours), st_cells[3],
                    allt[0], rate(n, allt[0]), st_cells[4], m_ours, allt[1],
                    st_cells[5], ours_all, ours_min, ours_dense, agree))
            # Reelay, past formulas: robustness at every sample.
            if k in REELAY:
                if have["reelay"]:
                    re_out = os.path.join(tmp, "reelay.out")
                    re = best([py, os.path.join(tmp, "reelay_rob.py"), REELAY[k], trace], re_out, runs)
                    if re is None:
                        re_cells = ("failed", "–", "–", "–")
                    else:
                        a, b = lines(ours_out), lines(re_out)
                        eq = sum(1 for u, v in zip(a, b) if u == v)
                        diff = next((u.split()[0] for u, v in zip(a, b) if u != v), None)
                        agr = "%d / %d%s" % (eq, max(len(a), len(b)), "" if diff is None and len(a) == len(b) else
                                              " (first difference at t = %s)" % diff)
                        re_cells = ("%.2f" % re[0], ratio(re[0], t_ours), "%.0f / %.0f" % (re[1], m_ours), agr)
                else:
                    re_cells = (absent["reelay"], "–", "– / %.0f" % m_ours, "–")
                r_rows.append("| `%s` | %d | %s | %.3f | %s | %s | %s | %s |" % (
                    REELAY[k], n, re_cells[0], t_ours, re_cells[1], rate(n, t_ours), re_cells[2], re_cells[3]))
        os.remove(trace)
    print("rtamt (discrete offline `evaluate`, whole process) against `rvmon check F.stl T.csv --robustness`:\n")
    print("| formula | samples | rtamt s | rvmon s | rtamt / rvmon | rvmon samples/s | RSS MB rtamt / rvmon | same output |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(t_rows))
    print("\nstlrom (`eval_rob(0)` of `alw_[0,T] (φ)`, T the last time, PREVIOUS interpolation, whole process; split: CSV parse"
          " / add_sample / eval_rob, s) against rvmon (A: `check φ.stl T.csv --robustness`, every sample;"
          " B: `check always[0,T](φ).stl T.csv --robustness`, first line = time 0). Values at time 0: stlrom / rvmon B /"
          " min of rvmon A / rvmon B `--dense`:\n")
    print("| formula (stlrom) | samples | stlrom s | split s | stlrom RSS MB | rvmon A s | stlrom / A | rvmon B s | stlrom / B"
          " | RSS MB A / B | value at 0 | agree |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(s_rows))
    print("\nReelay (`discrete_timed_monitor`, robustness, whole process) against `rvmon check F.stl T.csv --robustness`"
          " (formula 2, %s):\n" % FORMULAS[1])
    print("| formula (Rye) | samples | Reelay s | rvmon s | Reelay / rvmon | rvmon samples/s | RSS MB Reelay / rvmon"
          " | same line |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(r_rows))
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
