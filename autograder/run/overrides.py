"""Regrades: an instructor's score for one learner's autograded test, kept until that submission changes.

An override is given with `python -m autograder mark` (any test, with a comment) or in
formgrader's score box for a test cell (nbgrader stores it as the grade's manual score:
`grade` and `export` find it, as a manual score that differs from the checks' score, and
adopt it). Each is kept in RESULTS/overrides.json with the hash of the submission it was
given for, and mirrored as the test's manual score in the gradebook, so that formgrader
and `nbgrader export` agree with grades.csv. When the learner's submission changes, the
next `grade` run drops it (moved to the file's history) and says so.

When a test's points change (its source cell's nbgrader points), an override keeps its
fraction of them: 1.5 of 2 becomes 2.25 of 3, said on the console and kept in the file
(`out_of` records the points it was given against), never silently 1.5 of 3.
"""

from __future__ import annotations

import datetime
import json
import sys
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

from autograder.gradebook.course_folder import CourseFolder
from autograder.results import NotebookResult, Status, write_json_atomic
from autograder.results_folder import ResultsFolder

if TYPE_CHECKING:
    from nbgrader.api import Gradebook

SAID = "Score set by your instructor"


@dataclass(kw_only=True)
class Override:
    """One person's score for one test of one learner's notebook."""

    student_id: str
    notebook: str
    test: str
    points: float
    comment: str
    content_hash: str  # the submission it was given for
    auto_score: float  # what the checks gave
    source: str  # "mark" | "formgrader"
    at: str = ""
    out_of: float = 0.0  # the test's points when it was given (0: an older file's; taken as the points now)

    @property
    def key(self) -> str:
        return f"{self.student_id}/{self.notebook}/{self.test}"


class Store:
    """RESULTS/overrides.json: the overrides in force and the history of those dropped."""

    def __init__(self, folder: ResultsFolder) -> None:
        self.path = folder.overrides
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            self.current = {o.key: o for o in (Override(**x) for x in data.get("overrides", []))}
            self.history: list[dict] = list(data.get("dropped", []))
        except FileNotFoundError:
            self.current, self.history = {}, []
        self.changed = False

    def put(self, override: Override) -> None:
        """Add or replace an override."""
        override.at = override.at or _now()
        self.current[override.key], self.changed = override, True

    def drop(self, key: str, why: str) -> Override:
        """Move an override to the history, with the reason."""
        gone = self.current.pop(key)
        self.history.append({**asdict(gone), "dropped": _now(), "why": why})
        self.changed = True
        return gone

    def save(self) -> None:
        """Write the file if anything changed."""
        if self.changed:
            overrides = [asdict(o) for o in sorted(self.current.values(), key=lambda o: o.key)]
            write_json_atomic(self.path, {"overrides": overrides, "dropped": self.history})
            self.changed = False


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def _grade(gb: Gradebook, student: str, notebook: str, test: str):
    from nbgrader.api import MissingEntry

    try:
        return gb.find_grade(test, notebook, notebook, student)
    except MissingEntry:
        return None


def give(
    folder: ResultsFolder, course: CourseFolder, result: NotebookResult, test: str, points: float, comment: str
) -> float:
    """Override one autograded test of a graded result (`mark`); returns the test's maximum."""
    found = next((t for t in result.tests if t.name == test and not t.manual), None)
    if found is None or result.status != Status.GRADED:
        raise KeyError(f"no autograded test {test!r} in {result.student_id!r}'s graded {result.notebook!r}")
    if not 0 <= points <= found.max_score:
        raise ValueError(f"{points:g} points is outside 0..{found.max_score:g} for {test!r}")
    store = Store(folder)
    store.put(
        Override(
            student_id=result.student_id,
            notebook=result.notebook,
            test=test,
            points=points,
            comment=comment,
            content_hash=result.content_hash,
            auto_score=found.score,
            source="mark",
            out_of=found.max_score,
        )
    )
    with course.gradebook() as gb:
        grade = _grade(gb, result.student_id, result.notebook, test)
        if grade is not None:
            grade.manual_score, grade.needs_manual_grade = points, False
            gb.db.commit()
    store.save()
    return found.max_score


