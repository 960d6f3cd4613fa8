"""Type stubs of the `rvmon` package (see its docstrings)."""

import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

Path = Union[str, "os.PathLike[str]"]
Verdict = Dict[str, Any]
Lang = str  # 'mtl', 'mfotl', 'ltl', 'lola', 'rtlola', 'rvm', 'stl', 'mltl', 'c2po', 'modelplex'

class Error(ValueError):
    message: str
    file: Optional[str]
    line: Optional[int]
    column: Optional[int]

class SpecError(Error): ...

class TraceError(Error):
    verdicts: List[Verdict]

def check(
    spec: Path,
    trace: Path,
    sig: Optional[Path] = ...,
    *,
    lang: Optional[Lang] = ...,
    format: Optional[str] = ...,
    time_field: Optional[str] = ...,
    robustness: bool = ...,
    dense: bool = ...,
    intervals: bool = ...,
    values: bool = ...,
    workers: int = ...,
    tolerance: Optional[Union[str, float]] = ...,
    timestamp_error: Optional[Union[str, float]] = ...,
) -> List[Verdict]: ...
def robustness(
    spec: Path,
    signals: Union[Mapping[str, npt.ArrayLike], Any],
) -> Tuple[np.ndarray, npt.NDArray[np.float64]]: ...

Event = Tuple[str, Union[Sequence[Union[int, float, str, bool]], int, float, str, bool]]

class Monitor:
    def __init__(self, spec: Path, lang: Optional[Lang] = ..., sig: Optional[Path] = ...) -> None: ...
    def update(self, timestamp: Union[int, float], events: Sequence[Event]) -> List[Verdict]: ...
    def finish(self) -> List[Verdict]: ...
    def explain(self) -> str: ...
    def save(self) -> bytes: ...
    @staticmethod
    def load(state: bytes) -> "Monitor": ...
