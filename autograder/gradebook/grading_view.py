"""formgrader's own course folder: the gradebook as a grader sees it, rubrics beside the written answers.

`python -m autograder formgrader` serves RESULTS/.grading, never RESULTS/.course itself:

- every autograded notebook is a copy with each written answer followed by its rubric and
  model answer (autograder.material.rubrics), so a grader reads them beside the answer;
  the learner's feedback is made from RESULTS/.course, which never holds them, and this
  course's config refuses formgrader's feedback buttons (they would show the rubric);
- named: its config points at the course's own gradebook, so scores land there at once;
- anonymous (`build(..., shown=pseudonyms)`): its gradebook is a copy whose students are
  pseudonyms with no name or email (freed pages vacuumed away), and the notebooks and
  submission folders are filed under the pseudonyms. Nothing in the served folder links a
  pseudonym to a learner: RESULTS/grading.json, outside it, records what the copy held, and
  `collect` carries each score, extra credit and comment a grader changed since then to the
  same row (nbgrader's row ids are kept in the copy) of the course's gradebook, unless that
  learner's submission changed meanwhile (then it is named and left out). formgrader's stop,
  `export`, `mark` and every `grade` run collect; names come back only in the exports,
  which are made from the course's gradebook.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import shutil
import sqlite3
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from autograder import paths
from autograder.gradebook.course import Course
from autograder.gradebook.course_folder import AUTOGRADED, RELEASE, SOURCE, SUBMITTED, CourseFolder
from autograder.material import answers, rubrics
from autograder.results import write_json_atomic
from autograder.results_folder import ResultsFolder

REFUSE_FEEDBACK = """
import nbgrader.apps.api as _view_api


def _no_feedback_here(self, *args, **kwargs):
    return {"success": False, "error": %(why)r, "log": %(why)r}


