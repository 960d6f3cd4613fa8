#!/usr/bin/env python3
"""rvmon against rtlola-cli on random real-time RTLola specifications.

Usage: python3 bench/rtlola_random.py RVMON RTLOLA_CLI [COUNT] [SEED]

Each case is a random specification (event-based outputs, periodic outputs at frequencies that
divide one another or not, sample-and-hold both ways, sliding windows over time and over
values with every aggregation rtlola-cli computes as documented, triggers; parameterized and
spawned streams, with filters, closes, clocks of their own, and instances read by hold and
by windows) and a random trace
(irregular timestamps, missing values as `#`). Both tools run it:
  rtlola-cli monitor --offline relative-secs --stdout --verbosity outputs SPEC --csv-in TRACE
  rvmon check SPEC TRACE --values --output rtlola
and every line (each output value and trigger) must be the same; the lines of one time are
compared sorted, since rtlola-cli prints a stream's instances in hash order. `integral` is left out:
rtlola-cli 0.1.2 counts fractions of a second ten times in it (see ARCHITECTURE.md).
Prints the agreement count; exits 1 on any difference, with the first one.
"""
import os, random, shutil, subprocess, sys, tempfile, atexit

FREQS = ["1Hz", "2Hz", "2.5Hz", "4Hz", "5Hz", "10Hz", "0.5s", "0.2s", "3Hz", "0.7Hz"]
# Windows are read only at frequencies whose period is a whole number of nanoseconds
# dividing the duration's (rtlola-cli allocates duration / gcd(duration, period) buckets).
WINDOW_FREQS = ["1Hz", "2Hz", "2.5Hz", "4Hz", "5Hz", "10Hz", "0.5s", "0.2s"]
DURATIONS = ["0.2s", "0.5s", "1s", "2s", "3s", "1500ms"]
NUMERIC_AGGS = ["sum", "count", "min", "max", "avg", "last", "Σ", "average"]
OPTIONAL = {"min", "max", "avg", "average", "last"}


def spec(rng):
    inputs = [("a", "Int64"), ("b", "Float64"), ("c", "Bool"), ("u", "UInt64")]
    lines = [f"input {n}: {t}" for n, t in inputs]
    numeric = {"a": "Int64", "b": "Float64", "u": "UInt64"}
    periodic = {}  # name -> (freq, type)
    event = {"a": "Int64", "b": "Float64", "c": "Bool", "u": "UInt64"}
    default = {"Int64": "0", "Float64": "0.5", "UInt64": "1", "Bool": "false"}
    for k in range(rng.randint(2, 6)):
        kind = rng.random()
        name = f"o{k}"
        if kind < 0.3:
            # event-based
            src = rng.choice(list(numeric))
            t = numeric[src]
            if rng.random() < 0.5:
                expr = f"{src} + {src}.offset(by: -1).defaults(to: {default[t]})"
            elif rng.random() < 0.5 and periodic:
                p = rng.choice(list(periodic))
                pt = periodic[p][1]
                if pt == t:
                    expr = f"{src} + {p}.hold(or: {default[t]})"
                else:
                    expr = f"{src}"
            else:
                n = rng.randint(1, 4)
                agg = rng.choice(["sum", "count", "max", "last"])
                w = f"{src}.aggregate(over_discrete: {n}, using: {agg})"
                if agg in OPTIONAL:
                    w += f".defaults(to: {default[t]})"
                if agg == "count":
                    t = "UInt64"
                expr = w
            lines.append(f"output {name} := {expr}")
            event[name] = t
            if t in ("Int64", "Float64", "UInt64"):
                numeric[name] = t
        else:
            freq = rng.choice(WINDOW_FREQS if kind < 0.8 else FREQS)
            if kind < 0.8:
                src = rng.choice(list(numeric) + ["c"])
                if src == "c":
                    agg, t = rng.choice([("forall", "Bool"), ("exists", "Bool"), ("count", "UInt64")])
                else:
                    agg = rng.choice(NUMERIC_AGGS)
                    t = "UInt64" if agg == "count" else numeric[src]
                d = rng.choice(DURATIONS)
                over = "over_exactly" if rng.random() < 0.2 else "over"
                expr = f"{src}.aggregate({over}: {d}, using: {agg})"
                if agg in OPTIONAL or over == "over_exactly":
                    expr += f".defaults(to: {default[t]})"
            else:
                src = rng.choice(list(event))
                t = event[src]
                expr = f"{src}.hold(or: {default[t]})"
            lines.append(f"output {name} @ {freq} := {expr}")
            periodic[name] = (freq, t)
            if t in ("Int64", "Float64", "UInt64"):
                numeric.setdefault(name, t)
    # triggers
    for name, t in list(numeric.items())[4:]:
        if rng.random() < 0.6:
            lines.append(f'trigger {name} > {default[t]} "{name} above"')
    for k in range(rng.choice([0, 0, 1, 2])):
        lines.extend(parameterized(rng, k))
    return "\n".join(lines) + "\n"


