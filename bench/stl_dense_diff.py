#!/usr/bin/env python3
"""Dense-time STL robustness: `rvmon check --dense` against the definition, stlrom, rtamt's
dense monitor and Reelay's dense monitor, on fixed-seed random formulas and traces with
irregular timestamps.

Usage: PEERS_PY=/path/to/python python3 bench/stl_dense_diff.py RVMON [N] [--seed S] [--show K]

PEERS_PY is a Python with `pip install rtamt==0.4.10 stlrom==0.3.0 reelay==25.0.0` (a peer it
cannot import is skipped). N (default 300) future formulas, N past and N mixed ones, depth 3:
  * future: atoms `x > c`, `y < c`, `x - y > c`; `not`, `and`, `or`, `implies`;
    `always[a,b]`, `eventually[a,b]`, `until[a,b]` (bounds 0 to 6 s by halves). Compared with
    stlrom (`eval_rob(t)` at each sample time, PREVIOUS interpolation, SPACE semantics; each
    call in a forked child, since stlrom's `until_` crashes the process) and rtamt's dense
    `evaluate` (its output signal read at each sample time);
  * past: atoms `x > c`, `y < c`; the same connectives; `historically`, `once`, `since`,
    bounded and unbounded. Compared with rtamt's dense `evaluate` and Reelay's
    `dense_timed_monitor` (robustness, piecewise constant; one more event after the last, so
    that the last sample's segment is emitted; a time Reelay emitted nothing for reads 0.0,
    since Reelay emits changes from an initial 0);
  * mixed: both, with `x - y > c`. Compared with rtamt's dense `evaluate`.
Traces: 5 to 12 samples from t = 0 (or, one in three, from 0.5, 1 or 2), gaps of 0.5 to 3 s,
values -2 to 2 by halves (many ties).

The definition (`Definition` below) is evaluated point by point on the half-second grid, which
is exact: every breakpoint of every subformula is on it. rvmon must equal it everywhere. A
peer's disagreement is sorted into a kind by the first variant of the definition, or rewriting
of the formula, that reproduces the peer's values (`KINDS`); ARCHITECTURE.md ("Dense time")
says which tool is right in each kind and why.
"""
import atexit
import shutil
import json
import math
import os
import random
import subprocess
import sys
import tempfile

INF = float("inf")
BOUNDS = [0, 0.5, 1, 1.5, 2, 3]
WIDTHS = [0, 0.5, 1, 2, 3]
GAPS = [0.5, 1, 1, 1.5, 2, 3]
VALUES = [-2, -1, -0.5, 0, 0.5, 1, 2]
FUTURE = ("always", "eventually", "until")
# The kinds of disagreement (ARCHITECTURE.md, "Dense time", says which tool is right in each).
LAST_BREAKPOINT = "stlrom: always/eventually over a compound operand leaves out its last breakpoint in the window"
SINCE_OPEN = "since: phi not needed at the witness t' = t"
SINCE_AS_ONCE = "bounded since as min(once[a,b] psi, phi since psi)"
SINCE_GRID = "since as discrete time's over the change points; bounded since as min(once[a,b] psi, that)"
START_AT_0 = "signals start at time 0, not at the first sample"
ZERO_WIDTH = "windows [0,0] lose changes"
SINCE_OMITS = "since leaves out its first segment when it is -inf"
OTHER = "unexplained"


def num(v):
    return str(int(v)) if float(v).is_integer() else repr(float(v))


# Formulas are tuples: ("atom", expr, op, c), ("not", f), (op, f, g) for and/or/implies,
# (op, window, f) for the unary temporal operators, (op, window, f, g) for until/since;
# window is (a, b) in seconds or None.