_view_api.NbGraderAPI.generate_feedback = _no_feedback_here  # this view's notebooks hold the rubrics
_view_api.NbGraderAPI.release_feedback = _no_feedback_here
"""
FEEDBACK_REFUSAL = (
    "Feedback is not made here: this grading view shows the rubrics. Run python -m autograder export RESULTS "
    "(and release-feedback) instead."
)
GRADE_FIELDS = ("manual_score", "extra_credit", "needs_manual_grade")


@dataclass
class Baseline:
    """RESULTS/grading.json: what an anonymous view's gradebook held when it was built."""

    grades: dict[str, list] = field(default_factory=dict)  # grade id -> [*GRADE_FIELDS, submitted notebook id]
    comments: dict[str, list] = field(default_factory=dict)  # comment id -> [manual_comment, submitted notebook id]
    submissions: dict[str, list[str]] = field(default_factory=dict)  # submitted notebook id -> [student, nb, hash]
    built: str = ""

    @classmethod
    def read(cls, path: Path) -> Baseline | None:
        try:
            return cls(**json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            return None

    def write(self, path: Path) -> None:
        write_json_atomic(path, self.__dict__)


def students(course: CourseFolder) -> list[str]:
    """Every student id in the course's gradebook (enrolled or with a submission)."""
    if not course.db_path.exists():
        return []
    with _connect(course.db_path) as db:
        return [row[0] for row in db.execute("SELECT id FROM student ORDER BY id")]


def written_answers(course: CourseFolder, student: str, notebook: str) -> dict[str, str]:
    """A learner's written answers as nbgrader graded them (the autograded notebook), by grade_id."""
    path = course.format_path(AUTOGRADED, notebook, student, notebook)
    try:
        nb = nbformat.read(path, as_version=4)
    except (OSError, ValueError):
        return {}
    return {answers.nbgrader_id(c): c.source for c in nb.cells if answers.is_written(c)}


@contextlib.contextmanager
def _connect(path: Path) -> Iterator[sqlite3.Connection]:
    """A connection to a gradebook file, committed (unless it raised) and closed after."""
    db = sqlite3.connect(path, timeout=30)
    try:
        with db:
            yield db
    finally:
        db.close()


def build(folder: ResultsFolder, shown: Mapping[str, str] | None = None) -> Course:
    """Rebuild RESULTS/.grading from RESULTS/.course; `shown`: each student id's pseudonym (anonymous), or None.

    An earlier anonymous view's changes are collected first, so none is lost.
    """
    collect(folder)
    course, view = CourseFolder.of(folder), Course.grading_view_of(folder)
    shutil.rmtree(view.root, ignore_errors=True)
    db_url = view.db_url if shown is not None else course.db_url
    view.extra_config = f"c.CourseDirectory.db_url = {db_url!r}\n" + REFUSE_FEEDBACK % {"why": FEEDBACK_REFUSAL}
    view.write_config()
    for part in (SOURCE, RELEASE):
        if course.folder(part).is_dir():
            shutil.copytree(course.folder(part), view.folder(part))
    names = dict(shown) if shown is not None else {s: s for s in students(course)}
    _copy_submissions(course, view, names)
    if shown is not None:
        _anonymous_gradebook(course.db_path, view.db_path, names)
        _baseline(folder, view.db_path, names).write(folder.grading_state)
    else:
        folder.grading_state.unlink(missing_ok=True)
    return view


def _copy_submissions(course: CourseFolder, view: CourseFolder, names: Mapping[str, str]) -> None:
    """Each autograded notebook, rubrics added, and its timestamp.txt, filed under the shown name."""
    for notebook in sorted(course.folder(AUTOGRADED).glob("*/*/*.ipynb")):
        student, name = notebook.parent.parent.name, notebook.parent.name
        if student not in names or notebook.stem != name:
            continue
        target = view.format_path(AUTOGRADED, name, names[student], name)
        target.parent.mkdir(parents=True, exist_ok=True)
        _with_rubrics(notebook, target, name)
        view.format_path(SUBMITTED, name, names[student]).mkdir(parents=True, exist_ok=True)
        stamp = course.timestamp_path(student, name)
        if stamp.is_file():  # formgrader compares it with the gradebook's: the same, as in the course
            shutil.copyfile(stamp, view.timestamp_path(names[student], name))


def follow(folder: ResultsFolder, student: str, notebook: str) -> bool:
    """Bring formgrader's view of one submission up to date with the course (its page was just rewritten).

    A named view shares the course's gradebook, so only its copy of the notebook (the "Grade:" line,
    the tests' points) and its timestamp can fall behind: they are replaced in place, so that a
    formgrader left running shows the new grade at its next page load. An anonymous view holds a copy
    of the gradebook under pseudonyms: it is not rewritten (False), and the caller says so.
    """
    course, view = CourseFolder.of(folder), CourseFolder.grading_view_of(folder)
    if not view.config_path.is_file():
        return True  # no view yet: formgrader builds it from the course when it starts
    if folder.grading_state.exists():
        return False
    source = course.format_path(AUTOGRADED, notebook, student, notebook)
    target = view.format_path(AUTOGRADED, notebook, student, notebook)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp")
    _with_rubrics(source, tmp, notebook)
    os.replace(tmp, target)
    view.format_path(SUBMITTED, notebook, student).mkdir(parents=True, exist_ok=True)
    stamp = course.timestamp_path(student, notebook)
    if stamp.is_file():
        shutil.copyfile(stamp, view.timestamp_path(student, notebook))
    return True


def _with_rubrics(source: Path, target: Path, name: str) -> None:
    """A copy of an autograded notebook, its written answers' rubrics added (plain JSON: hundreds are copied)."""
    if name not in paths.notebook_names() or not rubrics.of_notebook(name):
        shutil.copyfile(source, target)
        return
    nb = nbformat.from_dict(json.loads(source.read_text(encoding="utf-8")))
    target.write_text(json.dumps(rubrics.with_notes(nb, name), indent=1, ensure_ascii=False), encoding="utf-8")


def _anonymous_gradebook(source: Path, target: Path, names: Mapping[str, str]) -> None:
    """A copy of the gradebook whose students are pseudonyms: no names, emails or LMS ids, nothing left in free pages."""
    target.unlink(missing_ok=True)
    with _connect(source) as real:
        copy = sqlite3.connect(":memory:")
        real.backup(copy)
    try:
        for student, alias in names.items():
            copy.execute("UPDATE submitted_assignment SET student_id = ? WHERE student_id = ?", (alias, student))
            copy.execute("UPDATE student SET id = ? WHERE id = ?", (alias, student))
        copy.execute("UPDATE student SET first_name = NULL, last_name = NULL, email = NULL, lms_user_id = NULL")
        unknown = [r[0] for r in copy.execute("SELECT id FROM student") if r[0] not in set(names.values())]
        if unknown:
            raise ValueError(f"{len(unknown)} student(s) in the gradebook have no pseudonym")
        copy.commit()
        copy.execute("VACUUM INTO ?", (str(target),))  # a fresh file: the real ids are not in its free pages
    finally:
        copy.close()


def _baseline(folder: ResultsFolder, view_db: Path, names: Mapping[str, str]) -> Baseline:
    """The hand-entered fields of every grade and comment of the view, and whose submission each row is."""
    real = {alias: student for student, alias in names.items()}
    hashes = {key: state.result.content_hash for key, state in folder.reload().items()}
    base = Baseline(built=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"))
    with _connect(view_db) as db:
        base.grades, base.comments = _hand_fields(db)
        rows = db.execute(
            "SELECT sn.id, sa.student_id, n.name FROM submitted_notebook sn JOIN submitted_assignment sa "
            "ON sn.assignment_id = sa.id JOIN notebook n ON sn.notebook_id = n.id"
        )
        for nb_id, alias, name in rows:
            student = real.get(alias, alias)
            base.submissions[nb_id] = [student, name, hashes.get(f"{student}/{name}", "")]
    return base


def collect(folder: ResultsFolder) -> int:
    """Carry what a grader changed in the anonymous view into the course's gradebook; returns how many rows.

    Only rows changed since the view was built (or last collected) are carried, so a score
    given meanwhile with `mark` stands. A row of a submission that changed since is left out, named once.
    """
    base = Baseline.read(folder.grading_state)
    view_db, real_db = CourseFolder.grading_view_of(folder).db_path, CourseFolder.of(folder).db_path
    if base is None or not view_db.exists() or not real_db.exists():
        return 0
    with _connect(view_db) as db:
        grades, comments = _hand_fields(db)
    grades = {k: v for k, v in grades.items() if base.grades.get(k) != v}
    comments = {k: v for k, v in comments.items() if base.comments.get(k) != v}
    hashes = {key: state.result.content_hash for key, state in folder.reload().items()}
    stale = {nb for nb in {v[-1] for v in [*grades.values(), *comments.values()]} if not _same(base, nb, hashes)}
    with _connect(real_db) as real:
        sets = ", ".join(f"{f} = ?" for f in GRADE_FIELDS)
        carried = [(*v[:-1], k) for k, v in grades.items() if v[-1] not in stale]
        real.executemany(f"UPDATE grade SET {sets} WHERE id = ?", carried)
        notes = [(v[0], k) for k, v in comments.items() if v[-1] not in stale]
        real.executemany("UPDATE comment SET manual_comment = ? WHERE id = ?", notes)
    base.grades.update(grades)
    base.comments.update(comments)
    base.write(folder.grading_state)
    return len(carried) + len(notes)


def _hand_fields(db: sqlite3.Connection) -> tuple[dict[str, list], dict[str, list]]:
    """What a person enters, by row id: each grade's GRADE_FIELDS and each comment's text, with their notebook's id."""
    grades = db.execute(f"SELECT id, {', '.join(GRADE_FIELDS)}, notebook_id FROM grade")
    comments = db.execute("SELECT id, manual_comment, notebook_id FROM comment")
    return {r[0]: list(r[1:]) for r in grades}, {r[0]: list(r[1:]) for r in comments}


def _same(base: Baseline, notebook_id: str, hashes: Mapping[str, str]) -> bool:
    """Whether the submission a view's row belongs to is still the one the view was built from (else: said)."""
    student, name, held = base.submissions.get(notebook_id, ["", "", ""])
    if hashes.get(f"{student}/{name}", "") == held:
        return True
    print(
        f"warning: a score entered in the anonymous grading view for {name} was not carried: that learner "
        "resubmitted since the view was built; grade it again (python -m autograder formgrader --anonymous)",
        file=sys.stderr,
    )
    return False
