#!/usr/bin/env python3
"""Active automata learning (issue 34, paper 26): rvmon learn against AALpy, and paper 26's
experiment on its benchmark automata.

Usage:
  python3 bench/learn.py RVMON [--aalpy PYTHON] [--sizes 50,200] [--paper DIR]
                               [--lengths 50,500,1000,2000,3000] [--runs 3]
  e.g. cargo build --release -p rvmon-cli
       python3 bench/learn.py target/release/rvmon --aalpy /tmp/venv/bin/python \\
           --paper learnlib-ttt/src/test/resources

1. Wall time and query symbols against AALpy 2.0.0 (its oracle script,
   ../shared/peers/oracles/aalpy_oracle.py, run by PYTHON with aalpy installed): random
   complete DFAs of each size over 4 letters (fixed seeds), the perfect equivalence oracle,
   AALpy's L* and KV against rvmon's ttt, lstar and kv, the whole process timed each
   (AALpy's includes starting Python, about 0.1 s).
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


def against_aalpy(rvmon, python, sizes, tmp):
    print("## rvmon learn against AALpy 2.0.0 (perfect oracle, 4 letters)")
    print("| states | alg | AALpy s | rvmon s | ratio | AALpy mq/symbols | rvmon mq/symbols | rvmon ttt mq/symbols |")
    print("|---|---|---|---|---|---|---|---|")
    for n in sizes:
        path = os.path.join(tmp, f"random{n}.json")
        random_dfa(path, n, 4, 26 + n)
        ttt_secs, ttt = timed([rvmon, "learn", path, "--alg", "ttt"])
        t = fields(ttt)
        for alg in ["lstar", "kv"]:
            theirs_secs, theirs = timed([python, ORACLE, "learn", "--algs", alg, "--eq", "perfect", path])
            ours_secs, ours = timed([rvmon, "learn", path, "--alg", alg])
            a, o = fields(theirs.splitlines()[0]), fields(ours)
            print(f"| {n} | {alg} | {theirs_secs:.2f} | {ours_secs:.3f} | {theirs_secs / ours_secs:.0f}× "
                  f"| {a['mq']}/{a['mq_steps']} | {o['mq']}/{o['mq_steps']} "
                  f"| {t['mq']}/{t['mq_steps']} ({ttt_secs:.3f} s) |", flush=True)


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
