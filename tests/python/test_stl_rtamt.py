"""`rvmon.stl` against rtamt itself: the same class, the same calls, the same numbers.

rtamt comes from PyPI (`pip install rtamt`); without it these tests are skipped, saying so
(with RVMON_REQUIRE_PEERS set, as .ci/run does, they fail instead).
"""

import math
import os
import random

import numpy as np
import pytest

import rvmon
from rvmon.stl import StlDiscreteTimeSpecification

try:
    import rtamt
except ImportError:  # pragma: no cover - depends on the environment
    rtamt = None

needs_rtamt = pytest.mark.skipif(
    rtamt is None and not os.environ.get("RVMON_REQUIRE_PEERS"),
    reason="SKIPPED: rtamt is not installed (pip install rtamt)",
)


def formula(rng, depth):
    """A random STL formula over x and y (every operator both tools have)."""
    if depth == 0 or rng.random() < 0.25:
        lhs = rng.choice(["x", "y", "x - y", "abs(x)", "x + 2 * y"])
        return "(%s %s %s)" % (lhs, rng.choice([">", ">=", "<", "<=", "=="]), rng.choice(["0", "0.5", "-1.25"]))
    a, b = sorted((rng.randint(0, 3), rng.randint(0, 3)))
    win = "[%d,%d]" % (a, b)
    sub = lambda: formula(rng, depth - 1)
    return rng.choice(
        [
            lambda: "not %s" % sub(),
            lambda: "(%s and %s)" % (sub(), sub()),
            lambda: "(%s or %s)" % (sub(), sub()),
            lambda: "(%s implies %s)" % (sub(), sub()),
            lambda: "always%s(%s)" % (win, sub()),
            lambda: "eventually%s(%s)" % (win, sub()),
            lambda: "historically%s(%s)" % (win, sub()),
            lambda: "once%s(%s)" % (win, sub()),
            lambda: "(%s until%s %s)" % (sub(), win, sub()),
            lambda: "(%s since%s %s)" % (sub(), win, sub()),
            lambda: "prev %s" % sub(),
            lambda: "next %s" % sub(),
            lambda: "always(%s)" % sub(),
            lambda: "once(%s)" % sub(),
            lambda: "rise(%s)" % sub(),
        ]
    )()


def dataset(rng, n):
    xs = [round(rng.uniform(-2, 2), 2) for _ in range(n)]
    ys = [round(rng.uniform(-2, 2), 2) for _ in range(n)]
    return {"time": list(range(n)), "x": xs, "y": ys}


def both(text, period=None):
    specs = []
    for cls in (rtamt.StlDiscreteTimeSpecification, StlDiscreteTimeSpecification):
        s = cls()
        s.declare_var("x", "float")
        s.declare_var("y", "float")
        if period:
            s.set_sampling_period(*period)
        s.spec = text
        s.parse()
        specs.append(s)
    return specs


def same(a, b):
    """Equal to the last bit: signed zeros apart, NaN equal to NaN."""
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return a == b


@needs_rtamt
def test_evaluate_equals_rtamt_on_random_formulas():
    rng = random.Random(3211)
    agree = 0
    for case in range(150):
        text = formula(rng, 3)
        # (From 2 samples: rtamt 0.4.10's evaluate fails on a single one, UnboundLocalError.)
        data = dataset(rng, rng.randint(2, 25))
        theirs, ours = both(text)
        want = theirs.evaluate(data)
        got = ours.evaluate(data)
        assert len(got) == len(want), text
        for (t1, r1), (t2, r2) in zip(got, want):
            assert t1 == t2 and same(r1, r2), "%s: %s at %s, rtamt %s" % (text, r1, t1, r2)
        agree += 1
    print("rvmon.stl vs rtamt evaluate: %d/150 random formulas agree" % agree)


@needs_rtamt
def test_sampling_period_output_assignment_and_constants():
    data = {"time": [0, 0.5, 1, 1.5, 2, 2.5], "x": [1, 0.6, 2, 0.7, 3, -1], "y": [0, 1, 0, 1, 0, 1]}
    for text in ["always[0,1](x > 0.5)", "always[0,1000ms](x > 0.5)", "eventually[0.5,1](x > y)"]:
        theirs, ours = both(text, (500, "ms", 0.1))
        assert ours.evaluate(data) == theirs.evaluate(data), text
    theirs, ours = both("always[0,1](x > 0.5)")
    for s in (theirs, ours):
        s.declare_var("out", "float")
        s.declare_const("c", "float", 0.5)
        s.spec = "out = always[0,1](x > c)"
        s.parse()
    assert ours.evaluate(data) == theirs.evaluate(data)