def gen(rng, depth, kind):
    """A formula of `kind`: "future", "past" or "mixed" (both)."""
    if depth == 0 or rng.random() < 0.25:
        c = rng.choice([-1, -0.5, 0, 0.5, 1])
        exprs = [("x", ">"), ("y", "<")] + ([] if kind == "past" else [("x - y", ">")])
        return ("atom",) + rng.choice(exprs) + (c,)
    k = rng.randrange(10)
    if k == 0:
        return ("not", gen(rng, depth - 1, kind))
    if k <= 3:
        return (rng.choice(["and", "or", "implies"]), gen(rng, depth - 1, kind), gen(rng, depth - 1, kind))
    past = kind == "past" or (kind == "mixed" and rng.random() < 0.5)
    a = rng.choice(BOUNDS)
    w = None if past and rng.random() < 0.2 else (a, a + rng.choice(WIDTHS))
    if k <= 7:
        op = rng.choice(["historically", "once"] if past else ["always", "eventually"])
        return (op, w, gen(rng, depth - 1, kind))
    return ("since" if past else "until", w, gen(rng, depth - 1, kind), gen(rng, depth - 1, kind))


def rtamt_text(f):
    """rtamt's syntax, which is rvmon's."""
    k = f[0]
    if k == "atom":
        return "(%s %s %s)" % (f[1], f[2], num(f[3]))
    if k == "not":
        return "(not %s)" % rtamt_text(f[1])
    if k in ("and", "or", "implies"):
        return "(%s %s %s)" % (rtamt_text(f[1]), k, rtamt_text(f[2]))
    w = "" if f[1] is None else "[%s,%s]" % (num(f[1][0]), num(f[1][1]))
    if k in ("until", "since"):
        return "(%s %s%s %s)" % (rtamt_text(f[2]), k, w, rtamt_text(f[3]))
    return "(%s%s%s)" % (k, w, rtamt_text(f[2]))


def stlrom_text(f):
    k = f[0]
    if k == "atom":
        e = " - ".join("%s[t]" % v for v in f[1].split(" - "))
        return "(%s %s %s)" % (e, f[2], num(f[3]))
    if k == "not":
        return "(not %s)" % stlrom_text(f[1])
    if k in ("and", "or", "implies"):
        return "(%s %s %s)" % (stlrom_text(f[1]), "=>" if k == "implies" else k, stlrom_text(f[2]))
    w = "[%s,%s]" % (num(f[1][0]), num(f[1][1]))
    if k == "until":
        return "(%s until_%s %s)" % (stlrom_text(f[2]), w, stlrom_text(f[3]))
    return "(%s%s %s)" % ({"always": "alw_", "eventually": "ev_"}[k], w, stlrom_text(f[2]))


def reelay_text(f):
    k = f[0]
    if k == "atom":
        return "{%s %s %s}" % (f[1], f[2], num(f[3]))
    if k == "not":
        return "(not %s)" % reelay_text(f[1])
    if k in ("and", "or", "implies"):
        return "(%s %s %s)" % (reelay_text(f[1]), k, reelay_text(f[2]))
    w = "" if f[1] is None else "[%s:%s]" % (num(f[1][0]), num(f[1][1]))
    if k == "since":
        return "(%s since%s %s)" % (reelay_text(f[2]), w, reelay_text(f[3]))
    return "(%s%s %s)" % (k, w, reelay_text(f[2]))


def without_point_windows(f):
    """The formula with every `historically[0,0]`/`once[0,0]` replaced by its operand (the
    same robustness), to test whether a peer mishandles zero-width windows at 0."""
    k = f[0]
    if k == "atom":
        return f
    if k == "not":
        return ("not", without_point_windows(f[1]))
    if k in ("and", "or", "implies"):
        return (k, without_point_windows(f[1]), without_point_windows(f[2]))
    if k in ("until", "since"):
        return (k, f[1], without_point_windows(f[2]), without_point_windows(f[3]))
    if f[1] == (0, 0) and k in ("historically", "once", "always", "eventually"):
        return without_point_windows(f[2])
    return (k, f[1], without_point_windows(f[2]))


