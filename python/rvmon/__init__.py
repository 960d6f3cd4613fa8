"""rvmon from Python: check logs and signals against temporal specifications.

    import rvmon
    rvmon.check("policy.mtl", "trace.log")             # the verdicts, as dicts
    t, rob = rvmon.robustness("always[0,10](x > 0)", {"time": t, "x": x})   # NumPy arrays
    m = rvmon.Monitor("policy.mtl")                   # online: one time point at a time
    m.update(10, [("login", (17,))]); m.finish()

A specification is a path, or its text with `lang` (the extension's name: 'mtl', 'mfotl',
'ltl', 'lola', 'rvm', 'stl'). A trace is a path, or its text. Errors raise `SpecError` or
`TraceError`, with the file, line and column when there are some.
"""

import json
import os
import tempfile

import numpy as np

from . import _rvmon

__all__ = [
    "Error",
    "SpecError",
    "TraceError",
    "check",
    "robustness",
    "Monitor",
]

LANGS = ("mtl", "mfotl", "ltl", "lola", "rtlola", "rvm", "stl", "mltl", "c2po", "modelplex")


class Error(ValueError):
    """An error of rvmon: `file`, `line` and `column` say where, when known."""

    def __init__(self, message, file=None, line=None, column=None):
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column


class SpecError(Error):
    """The specification (or its signature) is wrong: what was expected, and where."""


class TraceError(Error):
    """The trace is wrong (or a time point given to a Monitor): what was expected, where.

    `verdicts` holds the verdicts decided before the bad input, as `check` would have
    returned them.
    """

    def __init__(self, message, file=None, line=None, column=None, verdicts=()):
        super().__init__(message, file, line, column)
        self.verdicts = list(verdicts)


def _lines(data):
    return [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]


def _raise(failure, names=()):
    """Raises the SpecError or TraceError a native failure stands for; `names` maps the
    temporary files that held text to what the user knows them as (`<spec>`)."""
    kind, message, file, line, col, output = failure.args
    for path, shown in names:
        message = message.replace(path, shown)
        if file == path:
            file = shown
    if kind == "trace":
        raise TraceError(message, file, line, col, _lines(output)) from None
    if kind == "spec":
        raise SpecError(message, file, line, col) from None
    raise Error(message, file, line, col) from None


def _is_path(text):
    return isinstance(text, os.PathLike) or ("\n" not in text and os.path.exists(text))


def _spec_source(spec, lang):
    """(name, text) of a specification given as a path or as text."""
    if _is_path(spec):
        path = os.fspath(spec)
        try:
            with open(path, encoding="utf-8") as f:
                return path, f.read()
        except (OSError, UnicodeDecodeError) as e:
            raise SpecError("%s: cannot read: %s" % (path, e), path) from None
    _needs_lang(spec, lang)
    return "<spec>", spec


def _needs_lang(spec, lang):
    """Refuses a specification given as text without its language."""
    if lang is None:
        raise SpecError(
            "%r is not a file; to give a specification's text, say its language with lang= "
            "(one of %s)" % (spec if len(spec) < 60 else spec[:57] + "...", ", ".join(LANGS))
        )


def _check_lang(lang):
    if lang is not None and lang not in LANGS:
        raise SpecError("lang=%r: expected one of %s" % (lang, ", ".join(LANGS)))


def _trace_suffix(text, format):
    if format is not None:
        return {"monpoly": ".log", "csrv-csv": ".csv", "signal": ".csv"}.get(format, "." + format)
    # The first line that is not blank or a comment: `@` starts a MonPoly log, `{` JSON Lines,
    # `<` XML; anything else is a CSV header.
    lines = (l.strip() for l in text.splitlines())
    first = next((l for l in lines if l and not l.startswith("#")), "")[:1]
    return {"@": ".log", "{": ".jsonl", "<": ".xml"}.get(first, ".csv")


def check(spec, trace, sig=None, *, lang=None, **options):
    """The verdicts of `trace` against `spec`: the objects `rvmon check --output jsonl`
    writes, as dicts (`{"tp": 3, "ts": 20, "verdict": "violation", ...}`).

    `spec`, `trace` and `sig` are paths or text (`lang` names the spec's language when it
    is text). Options are `rvmon check`'s: `format`, `time_field`, `robustness`, `dense`,
    `intervals`, `values`, `workers`, `tolerance` (ModelPlex conditions) and
    `timestamp_error` (imprecise timestamps: each verdict then says `violation`,
    `possible-violation` or `undetermined`), the last two as numbers or strings. Raises
    SpecError or TraceError (whose `verdicts` are those decided before the bad input).
    """
    _check_lang(lang)
    with tempfile.TemporaryDirectory(prefix="rvmon-") as tmp:
        names = []

        def as_file(value, name, shown):
            if _is_path(value):
                return os.fspath(value)
            path = os.path.join(tmp, name)
            with open(path, "w", encoding="utf-8") as f:
                f.write(value)
            names.append((path, shown))
            return path

        if not _is_path(spec):
            _needs_lang(spec, lang)
        spec_path = as_file(spec, "spec." + (lang or "txt"), "<spec>")
        trace_path = as_file(trace, "trace" + _trace_suffix(trace, options.get("format")), "<trace>")
        sig_path = None if sig is None else as_file(sig, "spec.sig", "<sig>")
        for exact in ("tolerance", "timestamp_error"):
            # (Passed as text: rvmon reads the decimal exactly.)
            if options.get(exact) is not None:
                options[exact] = str(options[exact])
        try:
            out, _status = _rvmon.check(spec_path, trace_path, lang=lang, sig=sig_path, **options)
        except _rvmon.Failure as f:
            _raise(f, names)
    return _lines(out)


