"""Execute a notebook cell by cell in a fresh kernel, surviving deaths, hangs and floods."""

from __future__ import annotations

import contextlib
import json
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, TypeVar

import nbformat
from jupyter_core.utils import run_sync
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionComplete, CellTimeoutError, DeadKernelError
from nbformat.validator import isvalid

from autograder.kernel.limits import Limits
from autograder.kernel.reference import kernel_args

T = TypeVar("T")


class StopKind(Enum):
    """Why a notebook's run stopped before its end (NONE: it did not)."""

    NONE = "none"
    SANDBOX_FAILED = "sandbox failed"  # the host could not set up the kernel's sandbox
    START_FAILED = "start failed"  # the kernel did not start
    DIED = "died"  # the kernel exited or crashed
    CELL_TIMEOUT = "cell time limit"
    NOTEBOOK_TIMEOUT = "notebook time limit"
    MEMORY = "memory limit"  # killed: it went over its memory limit
    DISK = "disk limit"  # killed: its files went over their disk limit

    @property
    def host_failure(self) -> bool:
        """Not the learner's doing: the job is run once more, then left for the next run."""
        return self in (StopKind.SANDBOX_FAILED, StopKind.START_FAILED)


@dataclass(kw_only=True)
class ExecutionReport:
    """What happened while running a notebook."""

    seconds: float = 0.0
    stopped_at: int | None = None  # index of the cell where execution stopped, if it did
    kind: StopKind = StopKind.NONE  # why it stopped
    reason: str = ""  # the same, in words (for the learner)
    phases: dict[str, float] = field(default_factory=dict)
    malformed: int = 0  # messages from the kernel the client could not read, ignored (kernel/guarded.py)