class Definition:
    """The robustness straight from the definitions, on the grid of half seconds (`h` below
    counts half seconds); `variant` names one change to the definition, to explain a peer."""

    def __init__(self, times, xs, ys, variant=None):
        self.h = [int(round(2 * t)) for t in times]
        self.xs, self.ys, self.variant, self.memo = xs, ys, variant, {}

    def sig(self, h):
        k = max(i for i, hk in enumerate(self.h) if hk <= h)
        return self.xs[k], self.ys[k]

    def at_samples(self, f):
        return [self.rho(f, h) for h in self.h]

    def rho(self, f, h):
        key = (f, h)
        if key not in self.memo:
            self.memo[key] = self.compute(f, h)
        return self.memo[key]

    def compute(self, f, h):
        k = f[0]
        if k == "atom":
            x, y = self.sig(h)
            e = {"x": x, "y": y, "x - y": x - y}[f[1]]
            return e - f[3] if f[2] == ">" else f[3] - e
        if k == "not":
            return -self.rho(f[1], h)
        if k in ("and", "or", "implies"):
            p, q = self.rho(f[1], h), self.rho(f[2], h)
            return min(p, q) if k == "and" else max(p, q) if k == "or" else max(-p, q)
        lo, hi = self.window(f, h)
        pts = range(lo, hi + 1)
        if self.variant == LAST_BREAKPOINT and k in ("always", "eventually") and f[2][0] != "atom":
            # The operand keeps its value from before its last breakpoint in the window.
            vals = [self.rho(f[2], g) for g in pts]
            last = max((j for j in range(1, len(vals)) if vals[j] != vals[j - 1]), default=None)
            pts = pts if last is None else range(lo, lo + last)
        if k in ("always", "historically"):
            return min((self.rho(f[2], g) for g in pts), default=INF)
        if k in ("eventually", "once"):
            return max((self.rho(f[2], g) for g in pts), default=-INF)
        if self.variant in (SINCE_AS_ONCE, SINCE_GRID) and k == "since" and f[1] is not None:
            # min(once[a,b] ψ, φ since ψ): a witness for each, not one for both.
            once = max((self.rho(f[3], g) for g in pts), default=-INF)
            return min(once, self.rho(("since", None, f[2], f[3]), h))
        best = -INF
        for g in pts:
            # φ over [h, g] (until) or [g, h] (since), closed at both ends.
            span = range(h, g + 1) if k == "until" else range(g, h + 1)
            if self.variant in (SINCE_OPEN, SINCE_AS_ONCE) and k == "since" and g == h:
                span = range(0)
            if self.variant == SINCE_GRID and k == "since":
                span = range(g + 1, h + 1)
            phi = min((self.rho(f[2], s) for s in span), default=INF)
            best = max(best, min(self.rho(f[3], g), phi))
        return best

    def window(self, f, h):
        """The grid points of `f`'s window at `h`: (lo, hi), empty if lo > hi."""
        k, w = f[0], f[1]
        if k in FUTURE:
            a, b = int(2 * w[0]), int(2 * w[1])
            return h + a, h + b
        if w is None:
            return self.h[0], h
        return max(self.h[0], h - int(2 * w[1])), h - int(2 * w[0])


def trace(rng):
    n = rng.randrange(5, 13)
    times, t = [], float(rng.choice([0, 0, 0.5, 1, 2]))
    for _ in range(n):
        times.append(t)
        t += rng.choice(GAPS)
    return times, [float(rng.choice(VALUES)) for _ in times], [float(rng.choice(VALUES)) for _ in times]


# Each driver reads the cases (JSON) on standard input and prints one JSON line per case: the
# robustness at each sample time (floats; "inf", "-inf", "nan" as strings), or {"error": ...}.
COMMON = r'''
import json, math, os, sys
def enc(v):
    v = float(v)
    if math.isnan(v): return "nan"
    if math.isinf(v): return "inf" if v > 0 else "-inf"
    return v
def at_times(points, times, missing):
    # A piecewise-constant output given by its change points, read at each sample time.
    out = []
    for t in times:
        v = missing
        for (s, x) in points:
            if s <= t: v = x
            else: break
        out.append(enc(v) if v is not None else None)
    return out
cases = json.load(sys.stdin)
'''