def adopt(folder: ResultsFolder, course: CourseFolder, results: list[NotebookResult]) -> set[str]:
    """Take up scores entered in formgrader for test cells; returns the keys of the results they changed.

    `results` are the saved (checks-only) results nbgrader has recorded: a test whose
    manual score in the gradebook differs from the checks' score, and from any override
    already held, was given a score in formgrader. One set back to the checks' score there
    is no longer overridden.
    """
    if course is None or not course.db_path.exists():
        return set()
    store, touched = Store(folder), set()
    with course.gradebook() as gb:
        for result in (r for r in results if r.status == Status.GRADED):
            for test in (t for t in result.tests if not t.manual):
                grade = _grade(gb, result.student_id, result.notebook, test.name)
                if grade is None or grade.manual_score is None:
                    continue
                key, given = f"{result.key}/{test.name}", float(grade.manual_score)
                held = store.current.get(key)
                if held is not None and abs(given - held.points) > 1e-9:
                    if abs(given - test.score) <= 1e-9:
                        store.drop(key, "set back to the automatic score in formgrader")
                    else:
                        held.points, held.source, store.changed = given, "formgrader", True
                    touched.add(result.key)
                elif held is None and abs(given - test.score) > 1e-9:
                    store.put(
                        Override(
                            student_id=result.student_id,
                            notebook=result.notebook,
                            test=test.name,
                            points=given,
                            comment="",
                            content_hash=result.content_hash,
                            auto_score=test.score,
                            source="formgrader",
                            out_of=test.max_score,
                        )
                    )
                    touched.add(result.key)
    store.save()
    return touched


def apply(folder: ResultsFolder, course: CourseFolder | None, results: list[NotebookResult]) -> list[Override]:
    """Give each result's tests the overrides in force; returns those dropped because the submission changed.

    A kept override is written (again) as the test's manual score in the gradebook; a
    dropped one leaves there the checks' score, which reconcile stored.
    """
    store = Store(folder)
    dropped: list[Override] = []
    if not store.current:
        return dropped
    by_key = {r.key: r for r in results if r.status == Status.GRADED}
    gb = course.gradebook() if course is not None and course.db_path.exists() else None
    for key, held in sorted(store.current.items()):
        result = by_key.get(f"{held.student_id}/{held.notebook}")
        if result is None:
            continue
        if result.content_hash != held.content_hash:
            dropped.append(store.drop(key, "the learner's submission changed"))
            continue
        test = next((t for t in result.tests if t.name == held.test and not t.manual), None)
        if test is None:  # the course no longer has this test
            dropped.append(store.drop(key, "the notebook no longer has this test"))
            continue
        _follow_points(store, held, test.max_score)
        _use(test, held)
        _mirror(gb, held)
        result.total()
    if gb is not None:
        gb.db.commit()
        gb.close()
    store.save()
    return dropped


def _follow_points(store: Store, held: Override, points: float) -> None:
    """An override given against other points than the test has now: the same fraction of the new points, said."""
    if not held.out_of:
        held.out_of, store.changed = points, True
    if abs(held.out_of - points) <= 1e-9:
        return
    before = f"{held.points:g}/{held.out_of:g}"
    held.points, held.out_of, store.changed = round(held.points * points / held.out_of, 6), points, True
    print(
        f"override rescaled: {held.student_id} · {held.notebook} · {held.test}: {before} -> {held.points:g}/{points:g} "
        "(the test's points changed; the same fraction kept: give another with mark if it should differ)",
        file=sys.stderr,
    )


def _use(test, held: Override) -> None:
    """The override's points on the test, and the learner told who set them and why."""
    test.auto_score, test.score, test.overridden = test.score, held.points, True
    note = f"{SAID} (the automatic checks gave {test.auto_score:g}/{test.max_score:g})"
    note += f": {held.comment}" if held.comment else "."
    test.message = f"{note}\n{test.message}" if test.message else note


def _mirror(gb: Gradebook | None, held: Override) -> None:
    if gb is None:
        return
    grade = _grade(gb, held.student_id, held.notebook, held.test)
    if grade is not None and grade.manual_score != held.points:
        grade.manual_score, grade.needs_manual_grade = held.points, False


def tell(dropped: list[Override]) -> None:
    """One line on stderr per dropped override (always: an instructor must know)."""
    for o in dropped:
        print(
            f"override dropped: {o.student_id} · {o.notebook} · {o.test} ({o.points:g} points, given by {o.source}): "
            f"the submission changed and was graded again (overrides.json keeps it in 'dropped')",
            file=sys.stderr,
        )