def _error_output(ename: str, evalue: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_output("error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


MAX_OUTPUTS = 1000
"""Outputs kept per cell: each is measured and validated by the grader, so their number is bounded too."""


def _cap_outputs(cell, limit: int) -> None:
    """Keep a cell's outputs under `limit` bytes (text and images alike) and MAX_OUTPUTS in number."""
    total, kept = 0, list[nbformat.NotebookNode]()
    for out in cell.get("outputs", []):
        size = len(json.dumps(out))
        if total + size > limit or len(kept) == MAX_OUTPUTS:
            over = f"{limit} bytes" if total + size > limit else f"{MAX_OUTPUTS} outputs"
            kept.append(nbformat.v4.new_output("stream", name="stdout", text=f"[output truncated: over {over}]\n"))
            break
        total += size
        kept.append(out)
    cell.outputs = kept


def _drop_malformed(cell) -> int:
    """Drop the outputs nbformat would refuse (a kernel's forged message); how many were dropped."""
    outputs = cell.get("outputs", [])
    kept = [out for out in outputs if isvalid(out, ref="output", version=4, version_minor=5)]
    cell.outputs = kept
    if not isinstance(cell.get("execution_count"), (int, type(None))):
        cell.execution_count = None
    return len(outputs) - len(kept)


def _mark_rest(nb, start: int, ename: str, reason: str) -> None:
    for cell in nb.cells[start:]:
        if cell.cell_type == "code":
            cell.outputs = [_error_output(ename, reason)]


_DISPLAY_UPDATE_BYTES = 64 * 2**10


def _message_bytes(msg: dict) -> int:
    """About how many bytes an output message would add to the notebook."""
    content = msg.get("content", {})
    size = len(str(content.get("text", ""))) + len(str(content.get("traceback", "")))
    return size + sum(len(str(v)) for v in content.get("data", {}).values())


class CappedClient(NotebookClient):
    """A notebook client whose memory stays bounded whatever the kernel prints or displays.

    The output limit is enforced per cell as messages arrive (not when the cell ends), and
    display updates by display_id, which rewrite earlier outputs, are dropped when large.
    """

    output_limit = 2 * 2**20
    malformed = 0  # messages whose content nbclient could not handle, and outputs nbformat refused

    def output(self, outs, msg, display_id, cell_index):
        used = self._output_bytes.get(id(outs), 0) + _message_bytes(msg)
        self._output_bytes[id(outs)] = used
        if used > self.output_limit:
            if not self._truncated.get(id(outs)):
                self._truncated[id(outs)] = True
                note = f"[output truncated: over {self.output_limit} bytes]\n"
                outs.append(nbformat.v4.new_output("stream", name="stdout", text=note))
            return None
        return super().output(outs, msg, display_id, cell_index)

    def process_message(self, msg, cell, cell_index):
        """nbclient's handling of one message, but one whose content is not of the protocol's types is ignored."""
        try:
            return super().process_message(msg, cell, cell_index)
        except CellExecutionComplete:
            raise
        except Exception:  # noqa: BLE001 - a list as display_id or comm_id, an output nbformat refuses
            self.malformed += 1
            return None

    def _update_display_id(self, display_id, msg) -> None:
        if _message_bytes(msg) > _DISPLAY_UPDATE_BYTES:
            return  # a display update may not grow an output past what its cell was allowed
        try:
            super()._update_display_id(display_id, msg)
        except (IndexError, KeyError):  # an update aimed at an output that was trimmed
            return

    @property
    def _output_bytes(self) -> dict:
        return self.__dict__.setdefault("_wb_output_bytes", {})

    @property
    def _truncated(self) -> dict:
        return self.__dict__.setdefault("_wb_truncated", {})


class KernelSession:
    """One notebook's fresh kernel, as a context manager (nbclient's `setup_kernel` is the model).

    Entering starts the kernel; `run_cells()` runs the notebook's code cells in place (a death
    or hang stops execution there); `run_after(checks)` runs the trusted checks against the
    kernel and returns what they return; leaving shuts the kernel down. A kernel that dies or
    does not start is no exception to the caller: it is recorded in `report` (final on exit).

        with KernelSession(nb, workdir, env, limits, manager) as session:
            session.run_cells()
            checked = session.run_after(checks)
        report = session.report
    """

    def __init__(self, nb, workdir: Path, env: dict[str, str], limits: Limits, kernel_manager_class=None) -> None:
        self.nb, self.limits, self.report = nb, limits, ExecutionReport()
        self.started = False  # the kernel started (it may have died since)
        self._env, self._cwd, self._kernel = env, str(workdir), contextlib.ExitStack()
        self._t0 = time.perf_counter()
        kwargs = {"kernel_manager_class": kernel_manager_class} if kernel_manager_class else {}
        self.client = CappedClient(
            nb,
            timeout=limits.cell_seconds,
            allow_errors=True,
            kernel_name="python3",
            resources={"metadata": {"path": self._cwd}},
            interrupt_on_timeout=False,
            record_timing=False,
            shutdown_kernel="immediate",
            **kwargs,
        )
        self.client.extra_arguments = list(kernel_args())  # run before any cell (autograder/shipped/inert.py)
        self.client.output_limit = limits.output_bytes

    def __enter__(self) -> KernelSession:
        self._t0 = start = time.perf_counter()
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        try:
            self._kernel.enter_context(self.client.setup_kernel(env=self._env, cwd=self._cwd, **quiet))
        except RuntimeError as exc:  # a kernel that did not start (or died starting)
            self._lost(exc)
        else:
            self.started = True
            self.report.phases["kernel_start"] = time.perf_counter() - start
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        session = getattr(self.client.kc, "session", None)  # the run's and the checks' messages alike
        self.report.malformed = int(getattr(session, "malformed", 0)) + self.client.malformed
        try:
            if self._kernel.__exit__(exc_type, exc, tb):
                exc = None
        except RuntimeError as raised:  # the kernel died as it was shut down
            exc = raised
        if isinstance(exc, RuntimeError):  # DeadKernelError included: recorded, not raised
            self._lost(exc)
        self.report.seconds = time.perf_counter() - self._t0
        return exc is None or isinstance(exc, RuntimeError)

    def _lost(self, exc: RuntimeError) -> None:
        if isinstance(exc, DeadKernelError):
            _stop(self.nb, self.report, self.report.stopped_at or 0, StopKind.DIED, "the kernel died (exit or crash)")
        else:
            _stop(self.nb, self.report, 0, StopKind.START_FAILED, f"the kernel did not start: {exc}")

    def run_cells(self) -> ExecutionReport:
        """Run every code cell in place (none when the kernel did not start); the report so far."""
        if self.started:
            _run_cells(self.client, self.nb, self.limits, self.report, self._t0)
        return self.report

    def run_after(self, checks: Callable[[NotebookClient, float], T]) -> T | None:
        """`checks(client, deadline)` on the live kernel, after the cells; None when it did not start.

        A kernel stopped by a time limit is interrupted first, so that what the learner did
        define can still be checked; `deadline` is the notebook's time limit (time.monotonic()).
        """
        if not self.started:
            return None
        if self.report.stopped_at is not None:
            manager: Any = self.client.km  # set while the session is entered
            try:  # a hung cell: interrupt it
                run_sync(manager.interrupt_kernel)()
            except Exception:  # noqa: BLE001 - then every check reports that the kernel did not answer
                pass
        limits, begun = self.limits, time.perf_counter()
        left = limits.notebook_seconds - (begun - self._t0)
        try:
            return checks(self.client, time.monotonic() + max(limits.cell_seconds, left))
        finally:
            self.report.phases["checks"] = time.perf_counter() - begun


def execute(nb, workdir: Path, env: dict[str, str], limits: Limits, kernel_manager_class=None) -> ExecutionReport:
    """Run every code cell of `nb` in place in a fresh kernel (no checks after); what happened."""
    with KernelSession(nb, workdir, env, limits, kernel_manager_class) as session:
        session.run_cells()
    return session.report


def not_started(nb, kind: StopKind, reason: str) -> ExecutionReport:
    """The report of a notebook whose kernel never started (`reason`): every code cell marked."""
    report = ExecutionReport()
    _stop(nb, report, 0, kind, reason)
    return report


_ENAMES = {  # the error each kind of stop writes into the cells it left unrun
    StopKind.SANDBOX_FAILED: "KernelStartFailed",
    StopKind.START_FAILED: "KernelStartFailed",
    StopKind.DIED: "KernelDied",
    StopKind.CELL_TIMEOUT: "CellTimeout",
    StopKind.NOTEBOOK_TIMEOUT: "NotebookTimeout",
}


def _stop(nb, report: ExecutionReport, index: int, kind: StopKind, reason: str) -> None:
    if report.stopped_at is None or report.stopped_at > index:
        report.stopped_at = index
    if not report.reason:  # the first stop is the one reported
        report.kind, report.reason = kind, reason
    _mark_rest(nb, report.stopped_at, _ENAMES[kind], f"{reason}; this and later cells were not run")


def _run_cells(client, nb, limits: Limits, report: ExecutionReport, t0: float) -> None:
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if time.perf_counter() - t0 > limits.notebook_seconds:
            reason = f"the notebook ran over its {limits.notebook_seconds} s limit"
            return _stop(nb, report, index, StopKind.NOTEBOOK_TIMEOUT, reason)
        cell_start = time.perf_counter()
        try:
            client.execute_cell(cell, index)
        except CellTimeoutError:
            reason = f"a cell ran over its {limits.cell_seconds} s limit"
            return _stop(nb, report, index, StopKind.CELL_TIMEOUT, reason)
        except DeadKernelError:
            return _stop(nb, report, index, StopKind.DIED, "the kernel died (exit, crash or memory limit)")
        finally:
            _cap_outputs(cell, limits.output_bytes)  # first: what is validated next is bounded
            client.malformed += _drop_malformed(cell)
            key = "tests" if cell.get("metadata", {}).get("nbgrader", {}).get("grade") else "cells"
            report.phases[key] = report.phases.get(key, 0.0) + time.perf_counter() - cell_start
    return None
