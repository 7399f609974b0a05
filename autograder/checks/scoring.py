"""Points and flags from what grading established: decided here, once; later stages only store them.

A worker gathers facts about one notebook (the learner kernel's own run of the visible
tests, the trusted verdicts of every test cell judged in the grader, why the run stopped
early if it did) and `score` turns them into per-test points and structured flags.
The gradebook stage copies the points into nbgrader; nothing downstream re-decides them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from autograder.material import answers
from autograder.material.markup import has_hidden, strip_hidden
from autograder.results import NEEDS_MANUAL, NotebookResult, Outcome, TestResult, TrustedVerdict

WRITTEN = "a written answer: your instructor grades it; the points come after that"

_VISIBLE_CHECK = re.compile(r"\bcheck\.\w+\(")


@dataclass(frozen=True)
class Flag:
    """Something an instructor should look at: its kind, and what exactly."""

    kind: str  # "forbidden", "edited", ...
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}"


@dataclass
class Facts:
    """What grading one notebook established, before any point is given."""

    kernel: dict[str, tuple[bool, str]]  # per test: passed in the learner's kernel, its message (informational)
    trusted: dict[str, TrustedVerdict]  # per test: judged in the grader (the only source of points)
    reason: str = ""  # why the notebook stopped early, if it did
    flags: list[Flag] = field(default_factory=list)


def hidden_only(source: str) -> bool:
    """Whether every check of a test cell is hidden: it has a hidden block and no visible check."""
    return has_hidden(source) and not _VISIBLE_CHECK.search(strip_hidden(source))


def score(source, facts: Facts, result: NotebookResult) -> None:
    """Fill result's tests, points and flags: a test's points come from its trusted verdict alone."""
    flags = list(facts.flags)
    for cell in source.cells:
        if answers.is_written(cell):  # a person gives these points: none until then
            points = float(cell.metadata.nbgrader.get("points", 0))
            written = TestResult(
                name=answers.nbgrader_id(cell),
                score=0.0,
                max_score=points,
                status=NEEDS_MANUAL,
                message=WRITTEN,
                manual=True,
            )
            result.tests.append(written)
        if not answers.is_test(cell):
            continue
        test = answers.nbgrader_id(cell)
        points = float(cell.metadata.nbgrader.get("points", 0))
        verdict = facts.trusted.get(test) or TrustedVerdict(
            False, facts.reason or "the notebook did not run to its checks"
        )
        flags += [Flag("forbidden", finding) for finding in verdict.flags]
        passed = verdict.passed
        in_kernel = facts.kernel.get(test, (False, ""))[0]
        result.tests.append(
            TestResult(
                name=test,
                score=points if passed else 0.0,
                max_score=points,
                status=Outcome.PASSED if passed else Outcome.FAILED,
                message=verdict.message,
                hidden=hidden_only(cell.source),
                nbgrader_passed=in_kernel,
                trusted_passed=passed,
                visible_checks=verdict.checks.get("visible", 0),
                hidden_checks=verdict.checks.get("hidden", 0),
                failed_in=verdict.failed_in,
            )
        )
    result.flags += [str(f) for f in dict.fromkeys(flags) if str(f) not in result.flags]
    result.total()
