"""The `rvmon` Python package against the `rvmon` command line and against itself.

Run from the repository's root, in an environment where `pip install .` installed rvmon:
    pytest tests/python
The comparisons with the command line need its binary: RVMON_BIN, else target/release/rvmon
or target/debug/rvmon (cargo build); without one they are skipped, saying so (with
RVMON_REQUIRE_PEERS set, as .ci/run does, they fail instead).
"""

import json
import os
import re
import subprocess

import numpy as np
import pytest

import rvmon

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EX = os.path.join(ROOT, "examples")


def binary():
    for path in (
        os.environ.get("RVMON_BIN"),
        os.path.join(ROOT, "target", "release", "rvmon"),
        os.path.join(ROOT, "target", "debug", "rvmon"),
    ):
        if path and os.path.exists(path):
            return path
    if os.environ.get("RVMON_REQUIRE_PEERS"):
        pytest.fail("no rvmon binary (RVMON_BIN, target/release or target/debug)")
    pytest.skip("SKIPPED: no rvmon binary to compare with (cargo build, or RVMON_BIN)")


def cli(*args):
    r = subprocess.run([binary(), "check", *args, "--output", "jsonl"], capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    return [json.loads(line) for line in r.stdout.splitlines()]


# Every language of the bundled examples: (spec, trace, extra CLI args, check() options).
SIG04 = os.path.join(EX, "paper04", "paper04.sig")
P04_LOG = "@0 auth(1, 1500) alive(1)\n@1 auth(2, 700)\n@5 auth(3, 999) auth(4, 2000)\n@9 alive(2)\n"
CASES = [
    ("requests/policy.mtl", "requests/trace.log", [], {}),
    ("stl/requirement.stl", "stl/signals.csv", [], {}),
    ("stl/requirement.stl", "stl/signals.csv", ["--robustness"], {"robustness": True}),
    ("lola/engine.lola", "lola/engine.csv", [], {}),
    ("lola/engine.lola", "lola/engine.csv", ["--values"], {"values": True}),
    ("rvm/acks.rvm", "rvm/acks.log", [], {}),
    ("rvm/locks-ere.rvm", "rvm/locks.log", [], {}),
    ("rvm/maps.rvm", "rvm/maps.log", [], {}),
    ("modelplex/watertank.modelplex", "modelplex/watertank-violating.csv", [], {}),
    ("modelplex/watertank.modelplex", "modelplex/watertank-violating.csv",
     ["--tolerance", "0.5"], {"tolerance": 0.5}),
    ("imprecise/alarm.mtl", "imprecise/alarm.log", ["--timestamp-error", "2"],
     {"timestamp_error": 2}),
    ("imprecise/ack.mtl", "imprecise/ack.log", ["--timestamp-error", "2"],
     {"timestamp_error": "2"}),
]


@pytest.mark.parametrize("spec,trace,flags,options", CASES)
def test_check_equals_the_command_line(spec, trace, flags, options):
    spec, trace = os.path.join(EX, spec), os.path.join(EX, trace)
    got = rvmon.check(spec, trace, **options)
    assert got == cli(spec, trace, *flags)
    assert got, "the example decides something"


def test_modelplex_and_imprecise_verdicts_name_what_they_mean():
    pairs = rvmon.check(os.path.join(EX, "modelplex", "watertank.modelplex"),
                        os.path.join(EX, "modelplex", "watertank-violating.csv"))
    assert [(v["tp"], v["conjunct"], v["condition"]) for v in pairs] == [
        (2, 2, "f' <= (m - x)/eps"), (3, 3, "x' = x + f'*t'"), (4, 6, "eps >= t'")]
    assert pairs[1]["prior"] == {"f": 6, "x": 9, "t": 0.5}
    alarms = rvmon.check(os.path.join(EX, "imprecise", "ack.mtl"),
                         os.path.join(EX, "imprecise", "ack.log"), timestamp_error=2)
    assert [(v["ts"], v["verdict"]) for v in alarms] == [(50, "possible-violation")]


def test_first_order_with_a_signature_as_text_and_paths(tmp_path):
    log = tmp_path / "p04.log"
    log.write_text(P04_LOG)
    spec = os.path.join(EX, "paper04", "p1.mfotl")
    want = cli(spec, str(log), "--sig", SIG04)
    assert [v["ts"] for v in want] == [1, 5]
    assert rvmon.check(spec, str(log), SIG04) == want
    # The same as text: the spec with its language, the trace and the signature as they are.
    with open(spec) as f:
        text = f.read()
    with open(SIG04) as f:
        sig = f.read()
    assert rvmon.check(text, P04_LOG, sig, lang="mfotl") == want


# --- online: a Monitor fed time point by time point gives check()'s verdicts -------------


def monpoly_points(text):
    """(timestamp, [(name, args)]) of a MonPoly log (the simple logs of the examples)."""
    points = []
    for chunk in re.split(r"(?m)^\s*@", "\n".join(l for l in text.splitlines() if not l.lstrip().startswith("#"))):
        if not chunk.strip():
            continue
        ts, _, rest = chunk.strip().partition(" ")
        events = []
        for name, args in re.findall(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(([^)]*)\)", rest):
            vals = tuple(int(a) if re.fullmatch(r"-?\d+", a.strip()) else a.strip().strip('"') for a in args.split(",") if a.strip())
            events.append((name, vals))
        points.append((int(ts), events))
    return points


def csv_points(path):
    """(time, [(name, value)]) of a CSV trace, `#` or empty meaning no value."""
    with open(path) as f:
        header = f.readline().strip().split(",")
        points = []
        for line in f:
            cells = line.strip().split(",")
            if not line.strip():
                continue
            events = []
            for name, cell in zip(header[1:], cells[1:]):
                if cell in ("#", ""):
                    continue
                try:
                    value = float(cell)
                except ValueError:
                    value = cell
                events.append((name, value))
            points.append((float(cells[0]), events))
    return points


ONLINE = [
    ("requests/policy.mtl", "requests/trace.log"),
    ("rvm/acks.rvm", "rvm/acks.log"),
    ("rvm/maps.rvm", "rvm/maps.log"),
    ("stl/requirement.stl", "stl/signals.csv"),
    ("lola/engine.lola", "lola/engine.csv"),
]


def points_of(trace):
    path = os.path.join(EX, trace)
    if trace.endswith(".csv"):
        return csv_points(path)
    with open(path) as f:
        return monpoly_points(f.read())


def run_online(monitor, points, save_at=None):
    got = []
    for i, (ts, events) in enumerate(points):
        if i == save_at:
            monitor = rvmon.Monitor.load(monitor.save())
        got += monitor.update(ts, events)
    return got + monitor.finish()


@pytest.mark.parametrize("spec,trace", ONLINE)
def test_online_monitor_equals_check(spec, trace):
    want = rvmon.check(os.path.join(EX, spec), os.path.join(EX, trace))
    points = points_of(trace)
    got = run_online(rvmon.Monitor(os.path.join(EX, spec)), points)
    assert got == want


@pytest.mark.parametrize("spec,trace", ONLINE)
def test_save_and_load_in_the_middle_change_no_verdict(spec, trace):
    want = rvmon.check(os.path.join(EX, spec), os.path.join(EX, trace))
    points = points_of(trace)
    for save_at in sorted({1, len(points) // 2, len(points) - 1}):
        got = run_online(rvmon.Monitor(os.path.join(EX, spec)), points, save_at)
        assert got == want, "saved and loaded before time point %d" % save_at


def test_explain_names_the_engine():
    text = rvmon.Monitor(os.path.join(EX, "requests", "policy.mtl")).explain()
    assert "engine:" in text and "memory:" in text


# --- signals -------------------------------------------------------------------------------


def walk(n, seed=29):
    rng = np.random.default_rng(seed)
    x = np.clip(np.cumsum(rng.normal(0, 0.1, n)), -2, 2)
    y = np.clip(np.cumsum(rng.normal(0, 0.1, n)), -2, 2)
    return np.arange(n, dtype=np.float64), x, y


def test_robustness_equals_the_command_line(tmp_path):
    t, x, y = walk(3000)
    path = tmp_path / "s.csv"
    with open(path, "w") as f:
        f.write("time,x,y\n")
        for row in zip(t, x, y):
            f.write("%d,%r,%r\n" % (row[0], float(row[1]), float(row[2])))
    formulas = [
        "always[0,100]((x > 0.5) implies eventually[0,20](y < 0.0))",
        "historically[0,100]((x > 0.5) implies once[10,20](y < 0.0))",
        "always[0,50]((x > 0.5) implies ((y > -1.0) until[0,20] (x < 0.0)))",
        "(x - y > 0.25) and prev (abs(x) <= 1.5)",
    ]
    for text in formulas:
        spec = tmp_path / "f.stl"
        spec.write_text(text)
        want = [v["robustness"] for v in cli(str(spec), str(path), "--robustness")]
        time, rob = rvmon.robustness(text, {"time": t, "x": x, "y": y})
        assert time is t, "the time array is handed back, not copied"
        assert rob.dtype == np.float64 and len(rob) == len(t)
        got = [r if np.isfinite(r) else ("inf" if r > 0 else "-inf") for r in rob.tolist()]
        assert got == want, text
        # The spec as a path gives the same.
        assert np.array_equal(rvmon.robustness(str(spec), {"time": t, "x": x, "y": y})[1], rob)


class FrameLike:
    """What rvmon takes of a pandas DataFrame: `columns`, and `[name].to_numpy()`."""

    class Column:
        def __init__(self, a):
            self.a = a

        def to_numpy(self):
            return self.a

    def __init__(self, **cols):
        self.cols = cols
        self.columns = list(cols)

    def __getitem__(self, k):
        return FrameLike.Column(self.cols[k])


def test_robustness_of_a_dataframe_lists_and_strided_arrays():
    t, x, y = walk(500)
    _, want = rvmon.robustness("always[0,5](x > y)", {"time": t, "x": x, "y": y})
    assert np.array_equal(rvmon.robustness("always[0,5](x > y)", FrameLike(time=t, x=x, y=y))[1], want)
    assert np.array_equal(rvmon.robustness("always[0,5](x > y)", {"time": list(t), "x": list(x), "y": list(y)})[1], want)
    both = np.stack([x, y], axis=1)  # columns of a 2-D array are strided views
    got = rvmon.robustness("always[0,5](x > y)", {"time": t, "x": both[:, 0], "y": both[:, 1]})[1]
    assert np.array_equal(got, want)


def test_robustness_errors():
    t, x, _ = walk(10)
    with pytest.raises(rvmon.TraceError, match="signal `y`"):
        rvmon.robustness("x > y", {"time": t, "x": x})
    with pytest.raises(rvmon.TraceError, match="samples"):
        rvmon.robustness("x > 0", {"time": t, "x": x[:5]})
    with pytest.raises(rvmon.SpecError) as e:
        rvmon.robustness("always[0,1](x >", {"time": t, "x": x})
    assert e.value.line == 1 and e.value.column is not None


# --- errors ----------------------------------------------------------------------------------


def test_a_bad_spec_raises_spec_error_with_its_position():
    with pytest.raises(rvmon.SpecError) as e:
        rvmon.check("request() IMPLIES\n  EVENTUALLY[0,5s] (", os.path.join(EX, "requests", "trace.log"), lang="mtl")
    assert e.value.file == "<spec>" and e.value.line == 2 and e.value.column
    assert "<spec>:2:" in str(e.value)
    with pytest.raises(rvmon.SpecError, match="lang="):
        rvmon.check("always(x > 0)", "time,x\n0,1\n")
    with pytest.raises(rvmon.SpecError, match="lang="):
        rvmon.Monitor("p() SINCE q()", lang="cobol")
    with pytest.raises(rvmon.SpecError):
        rvmon.Monitor("always(x >", lang="stl")


def test_a_bad_trace_raises_trace_error_after_the_verdicts_before_it():
    spec = os.path.join(EX, "requests", "policy.mtl")
    good = rvmon.check(spec, os.path.join(EX, "requests", "trace.log"))
    with open(os.path.join(EX, "requests", "trace.log")) as f:
        text = f.read()
    bad = text + "@100 request(\n"
    with pytest.raises(rvmon.TraceError) as e:
        rvmon.check(spec, bad)
    assert e.value.file == "<trace>" and e.value.line == len(text.splitlines()) + 1
    assert e.value.verdicts == [v for v in good if v["ts"] < 100][: len(e.value.verdicts)]
    assert e.value.verdicts, "the verdicts decided before the bad line are kept"
    m = rvmon.Monitor(spec)
    with pytest.raises(rvmon.TraceError, match="integer"):
        m.update(1.5, [("request", ())])
    m = rvmon.Monitor(os.path.join(EX, "stl", "requirement.stl"))
    with pytest.raises(rvmon.TraceError, match="no input `z`"):
        m.update(0, [("z", 1.0)])
    with pytest.raises(rvmon.SpecError):
        rvmon.Monitor.load(b"not a state")


def test_a_finished_monitor_takes_no_more():
    m = rvmon.Monitor(os.path.join(EX, "requests", "policy.mtl"))
    m.update(0, [("request", ())])
    m.finish()
    assert m.finish() == []
    with pytest.raises(rvmon.TraceError, match="finished"):
        m.update(1, [])