def parameterized(rng, k):
    """A parameterized or spawned stream and what reads it (RTLola's idioms: a counter per
    value, a stream that lives for one period, an instance read by hold or by a window)."""
    name = f"p{k}"
    kind = rng.randrange(4)
    lines = []
    if kind == 0:
        limit = rng.randint(2, 4)
        lines.append(f"output {name}(x: Int64) spawn with a when a > {rng.randint(-2, 3)} "
                     f"eval when x = a with {name}(x).offset(by: -1).defaults(to: 0) + 1 "
                     f"close when {name}(x) = {limit}")
        t = "Int64"
    elif kind == 1:
        lines.append(f"output {name}(x) spawn with u when u > {rng.randint(2, 6)} "
                     f"eval @1Hz with a.hold(or: 0) + cast<UInt64, Int64>(x) "
                     f"close when if true then true else {name}(x) = 0")
        t = "Int64"
    elif kind == 2:
        lines.append(f"output {name}(x: UInt64) spawn with u "
                     f"eval @{rng.choice(['a', 'b', '(a || u)'])} with a.hold(or: 0) "
                     f"close when u = {rng.randint(0, 9)}")
        t = "Int64"
    else:
        freq = rng.choice(["1Hz", "2Hz", "0.5s"])
        lines.append(f"output {name} spawn @{freq} when a.hold(or: 0) > {rng.randint(0, 5)} "
                     f"close when a < 0 eval @a with a")
        lines.append(f"trigger @a {name}.hold(or: 0) > 5 \"{name} high\"")
        return lines
    v = rng.randint(0, 6)
    lines.append(f"output h{k} @ a := {name}({v}).hold(or: -1)")
    lines.append(f"trigger @a {name}({v}).hold(or: 0) = 2 \"{name}({v}) is 2\"")
    # (Not over the counters, which close and come back: rtlola-cli deletes a respawned
    # instance's window when the previous instance's window was due to go, see README.)
    if kind != 0 and rng.random() < 0.5:
        w = rng.choice(["count", "sum", "max"])
        over = rng.choice(["over", "over_exactly"])
        expr = f"{name}({rng.randint(0, 6)}).aggregate({over}: {rng.choice(['1s', '2s'])}, using: {w})"
        if w == "max" or over == "over_exactly":
            expr += ".defaults(to: 0)"
        lines.append(f"output w{k} @{rng.choice(['1Hz', '2Hz'])} := {expr}")
    return lines


def by_time(lines):
    """The lines with those of one time sorted: rtlola-cli prints a stream's instances in
    hash order, which changes from run to run."""
    groups = {}
    for l in lines:
        groups.setdefault(l.split("]", 1)[0], []).append(l)
    return [l for t in groups for l in sorted(groups[t])]


def trace(rng):
    rows = ["a,b,c,u,time"]
    t = rng.choice([0, 0, 0.05, 0.3])
    for _ in range(rng.randint(5, 60)):
        t += rng.choice([0.01, 0.05, 0.1, 0.1, 0.2, 0.25, 0.5, 0.7, 1.3, 0.0])
        cells = [
            rng.choice(["#", str(rng.randint(-5, 9))]),
            rng.choice(["#", f"{rng.uniform(-3, 3):.3f}"]),
            rng.choice(["#", "true", "false"]),
            rng.choice(["#", str(rng.randint(0, 9))]),
        ]
        rows.append(",".join(cells) + f",{t:.2f}")
    return "\n".join(rows) + "\n"


def main():
    rvmon, peer = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    rng = random.Random(seed)
    work = tempfile.mkdtemp(prefix="rvmon-rtlola-")
    atexit.register(shutil.rmtree, work, True)
    same = rejected = 0
    for i in range(count):
        s, tr = spec(rng), trace(rng)
        sp, tp = os.path.join(work, "s.lola"), os.path.join(work, "t.csv")
        open(sp, "w").write(s)
        open(tp, "w").write(tr)
        theirs = subprocess.run([peer, "monitor", "--offline", "relative-secs", "--stdout", "--verbosity",
                                 "outputs", sp, "--csv-in", tp], capture_output=True, text=True)
        if theirs.returncode != 0:
            rejected += 1  # a specification rtlola-cli refuses is no comparison
            continue
        ours = subprocess.run([rvmon, "check", sp, tp, "--values", "--output", "rtlola"],
                              capture_output=True, text=True)
        a = by_time([l for l in theirs.stdout.splitlines() if l.startswith("[")])
        b = by_time(ours.stdout.splitlines())
        if a != b or ours.returncode not in (0, 1):
            first = next((j for j, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            print(f"case {i} differs at line {first + 1}:\n--- spec\n{s}--- trace\n{tr}"
                  f"--- rtlola-cli\n{a[first:first + 3]}\n--- rvmon (exit {ours.returncode})\n{b[first:first + 3]}\n"
                  f"{ours.stderr[-500:]}")
            print(f"rtlola random: {same} of {i + 1} agree")
            sys.exit(1)
        same += 1
    print(f"rtlola random: {same} of {count - rejected} specifications give the same output lines "
          f"({rejected} refused by rtlola-cli, seed {seed})")


if __name__ == "__main__":
    main()