RTAMT = COMMON + r'''
import rtamt
for c in cases:
    try:
        spec = rtamt.StlDenseTimeSpecification()
        spec.declare_var('x', 'float'); spec.declare_var('y', 'float')
        spec.spec = c['f']
        spec.parse()
        res = spec.evaluate(['x', [[t, v] for t, v in zip(c['t'], c['x'])]],
                            ['y', [[t, v] for t, v in zip(c['t'], c['y'])]])
        print(json.dumps(at_times([(float(a), float(b)) for a, b in res], c['t'], None)))
    except Exception as e:
        print(json.dumps({"error": "%s: %s" % (type(e).__name__, e)}))
    sys.stdout.flush()
'''

STLROM = COMMON + r'''
import stlrom
def eval_in_child(m, t):
    # stlrom's until_ crashes the process near the end of a trace: each call in a child.
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            os.write(w, json.dumps(enc(m.eval_rob(t))).encode())
        finally:
            os._exit(0)
    os.close(w)
    data = b""
    while True:
        chunk = os.read(r, 4096)
        if not chunk: break
        data += chunk
    os.close(r)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status) or not data:
        return {"crash": "signal %d" % os.WTERMSIG(status) if os.WIFSIGNALED(status) else "no output"}
    return json.loads(data)
for c in cases:
    d = stlrom.STLDriver()
    if not d.parse_string("signal x, y\nphi := %s\n" % c['f']):
        print(json.dumps({"error": "parse error"})); sys.stdout.flush(); continue
    d.set_interpol('PREVIOUS'); d.set_semantics('SPACE')
    for t, x, y in zip(c['t'], c['x'], c['y']):
        d.add_sample([t, x, y])
    m = d.get_monitor('phi')
    print(json.dumps([eval_in_child(m, t) for t in c['t']]))
    sys.stdout.flush()
'''

REELAY = COMMON + r'''
import reelay
for c in cases:
    try:
        m = reelay.dense_timed_monitor(pattern=c['f'], semantics='robustness', piecewise='constant')
        segs = []
        events = list(zip(c['t'], c['x'], c['y']))
        # One more event, so that the last sample's segment is emitted.
        events.append((c['t'][-1] + 1000.0, c['x'][-1], c['y'][-1]))
        for t, x, y in events:
            for s in m.update({'time': t, 'x': x, 'y': y}):
                segs.append((float(s['time']), float(s['value'])))
        print(json.dumps(at_times(segs, c['t'], 0.0)))
    except Exception as e:
        print(json.dumps({"error": "%s: %s" % (type(e).__name__, e)}))
    sys.stdout.flush()
'''

DRIVERS = {"stlrom": (STLROM, stlrom_text), "rtamt": (RTAMT, rtamt_text), "reelay": (REELAY, reelay_text)}


def run_driver(py, peer, formulas, cases):
    if not cases:
        return []
    if subprocess.run([py, "-c", "import " + peer], capture_output=True).returncode != 0:
        return None
    code, text = DRIVERS[peer]
    todo = [{"f": text(f), "t": c["t"], "x": c["x"], "y": c["y"]} for f, c in zip(formulas, cases)]
    p = subprocess.run([py, "-c", code], input=json.dumps(todo), capture_output=True, text=True)
    out = [json.loads(l) for l in p.stdout.splitlines() if l.strip()]
    if len(out) != len(cases):
        sys.exit("%s's driver answered %d of %d cases:\n%s" % (peer, len(out), len(cases), p.stderr[-2000:]))
    # A sample where the peer crashed is a dict (`{"crash": ...}`).
    return [o if isinstance(o, dict) else [v if isinstance(v, dict) else float(v) if v is not None else None
                                           for v in o] for o in out]


def close(a, b):
    if a is None or b is None:
        return False
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b or abs(a - b) <= 1e-9 * max(1.0, abs(a))


