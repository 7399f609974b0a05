"""Ctrl-C during a run: one line on how to resume, and the process gone within a few seconds.

The first SIGINT prints MESSAGE and lets the run unwind (kernels stopped, the lock released)
for at most GRACE_SECONDS, then exits with 130 without the interpreter's exit-time joins
(pools, servers: they took 30-50 s); a second Ctrl-C exits at once. Nothing is lost: every finished notebook was saved when it finished (atomically), and
the next run records what was left unrecorded and kills any kernel left behind.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable

GRACE_SECONDS = 2.5
REQUESTED = threading.Event()  # set by Ctrl-C: a failure after it is the interruption, not the submission's
MESSAGE = "interrupted: finished notebooks are saved; run the same command again to resume"
_HELPERS: list[Callable[[], list[int]]] = []  # pids of processes of the run's that no signal of ours reaches


def kill_on_interrupt(pids: Callable[[], list[int]]) -> None:
    """Kill these processes on Ctrl-C (the workers' fork server: its workers die with it)."""
    _HELPERS.append(pids)


def _kill_helpers() -> None:
    for pids in _HELPERS:
        for pid in pids():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def exit_now() -> None:
    """Exit 130 at once (what is left to stop was stopped, or the next run sweeps it)."""
    _now()


def _now(*_args) -> None:
    _kill_helpers()
    sys.stderr.flush()
    os._exit(130)


def _first(_signum, _frame) -> None:
    REQUESTED.set()
    print(MESSAGE, file=sys.stderr, flush=True)
    _kill_helpers()  # the jobs running now stop with their workers (graded again by the next run)
    signal.signal(signal.SIGINT, _now)
    timer = threading.Timer(GRACE_SECONDS, _now)
    timer.daemon = True
    timer.start()
    raise KeyboardInterrupt


def _quiet_when_interrupted(unraisable) -> None:
    """Ctrl-C that lands inside a finaliser (a weakref or gc callback: SQLAlchemy has some) raises a
    KeyboardInterrupt Python cannot propagate; it would print it as an ignored exception, traceback and
    all. The interruption was announced and the grace timer ends the process: nothing more to say."""
    if REQUESTED.is_set() and isinstance(unraisable.exc_value, KeyboardInterrupt):
        return
    _UNRAISABLE[0](unraisable)


_UNRAISABLE = [sys.unraisablehook]


def install() -> None:
    """Handle Ctrl-C as above in this (main) process."""
    signal.signal(signal.SIGINT, _first)
    if sys.unraisablehook is not _quiet_when_interrupted:
        _UNRAISABLE[0] = sys.unraisablehook
        sys.unraisablehook = _quiet_when_interrupted


def ignore_in_worker() -> None:
    """A worker process leaves Ctrl-C to the main process (no traceback of its own)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
