"""rtamt's discrete-time STL specification class, on rvmon: change one import.

    from rvmon.stl import StlDiscreteTimeSpecification     # was: from rtamt import ...
    spec = StlDiscreteTimeSpecification()
    spec.declare_var('x', 'float'); spec.declare_var('y', 'float')
    spec.spec = 'always[0,10]((x > 0.5) implies eventually[0,2](y < 0))'
    spec.parse()
    spec.evaluate({'time': [0, 1, 2], 'x': [...], 'y': [...]})   # [[t, rob], ...], as rtamt

The numbers are rtamt's (its discrete semantics, end of trace included: rvmon's STL engine is
tested against rtamt itself). What rtamt offers and this class does:
  * `declare_var`, `declare_const` (a named constant), `set_var_io_type` (recorded: it only
    matters to rtamt's IA-STL semantics, not to the standard robustness computed here);
  * `spec` as a formula, or `out = formula` with `out` declared;
  * `parse()`, raising `rvmon.SpecError` with the line and column;
  * `evaluate(dataset)`, offline: `{'time': [...], 'x': [...], ...}` lists or NumPy arrays;
  * `update(t, [('x', v), ...])`, online, for past-time formulas: the robustness at `t`;
  * `set_sampling_period(period, unit, tolerance)`: bounds in seconds (or with units) over
    the period; `reset()`.
`StlDenseTimeSpecification` is rtamt's dense-time class: `evaluate(['x', [[t, v], ...]], ...)`
gives the robustness where it changes, `[[t, rob], ...]`, exact for piecewise-constant
signals (each sample's value holds until the signal's next sample), as `rvmon check --dense`.
Not here (yet): `pastify()` (rtamt's rewriting of bounded-future formulas for `update`; the
engine's own online mode, `rvmon.Monitor`, decides them with the horizon's delay instead),
and the dense class's online `update` (rtamt's gives inconsistent values when fed a sample at
a time: ../shared/peers/README.md §2.1).
"""

import re

import numpy as np

from . import Monitor, SpecError, _raise, _rvmon, robustness

__all__ = ["StlDiscreteTimeSpecification", "StlDenseTimeSpecification"]

UNITS_NS = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}


class StlDiscreteTimeSpecification:
    """rtamt's `StlDiscreteTimeSpecification`, computed by rvmon (see the module's doc)."""

    dense = False

    def __init__(self, semantics=None, language=None, *args, **kwargs):
        self.name = "STL Specification"
        self.spec = None
        self.semantics = semantics
        self.vars = {}
        self.consts = {}
        self.io_types = {}
        self.out_var = None
        self.period_ns = None
        self.sampling_tolerance = 0.1
        self._formula = None
        self._online = None

    def declare_var(self, name, type="float"):
        self.vars[name] = type

    def declare_const(self, name, type, value):
        self.consts[name] = (type, value)

    def set_var_io_type(self, name, io_type):
        self.io_types[name] = io_type

    def set_sampling_period(self, period, unit="s", tolerance=0.1):
        if unit not in UNITS_NS:
            raise SpecError("set_sampling_period: unit %r: expected one of s, ms, us, ns" % (unit,))
        ns = period * UNITS_NS[unit]
        if ns <= 0 or int(ns) != ns:
            raise SpecError("set_sampling_period: %r %s is not a positive whole number of nanoseconds" % (period, unit))
        self.period_ns = int(ns)
        self.sampling_tolerance = tolerance
        self._formula = None

    def _text(self):
        if self.spec is None:
            raise SpecError("no specification: set `spec` before parse()")
        text = self.spec
        # `out = formula`, rtamt's assignment to an output variable.
        m = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)", text)
        if m and m.group(1) in self.vars:
            self.out_var = m.group(1)
            text = text[m.end():]
        for name, (_, value) in self.consts.items():
            text = re.sub(r"\b%s\b" % re.escape(name), "(%r)" % (float(value),), text)
        return text

    def parse(self):
        """Parses `spec`; raises rvmon.SpecError where it is wrong."""
        text = self._text()
        try:
            signals = _rvmon.stl_signals(self.name, text, self.period_ns)
        except _rvmon.Failure as f:
            _raise(f)
        self._formula = (text, signals)
        self._online = None

    def _parsed(self):
        if self._formula is None:
            self.parse()
        return self._formula

    def evaluate(self, dataset):
        """The robustness at every sample of `dataset` (`{'time': [...], 'x': [...]}`),
        as rtamt gives it: `[[time, robustness], ...]`."""
        text, signals = self._parsed()
        time = dataset["time"]
        columns = {"time": np.asarray(time, dtype=np.float64)}
        for s in signals:
            if s not in dataset:
                raise SpecError("the formula reads `%s`, which the dataset does not have" % s)
            columns[s] = dataset[s]
        try:
            n = len(time)
            arrays = [np.ascontiguousarray(columns[s], dtype=np.float64) for s in signals]
            rob = _rvmon.robustness(self.name, text, list(signals), arrays, n, self.period_ns)
        except _rvmon.Failure as f:
            _raise(f)
        return [[t, r] for t, r in zip(_plain(time), rob.tolist())]

    def update(self, t, values):
        """Online: the robustness at `t`, given `values` (`[('x', v), ...]`) there. For
        past-time formulas, as rtamt's `update`."""
        text, signals = self._parsed()
        if self._online is None:
            try:
                native = _rvmon.Monitor(self.name, text, "stl", None, True, self.period_ns)
            except _rvmon.Failure as f:
                _raise(f)
            self._online = Monitor(None, _native=native)
        # (Declared variables the formula does not read are passed over, as rtamt does.)
        decided = self._online.update(t, [(n, (v,)) for n, v in values if n in signals])
        if not decided:
            raise SpecError(
                "update() decides past-time formulas at once; this one reads the future "
                "(rtamt needs pastify() for it, which rvmon.stl does not offer yet: "
                "rvmon.Monitor decides it with the horizon's delay)"
            )
        return _number(decided[-1]["robustness"])

    def reset(self):
        self._online = None