def rvmon_values(rvmon, tmp, f, c):
    spec, tr = os.path.join(tmp, "f.stl"), os.path.join(tmp, "t.csv")
    with open(spec, "w") as s:
        s.write(rtamt_text(f) + "\n")
    with open(tr, "w") as s:
        s.write("time,x,y\n")
        for t, x, y in zip(c["t"], c["x"], c["y"]):
            s.write("%s,%s,%s\n" % (num(t), num(x), num(y)))
    p = subprocess.run([rvmon, "check", spec, tr, "--robustness", "--dense", "-q"], capture_output=True, text=True)
    if p.returncode != 0:
        return {"error": p.stderr.strip()}
    return [float(l.split()[1]) for l in p.stdout.splitlines()]


# The kinds of disagreement, tried in order: a name, and a test of whether it reproduces the
# peer's values at the samples where they differ from the definition.
def kinds(py, peer, f, c, theirs, bad):
    out = []
    if peer != "stlrom" and c["t"][0] != 0:
        # The peer again with the times shifted to start at 0, where the definition's values
        # are the same.
        shifted = dict(c, t=[t - c["t"][0] for t in c["t"]])
        again = run_driver(py, peer, [f], [shifted])[0]
        exact = Definition(c["t"], c["x"], c["y"]).at_samples(f)
        if not isinstance(again, dict):
            if all(close(a, b) for a, b in zip(again, exact)):
                return [START_AT_0]
            if any(not close(a, b) for a, b in zip(again, theirs)):
                bad = [k for k, (e, p) in enumerate(zip(exact, again)) if not close(e, p)]
                return [k + " + " + START_AT_0 for k in kinds(py, peer, f, shifted, again, bad)]
    if any(theirs[k] is None for k in bad):
        missing = [k for k in range(len(theirs)) if theirs[k] is None]
        if missing == list(range(len(missing))) and " since" in rtamt_text(f):
            return [SINCE_OMITS]
        return ["no output at a sample time"]
    variants = [LAST_BREAKPOINT] if peer == "stlrom" else [SINCE_GRID, SINCE_OPEN, SINCE_AS_ONCE]
    for variant in variants:
        v = Definition(c["t"], c["x"], c["y"], variant).at_samples(f)
        if all(close(v[k], theirs[k]) for k in bad):
            return [variant]
    g = without_point_windows(f)
    if g != f:
        again = run_driver(py, peer, [g], [c])
        if again and not isinstance(again[0], dict):
            for variant in [None] + variants:
                v = Definition(c["t"], c["x"], c["y"], variant).at_samples(f)
                if all(close(a, b) for a, b in zip(again[0], v)):
                    return [ZERO_WIDTH + ("" if variant is None else " + " + variant)]
    return [OTHER]


