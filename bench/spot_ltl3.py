#!/usr/bin/env python3
"""Differential test of rvmon's three-valued verdicts against Spot's LTL3 monitors.

For random LTL formulas (spot.randltl, fixed seed) and short random traces, the verdict rvmon
gives every time point must be LTL3's verdict of the formula on the trace's suffix from that
time point (Bauer, Leucker and Schallhart), which Spot decides with two deterministic
Büchi automata: the suffix w is a bad prefix of f when the words that begin with w and
satisfy f form an empty language, a good prefix when those that satisfy !f do:
  violation     the suffix is a bad prefix of f: no continuation satisfies f;
  satisfied     it is a good prefix: every continuation satisfies f;
  inconclusive  neither.
rvmon's `--output jsonl` lists violations and inconclusive time points; the rest are satisfied.

Each formula is checked twice: written in Spot's syntax in a `.ltl` file (when rvmon reads
that syntax) and translated to MonPoly's syntax in a `.mtl` file.

Usage: PEERS_PY=... python3 bench/spot_ltl3.py --rvmon target/release/rvmon [--count 300]
       [--seed 7] [--traces 3] [--max-len 6]
Runs itself under $PEERS_PY (a Python with `pip install spottl`). Exits 1 on any disagreement
and prints it; prints the agreement counts either way.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile


def reexec_under_peers_python():
    try:
        import spot  # noqa: F401
    except ImportError:
        py = os.environ.get("PEERS_PY")
        if not py or os.environ.get("SPOT_LTL3_REEXEC"):
            sys.exit("spot_ltl3.py: needs a Python with `pip install spottl` (set PEERS_PY)")
        os.environ["SPOT_LTL3_REEXEC"] = "1"
        os.execv(py, [py] + sys.argv)


reexec_under_peers_python()
import spot  # noqa: E402

APS = ["a", "b", "c"]


def monpoly(f):
    """Spot formula -> MonPoly syntax (every operator without an interval: [0,*))."""
    k = f.kind()
    sub = [monpoly(f[i]) for i in range(f.size())]
    if k == spot.op_ap:
        return f.ap_name() + "()"
    if k == spot.op_tt:
        return "TRUE"
    if k == spot.op_ff:
        return "FALSE"
    if k == spot.op_Not:
        return "(NOT %s)" % sub[0]
    if k == spot.op_And:
        return "(" + " AND ".join(sub) + ")"
    if k == spot.op_Or:
        return "(" + " OR ".join(sub) + ")"
    if k == spot.op_Implies:
        return "(%s IMPLIES %s)" % tuple(sub)
    if k == spot.op_Equiv:
        return "(%s EQUIV %s)" % tuple(sub)
    if k == spot.op_Xor:
        return "(NOT (%s EQUIV %s))" % tuple(sub)
    if k == spot.op_X:
        return "(NEXT %s)" % sub[0]
    if k == spot.op_F:
        return "(EVENTUALLY %s)" % sub[0]
    if k == spot.op_G:
        return "(ALWAYS %s)" % sub[0]
    if k == spot.op_U:
        return "(%s UNTIL %s)" % tuple(sub)
    if k == spot.op_R:
        return "(NOT ((NOT %s) UNTIL (NOT %s)))" % tuple(sub)
    if k == spot.op_W:
        return "((%s UNTIL %s) OR (ALWAYS %s))" % (sub[0], sub[1], sub[0])
    if k == spot.op_M:
        return "(%s UNTIL (%s AND %s))" % (sub[1], sub[0], sub[1])
    raise ValueError("operator not translated: %s" % f)


def letter_formula(letter):
    return spot.formula.And([spot.formula.ap(a) if a in letter else
                             spot.formula.Not(spot.formula.ap(a)) for a in APS])


def starts_with(word, f):
    """The words that begin with `word` and satisfy f at their first position."""
    g = spot.formula.tt()
    for letter in reversed(word):
        g = spot.formula.And([letter_formula(letter), spot.formula.X(g)])
    return spot.formula.And([f, g])


def satisfiable(f, cache={}):
    key = str(f)
    if key not in cache:
        cache[key] = not spot.translate(f).is_empty()
    return cache[key]


def ltl3(f, trace):
    """LTL3 verdicts by emptiness checks of Buchi automata. (Spot's 'monitor' translation is
    not used: on `Fb & (!a U G!b)` it accepts the prefix `a`, although Spot's own emptiness
    check finds `a & (Fb & (!a U G!b))` unsatisfiable.)"""
    out = []
    for i in range(len(trace)):
        word = trace[i:]
        if not satisfiable(starts_with(word, f)):
            out.append("violation")
        elif not satisfiable(starts_with(word, spot.formula.Not(f))):
            out.append("satisfied")
        else:
            out.append("inconclusive")
    return out


def rvmon_verdicts(rvmon, spec_path, log_path, n):
    r = subprocess.run([rvmon, "check", spec_path, log_path, "--output", "jsonl"],
                       capture_output=True, text=True)
    if r.returncode not in (0, 1):
        return None, r.stderr.strip()
    got = ["satisfied"] * n
    for line in r.stdout.splitlines():
        v = json.loads(line)
        got[v["tp"]] = v["verdict"]
    return got, None


def spot_syntax_supported(rvmon, tmp):
    spec = os.path.join(tmp, "probe.ltl")
    log = os.path.join(tmp, "probe.log")
    with open(spec, "w") as fh:
        fh.write("G(a -> F b)\n")
    with open(log, "w") as fh:
        fh.write("@0 a()\n")
    return subprocess.run([rvmon, "check", spec, log], capture_output=True).returncode in (0, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rvmon", required=True)
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--traces", type=int, default=3)
    ap.add_argument("--max-len", type=int, default=6)
    ap.add_argument("--tree-size", type=int, default=12)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    formulas = spot.randltl(APS, seed=args.seed, tree_size=args.tree_size,
                            ltl_priorities="xor=0")
    counts = {"violation": 0, "satisfied": 0, "inconclusive": 0}
    disagreements = []
    runs = 0
    with tempfile.TemporaryDirectory() as tmp:
        syntaxes = [("mtl", monpoly)]
        if spot_syntax_supported(args.rvmon, tmp):
            syntaxes.append(("ltl", lambda f: f.to_str("spot")))
        for k in range(args.count):
            f = next(formulas)
            for t in range(args.traces):
                trace = [frozenset(a for a in APS if rng.random() < 0.4)
                         for _ in range(rng.randint(1, args.max_len))]
                log = os.path.join(tmp, "t.log")
                with open(log, "w") as fh:
                    for i, letter in enumerate(trace):
                        fh.write("@%d %s\n" % (i, " ".join(a + "()" for a in sorted(letter))))
                want = ltl3(f, trace)
                for ext, write in syntaxes:
                    spec = os.path.join(tmp, "f." + ext)
                    with open(spec, "w") as fh:
                        fh.write(write(f) + "\n")
                    got, err = rvmon_verdicts(args.rvmon, spec, log, len(trace))
                    runs += 1
                    if got != want:
                        disagreements.append((str(f), ext, [sorted(s) for s in trace], want,
                                              got if got is not None else err))
                    elif ext == "mtl":
                        for v in want:
                            counts[v] += 1
    total = sum(counts.values())
    print("formulas %d, runs %d (syntaxes: %s), time points %d: %d violation, %d satisfied, "
          "%d inconclusive; disagreements %d"
          % (args.count, runs, ",".join(e for e, _ in syntaxes), total, counts["violation"],
             counts["satisfied"], counts["inconclusive"], len(disagreements)))
    for d in disagreements[:20]:
        print("DISAGREE %s [.%s] trace %s\n  spot  %s\n  rvmon %s" % d)
    sys.exit(1 if disagreements else 0)


if __name__ == "__main__":
    main()
