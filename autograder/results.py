"""Typed results passed from grading to reporting."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path


@dataclass
class TestResult:
    """One autograded test cell of one submission."""

    name: str
    score: float
    max_score: float
    status: str  # "passed" | "failed"
    message: str = ""
    hidden: bool = False
    nbgrader_passed: bool | None = None
    trusted_passed: bool | None = None


@dataclass
class NotebookResult:
    """One learner's notebook: per-test results, flags and errors."""

    student_id: str
    notebook: str
    status: str  # "graded" | "rejected" | "error"
    score: float = 0.0
    max_score: float = 0.0
    tests: list[TestResult] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    content_hash: str = ""
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"{self.student_id}/{self.notebook}"

    def total(self) -> None:
        """Recompute score and max_score from the tests."""
        self.score = round(sum(t.score for t in self.tests), 6)
        if self.tests:
            self.max_score = round(sum(t.max_score for t in self.tests), 6)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> NotebookResult:
        tests = [TestResult(**t) for t in data.pop("tests", [])]
        return cls(tests=tests, **data)


def write_json_atomic(path: Path, data: object) -> None:
    """Write JSON so that a reader (or a killed run) never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w") as fh:
        json.dump(data, fh, indent=1, ensure_ascii=False)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