@needs_rtamt
def test_update_of_past_formulas_equals_rtamt():
    rng = random.Random(77)
    for text in ["historically[0,2](x > 0.5)", "(x > 0) since[1,3] (y < 0)", "once(x - y >= 1) and prev (y < 1)"]:
        theirs, ours = both(text)
        data = dataset(rng, 30)
        for t, x, y in zip(data["time"], data["x"], data["y"]):
            a = theirs.update(t, [("x", x), ("y", y)])
            b = ours.update(t, [("x", x), ("y", y)])
            assert same(b, a), "%s at %s: %s, rtamt %s" % (text, t, b, a)


def test_update_of_a_future_formula_says_why():
    s = StlDiscreteTimeSpecification()
    s.declare_var("x", "float")
    s.spec = "always[0,2](x > 0.5)"
    s.parse()
    with pytest.raises(rvmon.SpecError, match="pastify"):
        s.update(0, [("x", 1.0)])


def test_parse_errors_say_where():
    s = StlDiscreteTimeSpecification()
    s.spec = "always[0,2](x > "
    with pytest.raises(rvmon.SpecError) as e:
        s.parse()
    assert e.value.line == 1 and e.value.column is not None


def test_evaluate_takes_numpy_arrays():
    s = StlDiscreteTimeSpecification()
    s.spec = "always[0,2](x > 0.5)"
    t = np.arange(5.0)
    got = s.evaluate({"time": t, "x": np.array([1, 0.6, 2, 0.7, 3.0])})
    assert [r for _, r in got] == [0.09999999999999998, 0.09999999999999998, 0.19999999999999996, 0.19999999999999996, 2.5]


def dense_formula(rng, depth):
    """A random dense-time STL formula over x and y (no `since`: rtamt leaves out its first
    segment when it is -inf, a quirk crates/rvmon-cli/tests/stl_dense.rs counts)."""
    if depth == 0 or rng.random() < 0.3:
        return "(%s %s %s)" % (rng.choice(["x", "y", "x - y"]), rng.choice([">", "<="]), rng.choice(["0", "0.5"]))
    a = rng.choice([0, 0.5, 1])
    win = "[%g,%g]" % (a, a + rng.choice([0.5, 1, 1.5]))
    sub = lambda: dense_formula(rng, depth - 1)
    return rng.choice(
        [
            lambda: "not %s" % sub(),
            lambda: "(%s and %s)" % (sub(), sub()),
            lambda: "(%s or %s)" % (sub(), sub()),
            lambda: "always%s(%s)" % (win, sub()),
            lambda: "eventually%s(%s)" % (win, sub()),
            lambda: "historically%s(%s)" % (win, sub()),
            lambda: "once%s(%s)" % (win, sub()),
            lambda: "(%s until%s %s)" % (sub(), win, sub()),
        ]
    )()


def dense_both(text):
    specs = []
    for cls in (rtamt.StlDenseTimeSpecification, rvmon.stl.StlDenseTimeSpecification):
        s = cls()
        s.declare_var("x", "float")
        s.declare_var("y", "float")
        s.spec = text
        s.parse()
        specs.append(s)
    return specs


import rvmon.stl  # noqa: E402


def changes(points):
    """rtamt's dense output with the points where the value does not change left out: rtamt
    sometimes lists one (`[10.75, -0.0], [11.25, -0.0]`); rvmon lists changes only."""
    out = []
    for t, v in points:
        if not out or not same(out[-1][1], v):
            out.append([t, v])
    return out


@needs_rtamt
def test_dense_evaluate_equals_rtamt_on_random_formulas():
    rng = random.Random(9)
    for case in range(100):
        text = dense_formula(rng, 2)
        n = rng.randint(2, 12)
        times = [0] + sorted(rng.sample([k / 4 for k in range(1, 40)], n - 1))
        x = [[t, round(rng.uniform(-1, 1), 1)] for t in times]
        y = [[t, round(rng.uniform(-1, 1), 1)] for t in times]
        theirs, ours = dense_both(text)
        want = changes(theirs.evaluate(["x", x], ["y", y]))
        got = ours.evaluate(["x", x], ["y", y])
        assert len(got) == len(want), "%s: %s, rtamt %s" % (text, got, want)
        for (t1, r1), (t2, r2) in zip(got, want):
            assert abs(t1 - t2) < 1e-9 and same(r1, r2), "%s: %s, rtamt %s" % (text, got, want)


@needs_rtamt
def test_dense_signals_sampled_at_different_times():
    theirs, ours = dense_both("always[0,1](x > y)")
    x = [[0, 1.0], [1, 2.0], [2, 3.0], [3.5, 0.0]]
    y = [[0, 0.5], [1.5, 1.0], [2, 1.0], [3, 2.5]]
    assert ours.evaluate(["x", x], ["y", y]) == changes(theirs.evaluate(["x", x], ["y", y]))