def _number(v):
    return float(v) if isinstance(v, str) else v


def _plain(time):
    """The times as rtamt hands them back (Python numbers, as given)."""
    return time.tolist() if isinstance(time, np.ndarray) else list(time)


class StlDenseTimeSpecification(StlDiscreteTimeSpecification):
    """rtamt's `StlDenseTimeSpecification`, computed by rvmon (see the module's doc)."""

    dense = True

    def set_sampling_period(self, period, unit="s", tolerance=0.1):
        self.sampling_tolerance = tolerance  # (dense time has no sampling period)

    def parse(self):
        """Parses `spec` for dense time; raises rvmon.SpecError where it is wrong."""
        text = self._text()
        try:
            signals = _rvmon.stl_signals(self.name, text, None, True)
        except _rvmon.Failure as f:
            _raise(f)
        self._formula = (text, signals)

    def evaluate(self, *signals):
        """The robustness where it changes, `[[time, robustness], ...]`, of signals given
        as rtamt takes them: `['x', [[t, v], ...]], ['y', [[t, v], ...]]`."""
        text, _ = self._parsed()
        names, series = [], []
        for item in signals:
            name, samples = item
            names.append(str(name))
            series.append([(t, float(v)) for t, v in samples])
        # Every signal holds its value until its next sample: all of them are read at every
        # time any of them has a sample, from the first time all of them have one.
        start = max((s[0][0] for s in series if s), default=None)
        times = sorted({t for s in series for t, _ in s if start is not None and t >= start})
        shown = {}
        for t in times:
            shown.setdefault(_ns(t), t)
        columns = []
        for s in series:
            col, k, value = [], 0, None
            for t in times:
                while k < len(s) and s[k][0] <= t:
                    value = s[k][1]
                    k += 1
                col.append(value)
            columns.append(col)
        ns = [_ns(t) for t in times]
        try:
            segments = _rvmon.dense_segments(self.name, text, names, columns, ns)
        except _rvmon.Failure as f:
            _raise(f)
        return [[shown.get(t, t / 1e9), v] for t, v in segments]

    def update(self, *args, **kwargs):
        raise SpecError(
            "the dense-time class's update() is not offered (rtamt's is inconsistent when fed "
            "a sample at a time); use evaluate() on the signals so far, or rvmon.Monitor"
        )


def _ns(t):
    return int(round(t * 1e9))
