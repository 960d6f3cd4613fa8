#!/usr/bin/env python3
"""rvmon beside Reelay on the DejaVu FMSD properties (../shared/data/dejavu-fmsd), same run.

Reelay (pip install reelay) monitors first-order past-time MTL over categorical data with BDDs,
the technique of DejaVu, which is not installable here. Each property is given to Reelay as
DejaVu's own formula in Rye syntax; rvmon runs the formulation `bench/dejavu.py` uses. Both read
the same MonPoly-format log (one event per time point, as DejaVu's logs are): rvmon the file,
Reelay one dictionary per event (`{"ev": name, "a0": …, "a1": …}`, built before timing).

For each property and size: rvmon's whole process (best of 3), Reelay's update loop alone and
its whole process (one run; a run past --timeout seconds is stopped and reported as such), and
whether the two agree on the time points where the property is violated (for fifo, only the
first: rvmon's FIFO-order formulation and DejaVu's formula agree up to the first violation,
as `examples/dejavu/fifo.mfotl` explains).

Usage: PEERS_PY=/path/to/venv/bin/python python3 bench/reelay_dejavu.py [--sizes 10k,100k]
       [--timeout 300] [--only access,file] [--rvmon PATH] [--check]

--check is the differential test (crates/rvmon-cli/tests/reelay_dejavu.rs runs it): the shipped
10 k logs, one run each, fifo left out (Reelay needs minutes for DejaVu's fifo formula), exit
status 1 if rvmon and Reelay disagree anywhere. --rvmon runs that binary instead of building one.
"""
import atexit
import shutil
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "..", "shared", "data", "dejavu-fmsd")
COPIES = {"10k": 1, "100k": 10, "1M": 100}


def atom(name, *args):
    """A Rye atom for event `name` with its arguments bound to the references `args`."""
    fields = "".join(f", a{k}: *{a}" for k, a in enumerate(args))
    return "{ev: %s%s}" % (name, fields)


def interval(p, q):
    """DejaVu's `[p, q)`: p happened, and q not since."""
    return f"((not {q}) since {p})"


def acc(t, x):
    return f"({atom('read', t, x)} or {atom('write', t, x)})"


# DejaVu's formulas (the `.dejavu` files), in Rye syntax.
RYE = {
    "access": "forall[u,f]. (%s -> (%s and %s))" % (
        atom("access", "u", "f"),
        interval(atom("login", "u"), atom("logout", "u")),
        interval(atom("open", "f"), atom("close", "f"))),
    "file": "forall[f]. (%s -> (exists[m]. pre%s))" % (
        atom("close", "f"), interval(atom("open", "f", "m"), atom("close", "f"))),
    "fifo": "forall[x]. ((%s -> not (pre(once(%s)))) and (%s -> not (pre(once(%s)))) and "
            "(%s -> pre(once(%s))) and (forall[y]. ((%s and once(%s and pre(once(%s)))) -> pre(once(%s)))))" % (
        atom("enter", "x"), atom("enter", "x"), atom("exit", "x"), atom("exit", "x"),
        atom("exit", "x"), atom("enter", "x"),
        atom("exit", "y"), atom("enter", "y"), atom("enter", "x"), atom("exit", "x")),
    "locks-basic": "forall[t,l]. ((%s -> not %s) and (%s -> not (exists[s]. pre%s)) and (%s -> pre%s))" % (
        atom("sleep", "t"), interval(atom("acq", "t", "l"), atom("rel", "t", "l")),
        atom("acq", "t", "l"), interval(atom("acq", "s", "l"), atom("rel", "s", "l")),
        atom("rel", "t", "l"), interval(atom("acq", "t", "l"), atom("rel", "t", "l"))),
    "locks-cycles": "forall[t1,t2,l1,l2]. ((pre%s and %s) -> not (pre(once(pre%s and %s))))" % (
        interval(atom("acq", "t1", "l1"), atom("rel", "t1", "l1")), atom("acq", "t1", "l2"),
        interval(atom("acq", "t2", "l2"), atom("rel", "t2", "l2")), atom("acq", "t2", "l1")),
    "datarace": "forall[t1,t2,x]. ((once%s and once(%s)) -> (exists[l]. (historically(%s -> %s) and historically(%s -> %s))))" % (
        acc("t1", "x"), atom("write", "t2", "x"),
        acc("t1", "x"), interval(atom("acq", "t1", "l"), atom("rel", "t1", "l")),
        acc("t2", "x"), interval(atom("acq", "t2", "l"), atom("rel", "t2", "l"))),
}

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dejavu import CASES, closed_datarace  # noqa: E402  (the same specs as bench/dejavu.py runs)

EVENT = re.compile(r"(\w+)\s*\(([^)]*)\)")