def main():
    args = sys.argv[1:]
    opts = {"--seed": "29", "--show": "4"}
    pos = []
    i = 0
    while i < len(args):
        if args[i] in opts:
            opts[args[i]] = args[i + 1]
            i += 2
        else:
            pos.append(args[i])
            i += 1
    if not pos:
        sys.exit(__doc__)
    rvmon, n = pos[0], int(pos[1]) if len(pos) > 1 else 300
    py = os.environ.get("PEERS_PY", "python3")
    rng = random.Random(int(opts["--seed"]))
    future = [(gen(rng, 3, "future"),) + trace(rng) for _ in range(n)]
    past = [(gen(rng, 3, "past"),) + trace(rng) for _ in range(n)]
    mixed = [(gen(rng, 3, "mixed"),) + trace(rng) for _ in range(n)]
    tmp = tempfile.mkdtemp(prefix="rvmon-stl-dense-")
    atexit.register(shutil.rmtree, tmp, True)  # (gone when the script ends)
    wrong = []
    for group in (future, past, mixed):
        for idx, (f, t, x, y) in enumerate(group):
            c = {"t": t, "x": x, "y": y}
            ours = rvmon_values(rvmon, tmp, f, c)
            exact = Definition(t, x, y).at_samples(f)
            if isinstance(ours, dict) or not all(close(a, b) for a, b in zip(ours, exact)):
                wrong.append((rtamt_text(f), c, ours, exact))
            group[idx] = (f, c, exact)
    print("rvmon --dense against the definition: %d of %d formulas agree at every sample"
          % (3 * n - len(wrong), 3 * n))
    for w in wrong[:10]:
        print("  DIFFERS: %s on %s: rvmon %s, definition %s" % w)
    show = int(opts["--show"])
    print("\n| peer | formulas | cases | agree | differ | peer error |")
    print("|---|---|---|---|---|---|")
    listings = []
    for peer, kind, group in [("stlrom", "future", future), ("rtamt", "future", future),
                              ("rtamt", "past", past), ("rtamt", "mixed", mixed), ("reelay", "past", past)]:
        answers = run_driver(py, peer, [g[0] for g in group], [g[1] for g in group])
        if answers is None:
            print("| %s | %s | skipped: PEERS_PY cannot import it | | | |" % (peer, kind))
            continue
        agree, differ, perr = 0, [], []
        partial = [0, 0, 0]  # crashed cases: samples answered, of them agreeing, samples crashed
        for (f, c, exact), a in zip(group, answers):
            if isinstance(a, dict):
                perr.append((f, a["error"]))
                continue
            crashed = [v for v in a if isinstance(v, dict)]
            if crashed:
                perr.append((f, "crash (%s)" % crashed[0]["crash"]))
                answered = [(e, v) for e, v in zip(exact, a) if not isinstance(v, dict)]
                partial[0] += len(answered)
                partial[1] += sum(1 for e, v in answered if close(e, v))
                partial[2] += len(crashed)
                continue
            bad = [k for k, (e, p) in enumerate(zip(exact, a)) if not close(e, p)]
            if not bad:
                agree += 1
            else:
                differ.append((f, c, exact, a, bad, kinds(py, peer, f, c, a, bad)[0]))
        print("| %s | %s | %d | %d | %d | %d |" % (peer, kind, len(group), agree, len(differ), len(perr)))
        listings.append((peer, kind, differ, perr, partial))
    for peer, kind, differ, perr, partial in listings:
        by_kind = {}
        for d in differ:
            by_kind.setdefault(d[5], []).append(d)
        print("\n## %s, %s formulas: %d disagreement(s)" % (peer, kind, len(differ)))
        for k, ds in sorted(by_kind.items(), key=lambda kv: -len(kv[1])):
            print("\n### %s: %d" % (k, len(ds)))
            for f, c, exact, theirs, bad, _ in ds[:show]:
                print("- `%s`" % DRIVERS[peer][1](f))
                print("  trace (t: x, y): %s" % "  ".join(
                    "%s: %s, %s" % (num(t), num(x), num(y)) for t, x, y in zip(c["t"], c["x"], c["y"])))
                print("  at t = %s: exact %s; %s %s" % (
                    ", ".join(num(c["t"][k]) for k in bad), ", ".join(repr(exact[k]) for k in bad), peer,
                    ", ".join(repr(theirs[k]) for k in bad)))
        if perr:
            print("\n### %s errors: %d" % (peer, len(perr)))
            seen = {}
            for f, e in perr:
                seen.setdefault(e.split(" at ")[0][:80], []).append(f)
            for e, fs in seen.items():
                until = sum(1 for f in fs if "until" in rtamt_text(f))
                print("- %s: %d formula(s), %d of them with `until`; e.g. `%s`"
                      % (e, len(fs), until, DRIVERS[peer][1](fs[0])))
            if partial[0] + partial[2]:
                print("- in those formulas, %d sample(s) crashed; of the %d answered, %d agree with the definition"
                      % (partial[2], partial[0], partial[1]))
        formulas = [g[0] for g in {"future": future, "past": past, "mixed": mixed}[kind]]
        until = sum(1 for f in formulas if "until" in rtamt_text(f))
        if peer == "stlrom":
            print("\n(%d of the %d future formulas have `until`)" % (until, len(formulas)))


if __name__ == "__main__":
    main()
