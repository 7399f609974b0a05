"""The time limits of the grader's calls into one learner's kernel, and the error a dead link raises."""

from __future__ import annotations

import time


class RemoteError(RuntimeError):
    """The learner's kernel could not answer (it died, hung, or replied with garbage)."""


class CallClock:
    """The time limits of one kernel's calls: each call's own, within the notebook's deadline."""

    def __init__(self, call_seconds: float, deadline: float) -> None:
        self.call_seconds, self.deadline, self.dead = call_seconds, deadline, ""

    def time_left(self) -> float:
        """Seconds one request may take (the call limit within the notebook's); raises once the link is dead."""
        if self.dead:
            raise RemoteError(self.dead)
        left = self.deadline - time.monotonic()
        if left <= 0:
            self.dead = "the notebook's time limit was reached before this check"
            raise RemoteError(self.dead)
        return max(1.0, min(self.call_seconds, left))

    def fail(self, reason: str) -> RemoteError:
        """The link is dead from now on, for this reason."""
        self.dead = reason
        return RemoteError(reason)
