#!/usr/bin/env python3
"""Active automata learning (issue 34, paper 26): rvmon learn against AALpy, and paper 26's
experiment on its benchmark automata.

Usage:
  python3 bench/learn.py RVMON [--aalpy PYTHON] [--sizes 50,200] [--paper DIR]
                               [--lengths 50,500,1000,2000,3000] [--runs 3]
  e.g. cargo build --release -p rvmon-cli
       python3 bench/learn.py target/release/rvmon --aalpy /tmp/venv/bin/python \\
           --paper learnlib-ttt/src/test/resources

1. Learning time and query symbols against AALpy 2.0.0 (its learners, driven in-process
   through the oracle script's loader, ../shared/peers/oracles/aalpy_oracle.py, by PYTHON
   with aalpy installed): random complete DFAs of each size over 4 letters (fixed seeds),
   the perfect equivalence oracle, AALpy's L* and KV against rvmon's lstar, kv and ttt. The
   time is the learner's, without the equivalence queries (both sides: AALpy's
   learning_time, rvmon's --time), so neither Python's start nor the oracle's product search
   counts. rvmon's L* and KV must ask AALpy's queries (asserted).
2. Paper 26's experiment (with --paper: a directory holding sched4, peterson2 and pots2 as
   LearnLib's .dfa or .dfa.gz files, e.g. learnlib-ttt's src/test/resources): counterexamples
   are random walks of each length that stay in the target's language (`--eq walk`), no query
   cache (the paper counts the queries a simulator answers); the mean over --runs seeds of
   membership queries and symbols, for ttt, kv and lstar. (AALpy's kv is a discrimination
   tree with Rivest-Schapire's analysis, the paper's "DT"-like baseline; lstar is an
   observation table with Rivest-Schapire's suffixes, the paper's "RS".)
"""
import argparse
import gzip
import os
import random
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLE = os.path.join(HERE, "..", "..", "shared", "peers", "oracles", "aalpy_oracle.py")


def random_dfa(path, n, k, seed):
    rng = random.Random(seed)
    rows = []
    for q in range(n):
        row = ", ".join(f'"x{a}": "q{rng.randrange(n)}"' for a in range(k))
        rows.append(f'"q{q}": {{{row}}}')
    acc = ", ".join(f'"q{q}"' for q in range(n) if rng.random() < 0.5)
    alphabet = ", ".join(f'"x{a}"' for a in range(k))
    with open(path, "w") as f:
        f.write(f'{{"alphabet": [{alphabet}], "initial": "q0", "accepting": [{acc}], '
                f'"transitions": {{{", ".join(rows)}}}}}\n')


def timed(cmd):
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    secs = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: status {p.returncode}\n{p.stderr}")
    return secs, p.stdout


def fields(line):
    return dict(f.split("=", 1) for f in line.split())


# Times AALpy's learners in-process: the learning, apart from the equivalence queries (the
# perfect oracle's product search), as AALpy itself splits `learning_time` from
# `eq_oracle_time` (unrounded here).
AALPY_TIMER = r"""
import importlib.util, sys, time, random
spec = importlib.util.spec_from_file_location("oracle", sys.argv[1])
o = importlib.util.module_from_spec(spec); spec.loader.exec_module(o)
from aalpy.SULs import AutomatonSUL
from aalpy.oracles import PerfectKnowledgeEqOracle
target, alphabet = o.load_dfa(sys.argv[3])
for name in sys.argv[2].split(","):
    random.seed(0)
    sul = AutomatonSUL(target)
    eq = PerfectKnowledgeEqOracle(alphabet, sul, target)
    spent = [0.0]
    find = eq.find_cex
    def timed(h, find=find):
        t = time.perf_counter(); r = find(h); spent[0] += time.perf_counter() - t; return r
    eq.find_cex = timed
    t = time.perf_counter()
    model, info = o.ALGS[name](alphabet, sul, eq, automaton_type="dfa", return_data=True, print_level=0)
    total = time.perf_counter() - t
    print("alg=%s states=%d mq=%d mq_steps=%d learning=%.6f" % (
        name, model.size, info["queries_learning"], info["steps_learning"], total - spent[0]))
"""