def _signal_columns(signals):
    """(names, arrays) of a dict of arrays or a DataFrame (duck-typed: `columns` and `[]`)."""
    if hasattr(signals, "columns") and not isinstance(signals, dict):
        names = [str(c) for c in signals.columns]
        arrays = [signals[c].to_numpy() for c in signals.columns]
    elif hasattr(signals, "keys"):
        names = [str(k) for k in signals.keys()]
        arrays = [signals[k] for k in signals.keys()]
    else:
        raise TraceError("signals: expected a dict of arrays or a DataFrame, found %s" % type(signals).__name__)
    return names, arrays


TIME_NAMES = ("time", "ts", "timestamp")


def robustness(spec, signals):
    """The robustness of the STL formula `spec` (rtamt's syntax; a path or the formula
    itself) at every sample of `signals`: a dict of 1-D NumPy arrays (or anything
    `numpy.asarray` takes) or a pandas DataFrame, one per signal, with the sample times
    under 'time' (or 'ts', 'timestamp'; without one, the sample's index).

    Returns `(time, robustness)`, two NumPy arrays; `time` is the one given, not copied.
    Discrete time, as rtamt's `evaluate` and `rvmon check SPEC.stl TRACE --robustness`.
    """
    name, text = _spec_source(spec, "stl") if _is_path(spec) else ("<spec>", spec)
    names, arrays = _signal_columns(signals)
    columns = [np.ascontiguousarray(a, dtype=np.float64) for a in arrays]
    for n, c in zip(names, columns):
        if c.ndim != 1:
            raise TraceError("signal %r: expected a 1-D array, found %d dimensions" % (n, c.ndim))
    time_at = next((i for i, n in enumerate(names) if n.lower() in TIME_NAMES), None)
    if time_at is not None:
        time = np.asarray(arrays[time_at])
        if time.ndim != 1:
            raise TraceError("the time: expected a 1-D array, found %d dimensions" % time.ndim)
    else:
        lengths = {len(c) for c in columns}
        time = np.arange(lengths.pop() if len(lengths) == 1 else 0, dtype=np.float64)
    try:
        rob = _rvmon.robustness(name, text, names, columns, len(time))
    except _rvmon.Failure as f:
        _raise(f)
    return time, rob


class Monitor:
    """A monitor of one specification, fed one time point at a time (online).

    `update(timestamp, events)` takes the time point's events as `(name, args)` pairs and
    returns the verdicts it decides, as dicts (those of `rvmon check --output jsonl`):

        m = rvmon.Monitor("policy.mfotl", sig="policy.sig")
        m.update(10, [("login", (17,)), ("logout", (3,))])
        m.finish()

    For a formula, `args` is the event's tuple and the timestamp an integer (the trace's
    unit). For a stream specification or an STL formula, each event is one input's value
    (`("x", 0.5)`), and the timestamp is in seconds.
    """

    def __init__(self, spec, lang=None, sig=None, *, _native=None):
        if _native is not None:
            self._m = _native
            return
        _check_lang(lang)
        name, text = _spec_source(spec, lang)
        signature = None
        if sig is not None:
            signature = _spec_source(sig, "sig") if _is_path(sig) else ("<sig>", sig)
        try:
            self._m = _rvmon.Monitor(name, text, lang, signature)
        except _rvmon.Failure as f:
            _raise(f)

    def update(self, timestamp, events):
        """Feeds the time point `timestamp` with `events` (a list of `(name, args)`);
        returns the verdicts it decides."""
        try:
            return _lines(self._m.update(timestamp, [(str(n), a) for n, a in events]))
        except _rvmon.Failure as f:
            _raise(f)

    def finish(self):
        """Ends the trace; returns the verdicts the end decides."""
        try:
            return _lines(self._m.finish())
        except _rvmon.Failure as f:
            _raise(f)

    def explain(self):
        """The engine the front door chose for the specification, and its memory."""
        return self._m.explain()

    def save(self):
        """The monitor's state (with its specification), as bytes: `Monitor.load` resumes."""
        try:
            return self._m.save()
        except _rvmon.Failure as f:
            _raise(f)

    @staticmethod
    def load(state):
        """The monitor that `save` saved, ready for the next time point."""
        try:
            return Monitor(None, _native=_rvmon.Monitor.load(bytes(state)))
        except _rvmon.Failure as f:
            _raise(f)
