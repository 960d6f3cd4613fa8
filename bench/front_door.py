#!/usr/bin/env python3
"""Two rvmon binaries side by side (issue 28's before/after table), in the same run.

Usage: python3 bench/front_door.py OLD_RVMON NEW_RVMON [RUNS]   (default 3 runs each)

Workloads (inputs generated into a temporary directory with NEW's `rvmon gen`):
  * timescales AbsentBQR10 at 1 M time points (`gen repeat --copies 10` of the shipped log):
    `check --output monpoly`, and `monpoly -negate`;
  * paper 04's P2 and P6 on `gen paper04 --computers 100 --days 20` (1.2 M events): `check`
    and `monpoly -negate`;
  * DejaVu FMSD fifo and data race at 1 M events (`gen repeat --copies 100 --rename`);
  * the five parametric properties together at 3 M events (bench/parametric.py's merged log);
  * a stream specification (bench/lola.py's `offset`) at 1 M events.
Runs alternate between the binaries; the figure is the best wall time (and its peak RSS).
Outputs are compared: a row whose two outputs differ is marked.
"""
import atexit
import shutil
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(ROOT, "..", "shared", "data")
sys.path.insert(0, os.path.join(ROOT, "bench"))


def timed(cmd, out_path):
    with open(out_path, "w") as out:
        r = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + cmd, stdout=out, stderr=subprocess.PIPE, text=True)
    last = r.stderr.strip().splitlines()[-1].split()
    return float(last[0]), int(last[1]) / 1024


def inputs(new, tmp):
    """The workloads: (name, [argv after the binary])."""
    def gen(args, path):
        with open(path, "w") as out:
            subprocess.run([new, "gen", *args], stdout=out, stderr=subprocess.DEVNULL, check=True)
        return path

    ts = os.path.join(SHARED, "timescales")
    bqr = gen(["repeat", os.path.join(ts, "AbsentBQR10.log"), "--copies", "10"], os.path.join(tmp, "bqr10.log"))
    bqr_f = os.path.join(ts, "formulas", "AbsentBQR10.mtl")
    pqr = os.path.join(tmp, "pqr.sig")
    with open(pqr, "w") as f:
        f.write("p()\nq()\nr()\n")
    p04 = gen(["paper04", "--computers", "100", "--days", "20"], os.path.join(tmp, "p04.log"))
    ex = os.path.join(ROOT, "examples", "paper04")
    sig04 = os.path.join(ex, "paper04.sig")
    rows = [
        ("timescales AbsentBQR10 1 M: check", ["check", bqr_f, bqr, "--output", "monpoly"]),
        ("timescales AbsentBQR10 1 M: monpoly", ["monpoly", "-sig", pqr, "-formula", bqr_f, "-log", bqr, "-negate"]),
    ]
    for p in ("p2", "p6"):
        f = os.path.join(ex, p + ".mfotl")
        rows.append((f"paper 04 {p.upper()} 1.2 M events: check", ["check", f, p04, "--sig", sig04, "--output", "monpoly"]))
        rows.append((f"paper 04 {p.upper()} 1.2 M events: monpoly", ["monpoly", "-sig", sig04, "-formula", f, "-log", p04, "-negate"]))
    dv = os.path.join(SHARED, "dejavu-fmsd")
    for name, d, spec, sig in [
        ("fifo", "property3-fifo", os.path.join(ROOT, "examples", "dejavu", "fifo.mfotl"), "prop3.sig"),
        ("data race", "property6-locks-datarace", os.path.join(ROOT, "examples", "dejavu", "datarace.mfotl"), "prop6.sig"),
    ]:
        base = os.path.join(dv, d, "10000", "log-monpoly.txt")
        log = gen(["repeat", base, "--copies", "100", "--rename"], os.path.join(tmp, d + ".log"))
        rows.append((f"DejaVu {name} 1 M events: check", ["check", spec, log, "--sig", os.path.join(dv, d, sig), "--format", "monpoly"]))
    import parametric  # bench/parametric.py: its merged log of the five properties
    parametric.RVMON = new
    log, _ = parametric.merged_log(tmp, 1_000_000)
    five = os.path.join(tmp, "five.rvm")
    with open(five, "w") as out:
        for f, name in parametric.PROPERTIES:
            out.write(parametric.block(os.path.join(ROOT, "examples", "rvm", f), name) + "\n")
    if os.path.getsize(five) > 0:
        rows.append(("parametric, five properties, 3 M events", ["check", five, log]))
    import lola
    trace = os.path.join(tmp, "trace.csv")
    lola.gen(1_000_000, trace)
    spec = os.path.join(tmp, "offset.lola")
    with open(spec, "w") as f:
        f.write(lola.SPECS["offset"])
    rows.append(("stream `offset` 1 M events", ["check", spec, trace, "--output", "rtlola"]))
    return rows


def main():
    old, new = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    tmp = tempfile.mkdtemp(prefix="rvmon-front-door-")
    atexit.register(shutil.rmtree, tmp, True)  # (gone when the script ends)
    print("| workload | before s | after s | after / before | before MB | after MB | same output |")
    print("|---|---|---|---|---|---|---|")
    for name, argv in inputs(new, tmp):
        best = {old: (float("inf"), 0.0), new: (float("inf"), 0.0)}
        for _ in range(runs):
            for b in (old, new):
                t, m = timed([b] + argv, os.path.join(tmp, "out-" + ("old" if b == old else "new")))
                if t < best[b][0]:
                    best[b] = (t, m)
        same = open(os.path.join(tmp, "out-old")).read() == open(os.path.join(tmp, "out-new")).read()
        (to, mo), (tn, mn) = best[old], best[new]
        print(f"| {name} | {to:.2f} | {tn:.2f} | {tn / to:.2f} | {mo:.0f} | {mn:.0f} | {'yes' if same else 'NO'} |", flush=True)


if __name__ == "__main__":
    main()
