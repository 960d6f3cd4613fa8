#!/usr/bin/env python3
"""rvmon's stream engine next to rtlola-cli on the same specs and traces, in the same run.

Usage: python3 bench/lola.py RTLOLA_CLI [EVENTS ...]   (default: 1000000)

For each spec and size: wall time and peak RSS of both (whole process, /usr/bin/time; the
median of three runs of each), and a
check that both print the same trigger lines (rvmon --output rtlola; rtlola-cli with the
options of its own end-to-end tests). Traces are generated here (seeded): time,x,y with x
uniform in [-1,1] and y skewed positive every third event, as the peers' bench/gen.py does.
"""
import os, random, subprocess, sys, tempfile

SPECS = {
    "offset": """input x: Float64
input y: Float64
output viol := x > 0.0 && y.offset(by: -1).defaults(to: 1.0) <= 0.0
trigger viol "violation"
""",
    "running-mean": """input x: Float64
input y: Float64
output count @x := count.offset(by: -1).defaults(to: 0) + 1
output sum @x := sum.offset(by: -1).defaults(to: 0.0) + x
output mean := sum / cast<Int64, Float64>(count)
trigger mean > 0.2 "mean drifted"
""",
    "deep-offsets": """input x: Float64
input y: Float64
output d := x - x.offset(by: -100).defaults(to: 0.0)
output e := y.offset(by: -50).defaults(to: 0.0)
trigger d > 1.8 && e < -0.5 "jump"
""",
}


def gen(n, path):
    rnd = random.Random(42)
    with open(path, "w") as f:
        f.write("time,x,y\n")
        for k in range(n):
            x = rnd.uniform(-1, 1)
            y = rnd.uniform(-0.2, 1) if k % 3 == 0 else rnd.uniform(-1, 1)
            f.write("%d,%.4f,%.4f\n" % (k, x, y))


RUNS = 3


def timed(cmd, out_path):
    """Median wall time and peak RSS (MB) of RUNS runs (the machine is shared and noisy)."""
    runs = []
    for _ in range(RUNS):
        with open(out_path, "w") as out:
            r = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + cmd, stdout=out, stderr=subprocess.PIPE, text=True)
        last = r.stderr.strip().splitlines()[-1].split()
        runs.append((float(last[0]), int(last[1]) / 1024))
    runs.sort()
    return runs[len(runs) // 2]


def main():
    rtlola = sys.argv[1]
    sizes = [int(float(a)) for a in sys.argv[2:]] or [1_000_000]
    rvmon = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "release", "rvmon")
    tmp = tempfile.mkdtemp(prefix="rvmon-lola-bench-")
    print("| spec | events | rtlola-cli | rvmon | speed-up | memory rtlola / rvmon | same triggers |")
    print("|---|---|---|---|---|---|---|")
    for n in sizes:
        trace = os.path.join(tmp, f"trace{n}.csv")
        gen(n, trace)
        for name, text in SPECS.items():
            spec = os.path.join(tmp, name + ".lola")
            with open(spec, "w") as f:
                f.write(text)
            a_out, b_out = os.path.join(tmp, "a.out"), os.path.join(tmp, "b.out")
            ta, ma = timed([rtlola, "monitor", "--offline", "relative-secs", "--stdout", "--verbosity", "warnings",
                            spec, "--csv-in", trace, "--output-time-format", "relative-secs"], a_out)
            tb, mb = timed([rvmon, "check", spec, trace, "--output", "rtlola"], b_out)
            with open(a_out) as fa, open(b_out) as fb:
                la = [l for l in fa.read().splitlines() if "][Trigger][" in l]
                lb = fb.read().splitlines()
            same = "yes (%d)" % len(la) if la == lb else "NO (%d vs %d)" % (len(la), len(lb))
            print(f"| {name} | {n:,} | {ta:.2f} s | {tb:.2f} s | {ta / max(tb, 1e-3):.1f}x | {ma:.0f} / {mb:.1f} MB | {same} |")


if __name__ == "__main__":
    main()
