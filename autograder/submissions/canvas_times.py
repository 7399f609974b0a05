"""Canvas submission times, read from what Canvas gives: its Submissions API's list, saved beside the download.

Canvas's gradebook CSV export and its "Download Submissions" zip carry no submission time
(the zip's names only mark `_LATE`). Canvas's REST API does: "List assignment submissions",
`GET /api/v1/courses/<course>/assignments/<assignment>/submissions?per_page=100`, returns a
JSON array of Submission objects (canvas.instructure.com/doc/api/submissions), of which this
reads `user_id`, `anonymous_id`, `submitted_at` (ISO 8601), `late` and, with
`include[]=submission_history`, each attempt's `submitted_at` and `attachments[].id`. Save
that answer (several pages: one array each, in one file as an array of arrays, or their
items in one array) as SUBMISSIONS/canvas_submissions.json, beside the unzipped download.
The file name is this grader's choice, not Canvas's.

The download's file names give the learner's Canvas user id (or anonymous id) and the
attachment id: a file's time is that of the attempt its attachment belongs to, else the
learner's latest submission time.
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass, field
from pathlib import Path

FILE = "canvas_submissions.json"  # beside the download (intake.INSTRUCTOR_FILES)
MAX_BYTES = 64 * 2**20


class CanvasTimesError(ValueError):
    """A canvas_submissions.json that cannot be read, naming the file and what is wrong."""


@dataclass
class Times:
    """Submission times by Canvas user id (or anonymous id) and by attachment id, with Canvas's late marks."""

    by_user: dict[str, str] = field(default_factory=dict)
    by_attachment: dict[str, str] = field(default_factory=dict)
    late: set[str] = field(default_factory=set)  # user ids Canvas marked late

    def when(self, user: str, attachment: str = "") -> str:
        """The time of this attachment's attempt, else the user's latest submission, else ""."""
        return self.by_attachment.get(attachment) or self.by_user.get(user, "")


def load(submissions: Path) -> Times:
    """SUBMISSIONS/canvas_submissions.json read into Times (empty when there is no such file)."""
    path = submissions / FILE
    if not path.is_file() or path.is_symlink():
        return Times()
    if path.stat().st_size > MAX_BYTES:
        raise CanvasTimesError(f"{path}: over {MAX_BYTES >> 20} MiB; not a Canvas submissions list")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise CanvasTimesError(f"{path}: not JSON ({exc})") from None
    times = Times()
    for n, item in enumerate(_flat(data, path)):
        _add(times, item, f"{path}: item {n}")
    return times


def _flat(data: object, path: Path) -> list:
    """The submissions of one page (an array) or of several (an array of arrays)."""
    if not isinstance(data, list):
        raise CanvasTimesError(f"{path}: not a JSON array of Canvas submissions (the API's answer, saved as it is)")
    return [x for page in data for x in (page if isinstance(page, list) else [page])]


def _add(times: Times, item: object, where: str) -> None:
    """One Submission object's times."""
    if not isinstance(item, dict) or ("user_id" not in item and "anonymous_id" not in item):
        raise CanvasTimesError(f"{where}: not a Canvas submission (no user_id or anonymous_id)")
    users = [str(item[k]) for k in ("user_id", "anonymous_id") if item.get(k) not in (None, "")]
    latest = _time(item.get("submitted_at"), where)
    for user in users:
        if latest:
            times.by_user[user] = latest
        if item.get("late") is True:
            times.late.add(user)
    for attempt in [item, *(item.get("submission_history") or [])]:
        if isinstance(attempt, dict) and (stamp := _time(attempt.get("submitted_at"), where)):
            for attachment in attempt.get("attachments") or []:
                if isinstance(attachment, dict) and attachment.get("id") is not None:
                    times.by_attachment.setdefault(str(attachment["id"]), stamp)


def _time(value: object, where: str) -> str:
    """An ISO 8601 submitted_at as Canvas writes it (UTC, `Z`), "" for none; anything else refused."""
    if value is None or value == "":
        return ""
    if isinstance(value, str):
        try:
            datetime.datetime.fromisoformat(value)
            return value
        except ValueError:
            pass
    raise CanvasTimesError(f"{where}: submitted_at is {value!r}, not an ISO 8601 time")
