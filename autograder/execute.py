"""Execute a notebook cell by cell in a fresh kernel, surviving deaths, hangs and floods."""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
from jupyter_core.utils import run_sync
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError, DeadKernelError

from autograder.limits import Limits


@dataclass
class ExecutionReport:
    """What happened while running a notebook."""

    seconds: float = 0.0
    stopped_at: int | None = None  # index of the cell where execution stopped, if it did
    reason: str = ""
    phases: dict[str, float] = field(default_factory=dict)


def _error_output(ename: str, evalue: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_output("error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


def _cap_outputs(cell, limit: int) -> None:
    """Keep a cell's outputs under `limit` bytes (text and images alike)."""
    total, kept = 0, []
    for out in cell.get("outputs", []):
        size = len(json.dumps(out))
        if total + size > limit:
            kept.append(
                nbformat.v4.new_output("stream", name="stdout", text=f"[output truncated: over {limit} bytes]\n")
            )
            break
        total += size
        kept.append(out)
    cell.outputs = kept


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


def execute(
    nb, workdir: Path, env: dict[str, str], limits: Limits, kernel_manager_class=None, after=None
) -> ExecutionReport:
    """Run every code cell of `nb` in place; a death or hang stops execution there.

    `after(client, deadline)`, if given, runs once the cells are done and the kernel still
    lives (the trusted checks); `deadline` is the notebook's time limit (time.monotonic()).
    """
    report, t0 = ExecutionReport(), time.perf_counter()
    kwargs = {"kernel_manager_class": kernel_manager_class} if kernel_manager_class else {}
    client = CappedClient(
        nb,
        timeout=limits.cell_seconds,
        allow_errors=True,
        kernel_name="python3",
        resources={"metadata": {"path": str(workdir)}},
        interrupt_on_timeout=False,
        record_timing=False,
        shutdown_kernel="immediate",
        **kwargs,
    )
    client.extra_arguments = []
    client.output_limit = limits.output_bytes
    start = time.perf_counter()
    try:
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        with client.setup_kernel(env=env, cwd=str(workdir), **quiet):
            report.phases["kernel_start"] = time.perf_counter() - start
            _run_cells(client, nb, limits, report, t0)
            if after is not None:
                _after_cells(client, report, limits, t0, after)
    except DeadKernelError:
        _stop(nb, report, report.stopped_at or 0, "KernelDied", "the kernel died (exit or crash)")
    except RuntimeError as exc:  # kernel failed to start
        _stop(nb, report, 0, "KernelStartFailed", f"the kernel did not start: {exc}")
    report.seconds = time.perf_counter() - t0
    return report


def _after_cells(client, report: ExecutionReport, limits: Limits, t0: float, after) -> None:
    """Run `after` on the live kernel; a kernel stopped by a time limit is interrupted first."""
    if report.stopped_at is not None:
        try:  # a hung cell: interrupt it, so that what the learner did define can still be checked
            run_sync(client.km.interrupt_kernel)()
        except Exception:  # noqa: BLE001 - then every check reports that the kernel did not answer
            pass
    checks = time.perf_counter()
    after(client, time.monotonic() + max(limits.cell_seconds, limits.notebook_seconds - (time.perf_counter() - t0)))
    report.phases["checks"] = time.perf_counter() - checks


def not_started(nb, reason: str) -> ExecutionReport:
    """The report of a notebook whose kernel never started (`reason`): every code cell marked."""
    report = ExecutionReport()
    _stop(nb, report, 0, "KernelStartFailed", reason)
    return report


def _stop(nb, report: ExecutionReport, index: int, ename: str, reason: str) -> None:
    if report.stopped_at is None or report.stopped_at > index:
        report.stopped_at = index
    report.reason = report.reason or reason
    _mark_rest(nb, report.stopped_at, ename, f"{reason}; this and later cells were not run")


def _run_cells(client, nb, limits: Limits, report: ExecutionReport, t0: float) -> None:
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        if time.perf_counter() - t0 > limits.notebook_seconds:
            return _stop(
                nb, report, index, "NotebookTimeout", f"the notebook ran over its {limits.notebook_seconds} s limit"
            )
        cell_start = time.perf_counter()
        try:
            client.execute_cell(cell, index)
        except CellTimeoutError:
            return _stop(nb, report, index, "CellTimeout", f"a cell ran over its {limits.cell_seconds} s limit")
        except DeadKernelError:
            return _stop(nb, report, index, "KernelDied", "the kernel died (exit, crash or memory limit)")
        finally:
            _cap_outputs(cell, limits.output_bytes)
            key = "tests" if cell.get("metadata", {}).get("nbgrader", {}).get("grade") else "cells"
            report.phases[key] = report.phases.get(key, 0.0) + time.perf_counter() - cell_start
    return None