# The Reelay side, run in the peers' Python: reads the log, builds the events, then times the
# update loop alone. Prints the violated indices (0-based time points) as JSON.
REELAY_RUN = r'''
import json, re, sys, time
import reelay
pattern, log = sys.argv[1], sys.argv[2]
ev = re.compile(r"(\w+)\s*\(([^)]*)\)")
events = []
for line in open(log):
    if not line.startswith("@"):
        continue
    found = ev.findall(line)
    assert len(found) == 1, "one event per time point: " + line
    name, args = found[0]
    e = {"ev": name}
    for k, a in enumerate(x.strip() for x in args.split(",") if x.strip()):
        e["a%d" % k] = a
    events.append(e)
m = reelay.discrete_timed_monitor(pattern=pattern, semantics="boolean", condense=False)
start = time.perf_counter()
bad = [i for i, e in enumerate(events) if not m.update(e)["value"]]
took = time.perf_counter() - start
print(json.dumps({"eval": took, "violated": bad}))
'''


def rvmon_violated(out):
    """The time points of rvmon's violations (`violation: time point N @TS …`)."""
    return sorted({int(m.group(1)) for m in re.finditer(r"time point (\d+)", out)})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10k,100k")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--only", default="")
    ap.add_argument("--rvmon", default="")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    peers_py = os.environ.get("PEERS_PY")
    if not peers_py:
        sys.exit("set PEERS_PY to a Python with reelay installed (pip install reelay)")
    if args.check:
        args.sizes = "10k"
        args.only = args.only or "access,file,locks-basic,locks-cycles,datarace"
    rvmon = args.rvmon
    if not rvmon:
        subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)
        rvmon = os.path.join(ROOT, "target", "release", "rvmon")
    disagreements = 0
    tmp = tempfile.mkdtemp(prefix="rvmon-reelay-")
    atexit.register(shutil.rmtree, tmp, True)  # (gone when the script ends)
    script = os.path.join(tmp, "reelay_run.py")
    with open(script, "w") as f:
        f.write(REELAY_RUN)
    print("| property | events | rvmon wall s | rvmon events/s | Reelay update loop s | Reelay wall s "
          "| speed-up (Reelay loop / rvmon wall) | violated time points rvmon / Reelay | agree |")
    print("|---|---|---|---|---|---|---|---|---|")
    # Reelay answers one verdict per event: the data race is compared in its closed form.
    closed = closed_datarace(tmp)
    only = [x for x in args.only.split(",") if x]
    for name, d, spec, sig in CASES:
        if only and name not in only:
            continue
        spec = closed if name == "datarace" else spec
        base = os.path.join(DATA, d, "10000", "log-monpoly.txt")
        for size in args.sizes.split(","):
            k = COPIES[size]
            log = base
            if k > 1:
                log = os.path.join(tmp, f"{name}-{size}.log")
                with open(log, "w") as out:
                    subprocess.run([rvmon, "gen", "repeat", base, "--copies", str(k), "--rename"],
                                   stdout=out, check=True)
            events = sum(1 for line in open(log) if line.startswith("@"))
            best, ours = float("inf"), []
            for _ in range(1 if args.check else 3):
                start = time.perf_counter()
                p = subprocess.run([rvmon, "check", spec, log, "--sig", os.path.join(DATA, d, sig),
                                    "--format", "monpoly"], capture_output=True, text=True)
                best = min(best, time.perf_counter() - start)
                ours = rvmon_violated(p.stdout)
            start = time.perf_counter()
            try:
                p = subprocess.run([peers_py, script, RYE[name], log], capture_output=True, text=True,
                                   timeout=args.timeout)
                wall = time.perf_counter() - start
                if p.returncode != 0:
                    print(f"| {name} | {events} | {best:.3f} | {events / best:,.0f} | failed: "
                          f"{p.stderr.strip().splitlines()[-1:]} | | | | |", flush=True)
                    disagreements += 1
                    continue
                r = json.loads(p.stdout)
                theirs = r["violated"]
                same = ours[:1] == theirs[:1] if name == "fifo" else ours == theirs
                disagreements += not same or not ours
                first = "first " if name == "fifo" else ""
                print(f"| {name} | {events} | {best:.3f} | {events / best:,.0f} | {r['eval']:.2f} | {wall:.2f} "
                      f"| {r['eval'] / best:,.0f}× | {len(ours)} / {len(theirs)} "
                      f"| {first}{'yes' if same else 'NO'} |", flush=True)
            except subprocess.TimeoutExpired:
                print(f"| {name} | {events} | {best:.3f} | {events / best:,.0f} | > {args.timeout:.0f} "
                      f"(stopped) | | > {args.timeout / best:,.0f}× | {len(ours)} / — | — |", flush=True)
                disagreements += args.check
    if disagreements:
        sys.exit(f"{disagreements} case(s) where rvmon and Reelay disagree (or rvmon found nothing)")


if __name__ == "__main__":
    main()