def rvmon_learning(rvmon, path, alg):
    p = subprocess.run([rvmon, "learn", path, "--alg", alg, "--time"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(p.stderr)
    secs = float(p.stderr.split("learning ")[1].split(" s")[0])
    return secs, fields(p.stdout)


def against_aalpy(rvmon, python, sizes, tmp):
    print("## rvmon learn against AALpy 2.0.0 (perfect oracle, 4 letters; learning time, "
          "without the equivalence queries)")
    print("| states | AALpy lstar s | rvmon lstar s | ratio | AALpy kv s | rvmon kv s | ratio "
          "| rvmon ttt s | AALpy best / ttt | symbols lstar / kv / ttt |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n in sizes:
        path = os.path.join(tmp, f"random{n}.json")
        random_dfa(path, n, 4, 26 + n)
        p = subprocess.run([python, "-c", AALPY_TIMER, ORACLE, "lstar,kv", path],
                           capture_output=True, text=True)
        theirs = {fields(l)["alg"]: fields(l) for l in p.stdout.splitlines()}
        ours = {alg: rvmon_learning(rvmon, path, alg) for alg in ["lstar", "kv", "ttt"]}
        for alg in ["lstar", "kv"]:
            assert ours[alg][1]["mq_steps"] == theirs[alg]["mq_steps"], (alg, ours[alg], theirs[alg])
        tl, tk = float(theirs["lstar"]["learning"]), float(theirs["kv"]["learning"])
        ol, ok, ot = ours["lstar"][0], ours["kv"][0], ours["ttt"][0]
        print(f"| {n} | {tl:.3f} | {ol:.4f} | {tl / ol:.0f}× | {tk:.3f} | {ok:.4f} | {tk / ok:.0f}× "
              f"| {ot:.4f} | {min(tl, tk) / ot:.0f}× | {ours['lstar'][1]['mq_steps']} / "
              f"{ours['kv'][1]['mq_steps']} / {ours['ttt'][1]['mq_steps']} |", flush=True)


def paper(rvmon, directory, lengths, runs, tmp):
    print("\n## Paper 26's experiment: walks as counterexamples, no cache (mean of %d seeds)" % runs)
    print("| target | length | ttt mq | ttt symbols | kv mq | kv symbols | lstar mq | lstar symbols | kv/ttt symbols | lstar/ttt symbols |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in ["sched4", "peterson2", "pots2"]:
        target = None
        for ext in [".dfa", ".dfa.gz"]:
            p = os.path.join(directory, name + ext)
            if os.path.exists(p):
                target = os.path.join(tmp, name + ".dfa")
                opener = gzip.open if ext.endswith(".gz") else open
                with opener(p, "rt") as src, open(target, "w") as dst:
                    dst.write(src.read())
        if target is None:
            print(f"| {name} | (not in {directory}) |")
            continue
        for length in lengths:
            if name == "pots2" and length > 2000:
                continue  # (the paper stops pots2 at 2000)
            means = {}
            for alg in ["ttt", "kv", "lstar"]:
                mq = steps = 0
                for seed in range(1, runs + 1):
                    _, out = timed([rvmon, "learn", target, "--alg", alg, "--eq", "walk",
                                    "--length", str(length), "--no-cache", "--seed", str(seed)])
                    f = fields(out)
                    assert f["equivalent"] == "true", out
                    mq += int(f["mq"])
                    steps += int(f["mq_steps"])
                means[alg] = (mq / runs, steps / runs)
            t, k, l = means["ttt"], means["kv"], means["lstar"]
            print(f"| {name} | {length} | {t[0]:.0f} | {t[1]:.0f} | {k[0]:.0f} | {k[1]:.0f} "
                  f"| {l[0]:.0f} | {l[1]:.0f} | {k[1] / t[1]:.1f} | {l[1] / t[1]:.1f} |", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rvmon")
    ap.add_argument("--aalpy", help="a Python with aalpy 2.0.0")
    ap.add_argument("--sizes", default="50,200")
    ap.add_argument("--paper", help="the directory of sched4/peterson2/pots2 .dfa(.gz)")
    ap.add_argument("--lengths", default="50,500,1000,2000,3000")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="rvmon-learn-") as tmp:
        if a.aalpy:
            against_aalpy(a.rvmon, a.aalpy, [int(s) for s in a.sizes.split(",")], tmp)
        if a.paper:
            paper(a.rvmon, a.paper, [int(s) for s in a.lengths.split(",")], a.runs, tmp)


if __name__ == "__main__":
    main()
