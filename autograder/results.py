"""Typed results passed from grading to reporting."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields
from enum import StrEnum
from pathlib import Path


class Status(StrEnum):
    """A notebook's status (its JSON spelling is the value)."""

    GRADED = "graded"
    REJECTED = "rejected"  # intake refused the file: its reason is in errors
    ERROR = "error"  # the grader could not finish it: a host failure, an authoring error, a grader bug


class Outcome(StrEnum):
    """One test's outcome (its JSON spelling is the value)."""

    PASSED = "passed"
    FAILED = "failed"
    NEEDS_MANUAL = "needs manual grading"  # a written answer no person has scored yet
    GRADED_BY_HAND = "graded by hand"
    NO_ANSWER = "no answer"  # a written answer left as handed out: nbgrader's automatic 0


class Problem(StrEnum):
    """Why a notebook has no grade on its merits: the prefix its error text starts with."""

    HOST = "host:"  # not the learner's doing, nor the source's: graded again by the next run
    AUTHORING = "authoring error in the source notebook"  # the instructor's code failed: fix the source
    # the grader's own failure (its environment, nbgrader, a bug, a dead worker): never the learner's;
    # the run exits non-zero and the next run grades it again, changed or not
    GRADER = "grader error"


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters keeping its end, where an exception's own type and message are."""
    if len(text) <= limit:
        return text
    head = min(120, limit // 4)
    return f"{text[:head]} [...] {text[len(text) - (limit - head - 7) :]}"


def problems(errors: list[str]) -> set[Problem]:
    """The kinds of problem a result's errors name (errors are stored as text, the kind as its prefix)."""
    return {kind for kind in Problem for e in errors if isinstance(e, str) and e.startswith(kind.value)}


NEEDS_MANUAL = Outcome.NEEDS_MANUAL
GRADED_BY_HAND = Outcome.GRADED_BY_HAND
NO_ANSWER = Outcome.NO_ANSWER


@dataclass(kw_only=True)
class TestResult:
    """One autograded test cell of one submission."""

    name: str
    score: float
    max_score: float
    status: Outcome
    message: str = ""
    hidden: bool = False  # every check of this test is hidden (a test with visible checks is not)
    nbgrader_passed: bool | None = None
    trusted_passed: bool | None = None
    visible_checks: int = 0  # checks its visible part made
    hidden_checks: int = 0  # checks its hidden part made
    failed_in: str = ""  # "visible" | "hidden": the part that failed
    manual: bool = False  # a written answer: its points are given by a person (nbgrader formgrader)
    overridden: bool = False  # an instructor set this test's score (autograder.run.overrides)
    auto_score: float | None = None  # what the automatic checks gave, when overridden
    extra_credit: float = 0.0  # a person's extra credit on a written answer (formgrader), beyond max_score

    @property
    def pending(self) -> bool:
        """A written answer no person has scored yet."""
        return self.manual and self.status == NEEDS_MANUAL

    def parts(self) -> str:
        """What each part of the test did, e.g. "3 visible checks passed, 2 hidden checks: 1 failed"."""
        said = []
        for part, made in (("visible", self.visible_checks), ("hidden", self.hidden_checks)):
            if part == self.failed_in:
                before = f" ({made - 1} passed before it)" if made > 1 else ""
                said.append(f"{part} checks: 1 failed{before}")
            elif made:
                said.append(f"{made} {part} check{'s' if made != 1 else ''} passed")
        if self.failed_in == "visible" and not self.hidden:
            said.append("hidden checks not run")
        return ", ".join(said)


@dataclass(kw_only=True)
class NotebookResult:
    """One learner's notebook: per-test results, flags and errors."""

    student_id: str
    notebook: str
    status: Status
    score: float = 0.0
    max_score: float = 0.0
    tests: list[TestResult] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    content_hash: str = ""
    seed_id: str = ""  # the learner id its hidden inputs were drawn for, where not student_id (Gradescope)
    timings: dict[str, float] = field(default_factory=dict)
    duedate: str = ""  # this learner's due date (autograder.run.late), ISO 8601
    timestamp: str = ""  # when it was handed in, where known
    penalty: float = 0.0  # points taken for lateness (score is after it)
    late_note: str = ""  # the lateness, in words, for the feedback

    @property
    def key(self) -> str:
        return f"{self.student_id}/{self.notebook}"

    @property
    def retry_next_run(self) -> bool:
        """A host's or the grader's own failure: not the learner's doing, so the next run grades it again."""
        return bool({Problem.HOST, Problem.GRADER} & problems(self.errors))

    @property
    def auto_max(self) -> float:
        """The points the automatic checks can give (written answers, scored by a person, excluded)."""
        return round(sum(t.max_score for t in self.tests if not t.manual), 6)

    def total(self) -> None:
        """Recompute score and max_score from the tests."""
        self.score = round(sum(t.score + t.extra_credit for t in self.tests), 6)
        if self.tests:
            self.max_score = round(sum(t.max_score for t in self.tests), 6)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> NotebookResult:
        """The result saved by to_dict (fields this version does not know are ignored)."""
        data = {k: v for k, v in data.items() if k in _FIELDS[cls]}
        tests = [_test_from_dict(t) for t in data.pop("tests", [])]
        return cls(tests=tests, **{**data, "status": Status(data["status"])})


def _test_from_dict(data: dict) -> TestResult:
    """A test's result saved by asdict (its outcome read back as an Outcome)."""
    known = {k: v for k, v in data.items() if k in _FIELDS[TestResult]}
    return TestResult(**{**known, "status": Outcome(known["status"])})


_FIELDS = {cls: {f.name for f in fields(cls)} for cls in (TestResult, NotebookResult)}


def clean_text(tree: object) -> object:
    """Make every string in a JSON-like tree writable as UTF-8, in place (unpaired surrogates become '?').

    A kernel's output or a learner's name can hold such text, and one unwritable string
    must not stop a run. Walks without recursion, so any depth is fine. Returns `tree`.
    """

    def fix(text):
        if isinstance(text, str):
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                return text.encode("utf-8", "replace").decode("utf-8")
        return text

    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key in list(node):
                value, new_key = node[key], fix(key)
                if new_key is not key:
                    del node[key]
                node[new_key] = fix(value)
                stack.append(node[new_key])
        elif isinstance(node, list):
            for i, value in enumerate(node):
                node[i] = fix(value)
                stack.append(node[i])
    return fix(tree)


def write_json_atomic(path: Path, data: object) -> None:
    """Write JSON so that a reader (or a killed run) never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    # backslashreplace: an unpaired surrogate is written as its JSON escape, never stops the write
    with open(tmp, "w", encoding="utf-8", errors="backslashreplace") as fh:
        json.dump(data, fh, indent=1, ensure_ascii=False)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


AUTHORING = Problem.AUTHORING.value


@dataclass
class TrustedVerdict:
    """One test cell judged in the grader's process."""

    passed: bool
    message: str = ""
    flags: list[str] = field(default_factory=list)
    checks: dict[str, int] = field(default_factory=dict)  # checks made by the visible and by the hidden part
    failed_in: str = ""  # "visible" | "hidden": the part whose check (or code) failed
