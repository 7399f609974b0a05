"""nbgrader's course folder: its layout, its config and its gradebook, named in this module only.

    COURSE/                                       (a results folder's .course/, formgrader's .grading/, a cache entry)
      nbgrader_config.py                          written by autograder.gradebook.course, loaded here
      gradebook.db                                nbgrader's gradebook (sqlite)
      source/<nb>/<nb>.ipynb, workbook.py         the solution notebook and its helper
      release/<nb>/<nb>.ipynb                     the student version nbgrader generated
      submitted/<student>/<nb>/<nb>.ipynb         an executed submission, its timestamp.txt and workbook.py beside it
      autograded/<student>/<nb>/<nb>.ipynb        as nbgrader autograde scored it
      feedback/<student>/<nb>/<nb>.html           as nbgrader generate_feedback wrote it
      .exchange/                                  nbgrader's exchange for this course (never the machine's)
      .prepared.json                              each notebook's course-cache key (autograder.gradebook.records.prepare)

`CourseFolder.format_path(kind, assignment, student, notebook)` names a path as nbgrader's own
`CourseDirectory.format_path` does (one assignment per notebook, so both are the notebook's name);
no other module joins these names onto a course folder (tests/test_results_layout.py), and
`load_config` is the only place nbgrader's config is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Self

from autograder.results_folder import ResultsFolder

if TYPE_CHECKING:
    from nbgrader.api import Gradebook
    from traitlets.config import Config

COURSE_ID = "attention-workbook"
SOURCE, RELEASE, SUBMITTED, AUTOGRADED, FEEDBACK = "source", "release", "submitted", "autograded", "feedback"
KINDS = (SOURCE, RELEASE, SUBMITTED, AUTOGRADED, FEEDBACK)  # nbgrader's steps: a folder each
GRADEBOOK, CONFIG, EXCHANGE, PREPARED = "gradebook.db", "nbgrader_config.py", ".exchange", ".prepared.json"
TIMESTAMP, HELPER = "timestamp.txt", "workbook.py"
SETUP = (SOURCE, RELEASE, GRADEBOOK)  # what a course is set up with before anything is graded (the course cache's)
HANDED_IN = (SUBMITTED, AUTOGRADED, FEEDBACK)  # what grading adds, per learner


@dataclass
class CourseFolder:
    """One nbgrader course folder: where each of its files is, its config and its gradebook."""

    root: Path

    @classmethod
    def of(cls, results: ResultsFolder) -> Self:
        """The course folder a results folder holds (RESULTS/.course)."""
        return cls(results.course_dir)

    @classmethod
    def grading_view_of(cls, results: ResultsFolder) -> Self:
        """formgrader's course folder beside it (RESULTS/.grading: autograder.gradebook.grading_view)."""
        return cls(results.grading_dir)

    def folder(self, kind: str) -> Path:
        """One of nbgrader's step folders (KINDS): source/, release/, submitted/, autograded/, feedback/."""
        if kind not in KINDS:
            raise ValueError(f"{kind!r} is not one of nbgrader's course folders {KINDS}")
        return self.root / kind

    def format_path(self, kind: str, assignment: str, student: str | None = None, notebook: str | None = None) -> Path:
        """kind/[student/]assignment[/notebook.ipynb], as nbgrader lays them out (a feedback page is .html).

        source/ and release/ hold no student's folder; submitted/, autograded/ and feedback/ need one.
        """
        per_student = kind in (SUBMITTED, AUTOGRADED, FEEDBACK)
        if per_student != (student is not None):
            raise ValueError(f"{kind}/ paths {'need' if per_student else 'take no'} a student")
        path = self.folder(kind) / student / assignment if student is not None else self.folder(kind) / assignment
        if notebook is None:
            return path
        return path / f"{notebook}{'.html' if kind == FEEDBACK else '.ipynb'}"

    def helper_path(self, kind: str, assignment: str, student: str | None = None) -> Path:
        """The helper module (workbook.py) beside a source or a submission."""
        return self.format_path(kind, assignment, student) / HELPER

    def timestamp_path(self, student: str, assignment: str) -> Path:
        """A submission's timestamp.txt, which nbgrader autograde records and formgrader shows."""
        return self.format_path(SUBMITTED, assignment, student) / TIMESTAMP

    @property
    def db_path(self) -> Path:
        return self.root / GRADEBOOK

    @property
    def db_url(self) -> str:
        return f"sqlite:///{self.db_path}"

    @property
    def config_path(self) -> Path:
        return self.root / CONFIG

    @property
    def exchange_dir(self) -> Path:
        """The course's own exchange: nbgrader never reaches the machine's /srv/nbgrader/exchange from here."""
        return self.root / EXCHANGE

    @property
    def prepared_path(self) -> Path:
        return self.root / PREPARED

    def gradebook(self) -> Gradebook:
        """nbgrader's gradebook of this course, to use as a context manager."""
        from nbgrader.api import Gradebook  # not at import: a grading run's fork server imports torch first

        return Gradebook(self.db_url, COURSE_ID)

    def load_config(self) -> Config:
        """nbgrader's configuration of this course, read afresh from its config file, with its own exchange.

        No traitlets state is shared between calls or courses. The only place the config is loaded.
        """
        from traitlets.config import Config
        from traitlets.config.loader import PyFileConfigLoader

        config = PyFileConfigLoader(CONFIG, path=str(self.root)).load_config()
        extra = Config()
        extra.Exchange.root = str(self.exchange_dir)  # never the machine's /srv/nbgrader/exchange
        config.merge(extra)
        return config


def exchange_feedback(root: Path, course_id: str) -> Path:
    """Where nbgrader's exchange at `root` keeps a course's released feedback pages (fetch_feedback reads them)."""
    return root / course_id / FEEDBACK
