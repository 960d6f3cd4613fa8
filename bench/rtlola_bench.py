#!/usr/bin/env python3
"""rvmon next to rtlola-cli on real-time RTLola specifications, in the same run.

Usage: python3 bench/rtlola_bench.py RTLOLA_CLI [EVENTS] [INSTANCES]
       (defaults: 1000000 events, 100000 instances)

Whole-process wall time and peak RSS (/usr/bin/time; median of three runs) of
  rtlola-cli monitor --offline relative-secs --stdout --verbosity V SPEC --csv-in TRACE
  rvmon check SPEC TRACE --output rtlola [--values]
and whether both print the same lines:
  * periodic-windows: periodic streams at 10 Hz and 1 Hz over windows of 1 s, 5 s and 10 s,
    on EVENTS events 1 ms apart (triggers only);
  * instances: one instance per id (a counter and a running sum), spawned by the first event
    of its id and selected by `eval when p = id`; ids drawn from INSTANCES (triggers only).
    rtlola-cli evaluates every live instance's filter at every event, so it runs on a prefix
    of the trace that keeps it near a minute; rvmon runs that prefix and the whole trace;
  * values: the event-based `running-mean` spec of bench/lola.py, every output value
    written (rvmon --values against rtlola-cli --verbosity outputs).
"""
import atexit, os, random, shutil, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lola import gen, timed  # noqa: E402  (its trace generator; median time and RSS of three runs)

PERIODIC = """input x: Float64
input y: Float64
output mean @10Hz := x.aggregate(over: 1s, using: avg).defaults(to: 0.0)
output peak @10Hz := y.aggregate(over: 5s, using: max).defaults(to: 0.0)
output n @1Hz := x.aggregate(over: 10s, using: count)
output level @10Hz := y.hold(or: 0.0)
trigger mean > 0.1 "mean high"
trigger peak < 0.9 "no peak"
trigger n < 10000 "slow"
"""

INSTANCES = """input id: Int64
input v: Float64
output count(p: Int64) spawn with id eval when p = id with count(p).offset(by: -1).defaults(to: 0) + 1
output sum(p: Int64) spawn with id eval when p = id with sum(p).offset(by: -1).defaults(to: 0.0) + v
trigger @id count(id).hold(or: 0) = 12 "an id seen 12 times"
trigger @id sum(id).hold(or: 0.0) > 9.0 "an id is heavy"
"""

VALUES = """input x: Float64
input y: Float64
output count @x := count.offset(by: -1).defaults(to: 0) + 1
output sum @x := sum.offset(by: -1).defaults(to: 0.0) + x
output mean := sum / cast<Int64, Float64>(count)
trigger mean > 0.2 "mean drifted"
"""

def lines(path, only_triggers):
    with open(path) as f:
        ls = [l for l in f.read().splitlines() if l.startswith("[")]
    if only_triggers:
        ls = [l for l in ls if "][Trigger][" in l]
    return sorted(ls)


def gen_periodic(n, path):
    rnd = random.Random(42)
    with open(path, "w") as f:
        f.write("time,x,y\n")
        for k in range(n):
            f.write("%.3f,%.4f,%.4f\n" % (k / 1000, rnd.uniform(-1, 1), rnd.uniform(-1, 1)))


def gen_instances(n, ids, path):
    rnd = random.Random(7)
    with open(path, "w") as f:
        f.write("time,id,v\n")
        for k in range(n):
            # Every id early on (so that all instances live), then at random.
            i = k if k < ids else rnd.randrange(ids)
            f.write("%.3f,%d,%.3f\n" % (k / 1000, i, rnd.uniform(0, 1)))


def compare(name, rtlola, rvmon, spec_text, trace, n, tmp, verbosity="warnings", values=False):
    spec = os.path.join(tmp, name + ".lola")
    with open(spec, "w") as f:
        f.write(spec_text)
    a_out, b_out = os.path.join(tmp, "a.out"), os.path.join(tmp, "b.out")
    ta, ma = timed([rtlola, "monitor", "--offline", "relative-secs", "--stdout", "--verbosity", verbosity,
                    spec, "--csv-in", trace], a_out) if rtlola else (None, None)
    cmd = [rvmon, "check", spec, trace, "--output", "rtlola"] + (["--values"] if values else [])
    tb, mb = timed(cmd, b_out)
    if rtlola:
        la, lb = lines(a_out, not values), lines(b_out, not values)
        same = "yes (%d lines)" % len(la) if la == lb else "NO (%d vs %d)" % (len(la), len(lb))
        print(f"| {name} | {n:,} | {ta:.2f} s | {tb:.2f} s | {ta / max(tb, 1e-3):.1f}x | "
              f"{ma:.0f} / {mb:.0f} MB | {same} |")
    else:
        print(f"| {name} | {n:,} | — | {tb:.2f} s | — | — / {mb:.0f} MB | rvmon only |")


def main():
    rtlola = sys.argv[1]
    n = int(float(sys.argv[2])) if len(sys.argv) > 2 else 1_000_000
    ids = int(float(sys.argv[3])) if len(sys.argv) > 3 else 100_000
    rvmon = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "target", "release", "rvmon")
    tmp = tempfile.mkdtemp(prefix="rvmon-rtlola-bench-")
    atexit.register(shutil.rmtree, tmp, True)
    print("| spec | events | rtlola-cli | rvmon | speed-up | memory rtlola / rvmon | same lines |")
    print("|---|---|---|---|---|---|---|")
    trace = os.path.join(tmp, "periodic.csv")
    gen_periodic(n, trace)
    compare("periodic-windows", rtlola, rvmon, PERIODIC, trace, n, tmp)
    # rtlola-cli looks at every instance at every event: a prefix it runs in about a minute.
    small_ids = min(ids, 10_000)
    prefix = min(n, 4 * small_ids)
    trace = os.path.join(tmp, "instances-prefix.csv")
    gen_instances(prefix, small_ids, trace)
    compare(f"instances ({small_ids:,})", rtlola, rvmon, INSTANCES, trace, prefix, tmp)
    trace = os.path.join(tmp, "instances.csv")
    gen_instances(n, ids, trace)
    compare(f"instances ({ids:,})", None, rvmon, INSTANCES, trace, n, tmp)
    trace = os.path.join(tmp, "values.csv")
    gen(n, trace)  # bench/lola.py's trace: the values spec is its running-mean
    compare("values (running-mean)", rtlola, rvmon, VALUES, trace, n, tmp, verbosity="outputs", values=True)


if __name__ == "__main__":
    main()
