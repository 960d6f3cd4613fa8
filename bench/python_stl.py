#!/usr/bin/env python3
"""rvmon's Python module on signals: `rvmon.robustness` against rtamt, Reelay and stlrom, and
against rvmon's own command line on the same data, in the same run.

Usage (a Python where `pip install .` installed rvmon, and the peers: see bench/stl.py):
  python bench/python_stl.py RVMON_BINARY [N]          (default N: 1000000)
  e.g. /tmp/stlpeers2/bin/python bench/python_stl.py target/release/rvmon 1000000

The signals are bench/stl.py's: a fixed-seed smooth random walk x, y (t = 0..N-1). Timed
inside this process (time.perf_counter, best of RUNS, default 3; each peer as its users call
it, from arrays or lists already in memory):
  * rvmon: `rvmon.robustness(F, {"time": t, "x": x, "y": y})`, NumPy arrays in and out;
  * rtamt: `StlDiscreteTimeSpecification.evaluate(dataset)` (lists), on RTAMT_N samples
    (default 100000; rtamt takes minutes on a million) and scaled to N, as the issue allows;
    its values must equal rvmon's at every sample;
  * Reelay (formula 2, past only): `discrete_timed_monitor(..., semantics='robustness')`,
    `update` per sample; values compared;
  * stlrom (formulas 1 and 3, future only): `add_sample` per sample, then `eval_rob(0)` of
    `alw_[0,T](φ)` (bench/stl.py's measure), compared with the minimum of rvmon's values;
  * the command line: `RVMON check F.stl T.csv --robustness > /dev/null`, whole process (it
    parses the CSV, which the module does not), and its values compared.
"""
import atexit
import shutil
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import rvmon

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stl import FORMULAS, REELAY, STLROM, walk  # noqa: E402  (bench/stl.py's formulas and walk)

RUNS = int(os.environ.get("RUNS", "3"))


def best(f):
    times, out = [], None
    for _ in range(RUNS):
        t0 = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t0)
    return min(times), out


def load(path):
    t, x, y = np.loadtxt(path, delimiter=",", skiprows=1, unpack=True)
    return t, x, y


def same(a, b):
    return a == b or (math.isnan(a) and math.isnan(b))


def rtamt_job(text, t, x, y):
    import rtamt

    spec = rtamt.StlDiscreteTimeSpecification()
    spec.declare_var("x", "float")
    spec.declare_var("y", "float")
    spec.spec = text
    spec.parse()
    data = {"time": t.tolist(), "x": x.tolist(), "y": y.tolist()}
    return lambda: spec.evaluate(data)


def reelay_job(pattern, x, y):
    import reelay

    xs, ys = x.tolist(), y.tolist()

    def run():
        m = reelay.discrete_timed_monitor(pattern=pattern, semantics="robustness", condense=False)
        return [m.update({"x": a, "y": b})["value"] for a, b in zip(xs, ys)]

    return run


def stlrom_job(phi, t, x, y):
    import stlrom

    ts, xs, ys = t.tolist(), x.tolist(), y.tolist()

    def run():
        d = stlrom.STLDriver()
        if not d.parse_string("signal x, y\nphi := alw_[0,%r] (%s)\n" % (ts[-1], phi)):
            sys.exit("stlrom: parse error")
        d.set_interpol("PREVIOUS")
        d.set_semantics("SPACE")
        add = d.add_sample
        for k in range(len(ts)):
            add([ts[k], xs[k], ys[k]])
        return d.get_monitor("phi").eval_rob(0.0)

    return run


def importable(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    rtamt_n = int(os.environ.get("RTAMT_N", "100000"))
    tmp = tempfile.mkdtemp(prefix="rvmon-pybench-")
    atexit.register(shutil.rmtree, tmp, True)  # (gone when the script ends)
    trace = os.path.join(tmp, "t.csv")
    walk(n, trace)
    t, x, y = load(trace)
    signals = {"time": t, "x": x, "y": y}
    print("rvmon %s; N=%d; rtamt on %d samples, scaled; best of %d; %s" % (
        rvmon.__file__, n, rtamt_n, RUNS, time.strftime("%Y-%m-%d")))
    print()
    print("| formula | rvmon.robustness s | samples/s | CLI s (whole process) | CLI / module | rtamt s (scaled) | rtamt / module | Reelay s | Reelay / module | stlrom s | stlrom / module | values agree |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for i, text in enumerate(FORMULAS):
        secs, (_, rob) = best(lambda: rvmon.robustness(text, signals))
        rob = rob.tolist()
        spec = os.path.join(tmp, "f%d.stl" % i)
        with open(spec, "w") as f:
            f.write(text + "\n")
        cli_secs, cli_out = best(lambda: subprocess.run(
            [binary, "check", spec, trace, "--robustness"], capture_output=True, text=True, check=True).stdout)
        cli_vals = [float(line.split()[1]) for line in cli_out.splitlines()]
        agree = ["CLI %s" % ("yes" if all(same(a, b) for a, b in zip(cli_vals, rob)) and len(cli_vals) == n else "NO")]
        cells = ["%.3f" % secs, "%.1f M" % (n / secs / 1e6), "%.3f" % cli_secs, "%.2f" % (cli_secs / secs)]
        if importable("rtamt"):
            m = min(rtamt_n, n)
            job = rtamt_job(text, t[:m], x[:m], y[:m])
            t0 = time.perf_counter()
            theirs = job()
            rt = (time.perf_counter() - t0) * n / m
            _, ours = rvmon.robustness(text, {"time": t[:m], "x": x[:m], "y": y[:m]})
            ok = all(same(r, o) for (_, r), o in zip(theirs, ours.tolist()))
            cells += ["%.1f" % rt, "%.0f×" % (rt / secs)]
            agree.append("rtamt %s" % ("yes" if ok else "NO"))
        else:
            cells += ["not installed"] * 2
        if i in REELAY and importable("reelay"):
            rs, theirs = best(reelay_job(REELAY[i], x, y))
            ok = all(same(a, b) for a, b in zip(theirs, rob))
            cells += ["%.2f" % rs, "%.0f×" % (rs / secs)]
            agree.append("Reelay %s" % ("yes" if ok else "NO"))
        else:
            cells += ["—", "—"]
        if i in STLROM and importable("stlrom"):
            ss, at0 = best(stlrom_job(STLROM[i], t, x, y))
            cells += ["%.2f" % ss, "%.0f×" % (ss / secs)]
            agree.append("stlrom %s" % ("yes" if same(float(at0), min(rob)) else "NO (%r vs %r)" % (at0, min(rob))))
        else:
            cells += ["—", "—"]
        print("| `%s` | %s | %s |" % (text, " | ".join(cells), ", ".join(agree)))


if __name__ == "__main__":
    main()
