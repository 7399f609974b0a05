"""The results folder's layout: where everything in it is, and its saved states, in one place.

    RESULTS/
      grades.csv lms.csv canvas.csv moodle.csv results.json scores.png   the reports (not_exported.csv: graded, off the roster)
      similarity.html similarity.csv similarity.json                     the similarity report (and its marks)
      feedback/<student>/<notebook>.html                                 what learners get
      .state/<student>/<notebook>.json (+ .ipynb)                        each graded submission
      .shapes/<notebook>/<version>/*.json                                answer cells' prints, kept for the similarity report
      .course/                                                           nbgrader's course (gradebook.db)
      .grading/ grading.json                                             formgrader's view (rubrics, pseudonyms) and its record
      .work/                                                             the kernels' folders
      overrides.json hand_history.json late.toml timestamps.json roster.csv   what people decided
      assignments.json                                                   the notebooks reported, as the LMS names them
      shard.json merged.json key.json .key .grade.lock                  the run's own records

Every command that reads or writes a results folder (grade, merge, export, mark, replay,
similarity, gradescope) goes through a ResultsFolder; saved states are typed and read from
disk once, then kept up to date as they are saved. No other module joins a name onto a
results folder's path: each asks a ResultsFolder for the path of what it holds (enforced by
tests/test_results_layout.py). Its typed records are read and written by
autograder.results_folder.records, through a ResultsFolder.
"""

from __future__ import annotations

import copy
import hashlib
from pathlib import Path

from autograder.results import NotebookResult
from autograder.results_folder import records
from autograder.results_folder.records import HandedIn, SavedState, ShardRecord
from autograder.submissions import ids

STATE, COURSE, FEEDBACK, WORK, SHAPES = ".state", ".course", "feedback", ".work", ".shapes"
GRADES, LMS, RESULTS, SCORES = "grades.csv", "lms.csv", "results.json", "scores.png"
CANVAS, MOODLE = "canvas.csv", "moodle.csv"
NOT_EXPORTED = "not_exported.csv"
OVERRIDES, HAND_HISTORY = "overrides.json", "hand_history.json"
LATE_POLICY, TIMES, ROSTER = "late.toml", "timestamps.json", "roster.csv"
ASSIGNMENTS = "assignments.json"
GRADING, GRADING_STATE = ".grading", "grading.json"
SHARD, MERGED, KEY_RECORD, KEY, LOCK = "shard.json", "merged.json", "key.json", ".key", ".grade.lock"
SIMILARITY_HTML, SIMILARITY_CSV, SIMILARITY_MARKS = "similarity.html", "similarity.csv", "similarity.json"


def state_name(text: str) -> str:
    """A file name for a student id or notebook: itself when it is a plain, short id, else a hash.

    Valid student ids and the course's notebook names stay readable; anything else (a
    fixed label, a stand-in id, whatever a learner could choose) is never used raw, so no
    name can be too long, hold a separator or a control character, or clash with another.
    """
    if ids.valid_id(text):
        return text
    return "~" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


