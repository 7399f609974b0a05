"""Canvas submission times read from Canvas's own Submissions API list, saved beside the download (no kernel)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import pytest
from support import make_submission
from test_late import KNOWN, NB01, POLICY
from test_lms_intake import canvas_name

from autograder import results_folder as layout
from autograder.results import NotebookResult
from autograder.results_folder import ResultsFolder
from autograder.run import late
from autograder.submissions import canvas_times, intake

SAMPLE = Path(__file__).parent / "lms" / "canvas_submissions.json"  # Canvas's documented fields


def _download(tmp_path, files) -> Path:
    """A Canvas "Download Submissions" folder with the API's list saved beside it."""
    subs = tmp_path / "subs"
    subs.mkdir()
    nb = nbformat.writes(make_submission(NB01, None))
    for sortable, user, attachment, display, is_late in files:
        (subs / canvas_name(sortable, user, attachment, display, late=is_late)).write_text(nb)
    shutil.copy(SAMPLE, subs / canvas_times.FILE)
    return subs


def _graded(tmp_path, subs) -> dict[str, NotebookResult]:
    out = tmp_path / "out"
    out.mkdir()
    (out / layout.LATE_POLICY).write_text(POLICY)
    items = intake.collect(subs, KNOWN)
    assert all(isinstance(i, intake.Submission) for i in items), items  # the JSON file is no submission
    late.record_times(ResultsFolder(out), subs, items)
    results = [NotebookResult(student_id=i.student_id, notebook=i.notebook, status="graded", score=10, max_score=10)
               for i in items]  # fmt: skip
    late.apply(ResultsFolder(out), results)
    return {r.student_id: r for r in results}


def test_canvas_times_come_from_its_submissions_list_and_are_penalised(tmp_path):
    subs = _download(
        tmp_path,
        [
            ("Lovelace, Fay", 1234, 567890, f"{NB01}.ipynb", False),  # attempt 1, on time
            ("Lovelace, Fay", 1234, 567990, f"{NB01}-1.ipynb", True),  # attempt 2, late: the one graded
            ("Bell, Ben", 2345, 568000, f"{NB01}.ipynb", False),
        ],
    )
    by = _graded(tmp_path, subs)
    fay, ben = by["lovelacefay_1234"], by["bellben_2345"]
    assert fay.timestamp == "2026-12-03T09:30:00+00:00" and (fay.penalty, fay.score) == (2, 8)  # 2 days started
    assert "after the due date" in fay.late_note
    assert (ben.timestamp, ben.penalty, ben.score) == ("2026-12-01T18:00:00+00:00", 0, 10)


def test_a_files_own_attempt_gives_its_time(tmp_path):
    """Only attempt 1's file in the download: its attempt's time, not the learner's latest."""
    subs = _download(tmp_path, [("Lovelace, Fay", 1234, 567890, f"{NB01}.ipynb", False)])
    fay = _graded(tmp_path, subs)["lovelacefay_1234"]
    assert (fay.timestamp, fay.penalty, fay.score) == ("2026-12-01T20:00:00+00:00", 0, 10)


def test_the_latest_time_when_the_attachment_is_not_listed(tmp_path):
    subs = _download(tmp_path, [("Bell, Ben", 2345, 999999, f"{NB01}.ipynb", False)])  # saved without history
    assert _graded(tmp_path, subs)["bellben_2345"].timestamp == "2026-12-01T18:00:00+00:00"


def test_pages_saved_as_an_array_of_arrays_and_canvas_late_marks(tmp_path):
    pages = json.loads(SAMPLE.read_text())
    (tmp_path / canvas_times.FILE).write_text(json.dumps([pages[:1], pages[1:]]))
    times = canvas_times.load(tmp_path)
    assert times.by_user == {"1234": "2026-12-03T09:30:00Z", "2345": "2026-12-01T18:00:00Z"}  # 3456: unsubmitted
    assert times.late == {"1234"} and times.when("1234", "567890") == "2026-12-01T20:00:00Z"
    assert canvas_times.load(tmp_path / "nowhere").by_user == {}


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("{not json", "not JSON"),
        ('{"user_id": 1}', "not a JSON array of Canvas submissions"),
        ('[{"id": 5, "submitted_at": "2026-12-01T18:00:00Z"}]', "item 0: not a Canvas submission"),
        ('[{"user_id": 5, "submitted_at": 1764612000}]', "submitted_at is 1764612000, not an ISO 8601 time"),
        ('[{"user_id": 5, "submitted_at": "yesterday"}]', "submitted_at is 'yesterday', not an ISO 8601 time"),
    ],
)
def test_a_damaged_list_stops_intake_naming_the_file(tmp_path, text, said):
    (tmp_path / canvas_times.FILE).write_text(text)
    with pytest.raises(canvas_times.CanvasTimesError, match=said) as info:
        intake.collect(tmp_path, KNOWN)
    assert str(tmp_path / canvas_times.FILE) in str(info.value)


def test_late_marks_without_canvas_times_are_said_in_one_line(tmp_path):
    """Issue 64 item 3: a download without canvas_submissions.json: _LATE files get no penalty, and it is said."""
    subs = _download(
        tmp_path,
        [("Lovelace, Fay", 1234, 567990, f"{NB01}.ipynb", True), ("Bell, Ben", 2345, 568000, f"{NB01}.ipynb", False)],
    )
    (subs / canvas_times.FILE).unlink()
    out = ResultsFolder(tmp_path / "out")
    out.root.mkdir()
    untimed = late.record_times(out, subs, intake.collect(subs, KNOWN))
    assert untimed == [f"lovelacefay_1234/{NB01}"]  # the late-marked one only; the other has no mark
    line = late.untimed_warning(untimed, subs)
    assert "\n" not in line and "1 submission(s) marked _LATE have no submission time" in line
    assert "no late penalty was computed" in line and str(subs / canvas_times.FILE) in line
    assert "/api/v1/courses/<course>/assignments/<assignment>/submissions" in line
    shutil.copy(SAMPLE, subs / canvas_times.FILE)  # the times saved: nothing left to say
    assert late.record_times(out, subs, intake.collect(subs, KNOWN)) == []
