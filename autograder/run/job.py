"""One grading job: what a worker needs to grade one notebook of one learner (no torch here)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from autograder.kernel.launchers import Launch
from autograder.kernel.limits import Limits


@dataclass(kw_only=True)
class Job:
    """Everything a worker needs to grade one notebook of one learner."""

    student_id: str
    notebook: str
    submitted: dict  # the learner's notebook as JSON
    content_hash: str
    source_path: Path
    release_path: Path
    secret: bytes  # the course key (autograder.checks.coursekey): hidden inputs are drawn from it, per learner
    work_root: Path
    limits: Limits
    launch: Launch = Launch("unsafe")  # the sandbox mode its kernel starts in (autograder.kernel.launchers)
    seed_id: str = ""  # the learner id hidden inputs are drawn for (default: student_id)