class ResultsFolder:
    """A results folder (new or holding earlier runs): where everything in it is, and its saved states."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._states: dict[str, SavedState] | None = None

    def __repr__(self) -> str:
        return f"ResultsFolder({str(self.root)!r})"

    def __str__(self) -> str:
        return str(self.root)  # as messages name it: its path

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ResultsFolder) and other.root == self.root

    def __hash__(self) -> int:
        return hash(self.root)

    # the reports
    @property
    def grades_csv(self) -> Path:
        return self.root / GRADES

    @property
    def results_json(self) -> Path:
        return self.root / RESULTS

    @property
    def scores_png(self) -> Path:
        return self.root / SCORES

    def reports(self) -> dict[str, Path]:
        """The CSV reports by what they are for: 'grades', 'lms', 'canvas', 'moodle'."""
        return {
            "grades": self.grades_csv,
            "lms": self.root / LMS,
            "canvas": self.root / CANVAS,
            "moodle": self.root / MOODLE,
        }

    @property
    def not_exported_csv(self) -> Path:
        """Graded learners no LMS export carries (not on the roster), and why (autograder.run.report)."""
        return self.root / NOT_EXPORTED

    @property
    def similarity_html(self) -> Path:
        return self.root / SIMILARITY_HTML

    @property
    def similarity_csv(self) -> Path:
        return self.root / SIMILARITY_CSV

    @property
    def similarity_marks(self) -> Path:
        """The last similarity report's marks, put back into results.json whenever it is rewritten."""
        return self.root / SIMILARITY_MARKS

    # what people decided
    @property
    def overrides(self) -> Path:
        """The scores instructors set by hand (autograder.run.overrides)."""
        return self.root / OVERRIDES

    @property
    def hand_history(self) -> Path:
        """The hand scores set aside when a written answer changed (autograder.run.handgrades)."""
        return self.root / HAND_HISTORY

    @property
    def late_policy(self) -> Path:
        return self.root / LATE_POLICY

    @property
    def timestamps(self) -> Path:
        """When each submission was handed in, as the runs found it (autograder.run.late)."""
        return self.root / TIMES

    @property
    def roster(self) -> Path:
        """The copy of the course roster `grade --roster` keeps."""
        return self.root / ROSTER

    @property
    def assignments(self) -> Path:
        """The notebooks `grade --assignment` named, each with its LMS name (autograder.run.assignments)."""
        return self.root / ASSIGNMENTS

    def same_in_every_shard(self) -> tuple[Path, Path, Path]:
        """The decisions every shard of a course holds alike: the late policy, the roster, the assignments."""
        return self.late_policy, self.roster, self.assignments

    # the run's own records
    @property
    def shard_record(self) -> Path:
        """Which shard of the learners this folder holds (autograder.run.shard)."""
        return self.root / SHARD

    @property
    def merge_record(self) -> Path:
        """Which shards a merged folder was made from (autograder.scale.merge)."""
        return self.root / MERGED

    @property
    def key_record(self) -> Path:
        """The fingerprint of the course key this folder was graded with (autograder.checks.coursekey)."""
        return self.root / KEY_RECORD

    @property
    def key_file(self) -> Path:
        """Where a folder graded before build/course.key was the default kept its key (coursekey.legacy_key)."""
        return self.root / KEY

    @property
    def lock_file(self) -> Path:
        """The lock one live run holds (autograder.run.runlock)."""
        return self.root / LOCK

    def holds_results(self) -> bool:
        """Whether this folder is a results folder already (a report, a saved state or its key record)."""
        return any(p.exists() for p in (self.grades_csv, self.results_json, self.key_record, self.state_dir))

    def has_states(self) -> bool:
        """Whether any submission's state is saved here (read from disk, not the cached states)."""
        return any(self.state_dir.glob("*/*.json"))

    @property
    def course_dir(self) -> Path:
        return self.root / COURSE

    @property
    def grading_dir(self) -> Path:
        """formgrader's course: the gradebook's view a grader sees (autograder.gradebook.grading_view)."""
        return self.root / GRADING

    @property
    def grading_state(self) -> Path:
        """What an anonymous view was built from (outside the view: a grader never reads it)."""
        return self.root / GRADING_STATE

    @property
    def feedback_dir(self) -> Path:
        return self.root / FEEDBACK

    def feedback_page(self, student: str, notebook: str) -> Path:
        """A learner's feedback page for one notebook (autograder.gradebook.feedback writes it)."""
        return self.feedback_dir / student / f"{notebook}.html"

    @property
    def work_dir(self) -> Path:
        return self.root / WORK

    @property
    def shapes_dir(self) -> Path:
        """The similarity report's kept prints of answer cells, per notebook (autograder.run.simcache)."""
        return self.root / SHAPES

    @property
    def state_dir(self) -> Path:
        return self.root / STATE

    def state_path(self, student: str, notebook: str) -> Path:
        """Where a submission's saved state is (its executed notebook beside it, as .ipynb)."""
        return self.state_dir / state_name(student) / f"{state_name(notebook)}.json"

    def executed_path(self, student: str, notebook: str) -> Path:
        """A graded submission's executed notebook, as it was recorded."""
        return self.state_path(student, notebook).with_suffix(".ipynb")

    def states(self) -> dict[str, SavedState]:
        """Every saved state, by 'student/notebook': read from disk once, then kept as saved."""
        if self._states is None:
            self._states = records.read_states(self.state_dir)
        return self._states

    def state(self, student: str, notebook: str) -> SavedState | None:
        """One submission's saved state (as the cached states hold it, else read from disk), or None."""
        if self._states is not None:
            return self._states.get(f"{student}/{notebook}")
        return records.read_state(self.state_path(student, notebook))

    def reload(self) -> dict[str, SavedState]:
        """The saved states read from disk again (another process may have written them)."""
        self._states = None
        return self.states()

    def results(self) -> list[NotebookResult]:
        """Every saved result, each a copy (scores people gave are put on them; the states stay as saved)."""
        return [copy.deepcopy(s.result) for s in self.states().values()]

    def save(self, result: NotebookResult, digest: str, executed=None, recorded: bool = False) -> None:
        """Save a submission's state (and its executed notebook, when given), atomically."""
        state = SavedState(result, digest, recorded)
        records.write_state(self.state_path(result.student_id, result.notebook), state, executed)
        if self._states is not None:
            self._states[result.key] = SavedState.from_dict(state.to_dict())  # a copy: later changes stay out

    # the typed records (autograder.results_folder.records): each read and written here only
    def read_shard(self) -> ShardRecord | None:
        """The shard this folder holds, or None; records.RecordError when shard.json is not one."""
        return records.read_shard(self.shard_record)

    def write_shard(self, record: ShardRecord) -> None:
        records.write_shard(self.shard_record, record)

    def read_key(self) -> str | None:
        """The fingerprint of the course key this folder was graded with (key.json), or None."""
        return records.read_key(self.key_record)

    def write_key(self, fingerprint: str) -> None:
        records.write_key(self.key_record, fingerprint)

    def read_times(self) -> dict[str, HandedIn]:
        """Each submission's time as the runs found it; records.RecordError when timestamps.json cannot be read."""
        return records.read_times(self.timestamps)

    def write_times(self, times: dict[str, HandedIn]) -> None:
        records.write_times(self.timestamps, times)
