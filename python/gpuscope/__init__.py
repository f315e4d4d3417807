# SPDX-License-Identifier: MIT
"""gpuscope from Python: where the time of a multi-stream CUDA program went.

The traces are loaded and analysed in this process by gpuscope's C library
(no subprocess, no JSON in between); the GIL is released while it works, so
analyses on several threads run at once.

    import gpuscope
    r = gpuscope.analyze(["rank0.json.gz", "rank1.json.gz"], step="all")
    r.breakdown()      # kernel / copy / sync / idle time per GPU
    r.findings()       # what to look at first, with the numbers it rests on
    gpuscope.load("run.gscope").ops()   # every op

Each table is a pandas DataFrame when pandas is installed, else a list of
dicts. Its columns are the fields of `gpuscope analyze --format json` (docs/
report.md), with `rank` and `device` first. Times are integer nanoseconds on
the trace's own clock.

A trace that cannot be read raises gpuscope.Error with the message the
command line prints.
"""
from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence, Union

from . import _gpuscope
from ._gpuscope import Error

__all__ = ["Error", "Job", "Report", "Trace", "analyze", "load"]
__version__ = "0.1.0"

PathLike = Union[str, "os.PathLike[str]"]
Rows = List[Dict[str, Any]]


def _paths(traces: Union[PathLike, Sequence[PathLike]]) -> List[str]:
    if isinstance(traces, (str, os.PathLike)):
        traces = [traces]
    paths = [os.fspath(p) for p in traces]
    if not paths:
        raise ValueError("no trace given")
    for p in paths:
        if not isinstance(p, str):
            raise TypeError("a trace path must be a str or os.PathLike of str, not bytes")
    return paths


def _frame(rows: Rows) -> Any:
    """A DataFrame of the rows when pandas is installed, else the rows."""
    try:
        import pandas
    except ImportError:
        return rows
    return pandas.DataFrame.from_records(rows)


def _columns(cols: Dict[str, list]) -> Any:
    try:
        import pandas
    except ImportError:
        names = list(cols)
        return [dict(zip(names, values)) for values in zip(*cols.values())]
    return pandas.DataFrame(cols)


class Job:
    """The ranks of a report as one job (the job tables are empty for one rank)."""

    def __init__(self, report: "Report") -> None:
        self._report = report

    def ranks(self) -> Any:
        """One row per rank: rank, host, pid, the input it came from, its GPUs."""
        return self._report._table("ranks")

    def communicators(self) -> Any:
        """The communicators: the ranks that run collectives together, and their skew."""
        return self._report._table("communicators")

    def collectives(self) -> Any:
        """Every collective compared across its ranks, largest skew first: who came last."""
        return self._report._table("collectives")

    def steps(self) -> Any:
        """Each step number across the ranks: min / median / max step time, the span."""
        return self._report._table("job_steps")


class Report:
    """What `gpuscope analyze` finds in traces, as tables.

    Made by gpuscope.analyze(); every table covers every rank and GPU of
    the report. The report's memory goes when the object does.
    """

    def __init__(self, analysis: Any, inputs: List[str]) -> None:
        self._analysis = analysis
        self.inputs = inputs

    def _table(self, name: str) -> Any:
        return _frame(_gpuscope.table(self._analysis, name))

    def rows(self, name: str) -> Rows:
        """A table as a list of dicts, whether or not pandas is installed."""
        return _gpuscope.table(self._analysis, name)

    @property
    def job(self) -> Job:
        return Job(self)

    def devices(self) -> Any:
        """Per GPU: name, window, ops, actual / dependency-bound / ideal time, efficiency."""
        return self._table("devices")

    def breakdown(self) -> Any:
        """Per GPU: the window split into kernel, copy, sync and idle time, and overlap."""
        return self._table("breakdown")

    def findings(self) -> Any:
        """Per GPU, ranked by the time at stake: kind, ns, evidence, numbers, text, advice."""
        return self._table("findings")

    def gap(self) -> Any:
        """Per GPU: actual - ideal time by cause (the causes add up to the gap)."""
        return self._table("gap")

    def kernels(self) -> Any:
        """Per GPU and kernel name: count and duration statistics."""
        return self._table("kernels")

    def streams(self) -> Any:
        """Per GPU and stream: ops, kernel and copy time, busy time."""
        return self._table("streams")

    def steps(self) -> Any:
        """Per GPU and training step: its windows and, for analysed steps, its figures."""
        return self._table("steps")

    def operators(self) -> Any:
        """Per GPU and operator (host range): the GPU time of the ops it launched."""
        return self._table("operators")

    def waits(self) -> Any:
        """Cross-stream waits: consumer, producer, the event and the time waited."""
        return self._table("waits")

    def critical_path(self) -> Any:
        """Per GPU: the ops of the ideal schedule's critical path, longest first kept."""
        return self._table("critical_path")


def analyze(
    traces: Union[PathLike, Sequence[PathLike]],
    *,
    step: Union[int, str, None] = None,
    step_marker: Optional[str] = None,
    device: Optional[int] = None,
    rank: Optional[int] = None,
    rows: Optional[int] = None,
    op_level: Optional[str] = None,
) -> Report:
    """Load traces as the ranks of one job and analyse them, as `gpuscope analyze` does.

    step: a step number, "A:B", "all" or "none" (default: every whole step
    but the first); step_marker: a regular expression naming the step
    ranges; device, rank: only that GPU, that rank; rows: entries kept in
    each per-op list (critical path, waits); op_level: "operator" or
    "module".
    """
    paths = _paths(traces)
    if isinstance(step, int) and not isinstance(step, bool):
        step = str(step)
    a = _gpuscope.analyze(paths, step, step_marker, device, rank, rows, op_level)
    return Report(a, paths)


class Trace:
    """Traces loaded as the ranks of one job, without analysing them."""

    def __init__(self, job: Any, inputs: List[str]) -> None:
        self._job = job
        self.inputs = inputs

    def ops(self) -> Any:
        """Every op (kernel, copy, memset) of every rank, one row each."""
        return _columns(_gpuscope.ops(self._job))


def load(traces: Union[PathLike, Sequence[PathLike]]) -> Trace:
    """Load traces (.gscope, Kineto JSON, Nsight SQLite) as the ranks of one job."""
    paths = _paths(traces)
    return Trace(_gpuscope.load(paths), paths)
