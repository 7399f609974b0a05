"""Late work: a due date per notebook, per-learner extensions, submission times, and a penalty policy.

The policy is a TOML file, given once as `grade --late late.toml` and kept as RESULTS/late.toml:

    [due]                      # ISO 8601; a time without an offset is UTC
    01_scaled_dot_product_attention = "2026-12-01T23:59:00+00:00"
    [extensions.fay]           # a learner's own due dates, or hours added to every one
    01_scaled_dot_product_attention = "2026-12-03T23:59:00+00:00"
    [extensions.bo]
    all_hours = 48
    [policy]
    per_day = 10               # percent of the notebook's points per day late (or part of one)
    max = 100                  # the most a penalty takes, in percent
    grace_minutes = 0
    # zero = true              # instead: late work scores 0 (nbgrader's ZeroLatePlugin rule)

Submission times, the first found: the LMS download's own (Blackboard's attempt time, or
Canvas's from its submissions list, autograder.submissions.canvas_times), nbgrader's `timestamp.txt` in the learner's folder (`2026-12-01 10:00:00.000000 UTC`), or a
row of SUBMISSIONS/timestamps.csv (`student_id,notebook,timestamp`; a blank notebook means
all). They are kept in RESULTS/timestamps.json. A Canvas `_LATE` name with no time is noted,
not penalised: there is nothing to measure it by.
"""

from __future__ import annotations

import csv
import datetime
import difflib
import io
import math
import os
import stat
import tomllib
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from autograder.results import NotebookResult, Status
from autograder.results_folder import HandedIn, ResultsFolder
from autograder.submissions import canvas_times

MAX_SMALL_FILE = 2**20


class LateError(ValueError):
    """A late-work policy that cannot be used, with the reason."""


def when(text: str) -> datetime.datetime:
    """A time from ISO 8601 or nbgrader's timestamp.txt form; UTC where no offset is given."""
    text = text.strip().removesuffix(" UTC")
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise LateError(f"{text[:60]!r} is not a date and time (ISO 8601, e.g. 2026-12-01T23:59:00+00:00)") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=datetime.UTC)


@dataclass(kw_only=True)
class Policy:
    """Due dates, extensions and the penalty rule."""

    due: dict[str, datetime.datetime] = field(default_factory=dict)
    own: dict[str, dict[str, datetime.datetime]] = field(default_factory=dict)
    extra_hours: dict[str, float] = field(default_factory=dict)
    per_day: float = 0.0
    most: float = 100.0
    grace: datetime.timedelta = datetime.timedelta()
    zero: bool = False

    def due_for(self, student: str, notebook: str) -> datetime.datetime | None:
        """This learner's due date for this notebook (an extension's, if any)."""
        if notebook in self.own.get(student, {}):
            return self.own[student][notebook]
        base = self.due.get(notebook)
        return base + datetime.timedelta(hours=self.extra_hours.get(student, 0)) if base else None

    def penalty(self, late_by: datetime.timedelta, points: float) -> float:
        """Points taken for work handed in `late_by` after its due date (grace included)."""
        if late_by <= self.grace:
            return 0.0
        if self.zero:
            return points
        days = math.ceil((late_by - self.grace) / datetime.timedelta(days=1))
        return points * min(self.most, self.per_day * days) / 100

    def describe(self) -> str:
        """The rule in words, for the learner's feedback."""
        if self.zero:
            return "late work scores 0"
        return f"{self.per_day:g}% of the notebook's points per day late (at most {self.most:g}%)"


SECTIONS = ("policy", "due", "extensions")
SETTINGS = ("per_day", "max", "grace_minutes", "zero")  # of [policy]


def load(path: Path, notebooks: Collection[str] | None = None) -> Policy:
    """Read a late-work TOML file; with `notebooks`, a notebook or setting it does not know is a LateError.

    A misspelt name would otherwise drop a due date (and its penalties) without a word.
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise LateError(f"{path}: {exc}") from None
    if notebooks is not None:
        _check_names(path, data, notebooks)
    policy = data.get("policy", {})
    own, extra = {}, {}
    for student, given in data.get("extensions", {}).items():
        extra[student] = float(given.get("all_hours", 0))
        own[student] = {nb: when(str(t)) for nb, t in given.items() if nb != "all_hours"}
    return Policy(
        due={nb: when(str(t)) for nb, t in data.get("due", {}).items()},
        own=own,
        extra_hours=extra,
        per_day=float(policy.get("per_day", 0)),
        most=float(policy.get("max", 100)),
        grace=datetime.timedelta(minutes=float(policy.get("grace_minutes", 0))),
        zero=bool(policy.get("zero", False)),
    )


def _check_names(path: Path, data: dict, notebooks: Collection[str]) -> None:
    """Every section, setting and notebook of the policy is one this course has (the closest one suggested)."""

    def unknown(kind: str, name: str, known: Collection[str]) -> LateError:
        close = difflib.get_close_matches(name, list(known), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else f" (known: {', '.join(sorted(known))})"
        return LateError(f"{path}: unknown {kind} {name!r}{hint}")

    for section, value in data.items():
        if section not in SECTIONS:
            raise unknown("section", section, SECTIONS)
        if not isinstance(value, dict):
            raise LateError(f"{path}: [{section}] is not a table")
    for key in data.get("policy", {}):
        if key not in SETTINGS:
            raise unknown("setting in [policy]", key, SETTINGS)
    named = [*data.get("due", {})]
    for student, given in data.get("extensions", {}).items():
        if not isinstance(given, dict):
            raise LateError(f"{path}: [extensions.{student}] is not a table")
        named += [nb for nb in given if nb != "all_hours"]
    for notebook in named:
        if notebook not in notebooks:
            raise unknown("notebook", notebook, notebooks)


def unlisted_learners(policy: Policy, learners: Collection[str]) -> list[str]:
    """The learners given an extension who are not among `learners` (a misspelt id takes no extension)."""
    return sorted(set(policy.extra_hours) - set(learners))


def _small_file(path: Path) -> str | None:
    """A small regular file's text (no link followed), or None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return fh.read(MAX_SMALL_FILE).decode("utf-8", "replace")


def record_times(folder: ResultsFolder, submissions: Path, items: list) -> list[str]:
    """Keep each submission's time (and an LMS's late mark) in RESULTS/timestamps.json.

    Returns the submissions an LMS marked late that have no time (no penalty can be computed for them).
    """
    table = _table(submissions)
    kept, untimed = _times(folder), []
    for item in items:
        if isinstance(item, NotebookResult):
            continue
        stamp = item.submitted or _folder_stamp(submissions / item.student_id)
        stamp = stamp or table.get((item.student_id, item.notebook)) or table.get((item.student_id, ""), "")
        try:
            stamp = when(stamp).isoformat() if stamp else ""
        except LateError:
            stamp = ""
        kept[item.key] = HandedIn(stamp, bool(item.late), item.content_hash)
        if item.late and not stamp:
            untimed.append(item.key)
    folder.write_times(kept)
    return untimed


def untimed_warning(untimed: list[str], submissions: Path) -> str:
    """One line: late-marked submissions without a time got no penalty, and how to get Canvas's times."""
    return (
        f"warning: {len(untimed)} submission(s) marked _LATE have no submission time (first: {untimed[0]}), so no "
        f"late penalty was computed for them: save Canvas's submissions list (GET /api/v1/courses/<course>/"
        f"assignments/<assignment>/submissions?include[]=submission_history&per_page=100) as "
        f"{submissions / canvas_times.FILE}, or give their times in {submissions / 'timestamps.csv'}, then grade again"
    )


def _folder_stamp(folder: Path) -> str:
    text = _small_file(folder / "timestamp.txt") if folder.is_dir() and not folder.is_symlink() else None
    return (text or "").strip().splitlines()[0] if text and text.strip() else ""


def _table(submissions: Path) -> dict[tuple[str, str], str]:
    text = _small_file(submissions / "timestamps.csv")
    if not text:
        return {}
    rows = csv.DictReader(io.StringIO(text))
    return {(r.get("student_id", ""), r.get("notebook", "") or ""): r.get("timestamp", "") for r in rows}


def _times(folder: ResultsFolder) -> dict[str, HandedIn]:
    """The times kept in RESULTS/timestamps.json ({} when there are none, or it cannot be read)."""
    try:
        return folder.read_times()
    except (OSError, ValueError):
        return {}


def handed_in(folder: ResultsFolder, result: NotebookResult) -> str:
    """The submission time kept for this result (ISO 8601), or ""."""
    stamp = _times(folder).get(result.key, HandedIn()).timestamp
    try:
        return when(stamp).isoformat() if stamp else ""
    except LateError:
        return ""


def due_dates(folder: ResultsFolder) -> dict[str, str]:
    """Each notebook's due date for everyone (ISO 8601), from RESULTS/late.toml; none without one."""
    if not folder.late_policy.is_file():
        return {}
    return {notebook: moment.isoformat() for notebook, moment in load(folder.late_policy).due.items()}


def apply(folder: ResultsFolder, results: list[NotebookResult]) -> None:
    """Due date, time and penalty on each graded result, from RESULTS/late.toml and timestamps.json."""
    times = _times(folder)
    if not folder.late_policy.is_file():  # no policy: the LMS's late mark is noted, no penalty
        for result in (r for r in results if r.status == Status.GRADED):
            if times.get(result.key, HandedIn()).late_mark:
                result.late_note = "marked late by the LMS; no late-work policy given (--late): no penalty"
        return
    policy = load(folder.late_policy)
    for result in (r for r in results if r.status == Status.GRADED):
        due, seen = policy.due_for(result.student_id, result.notebook), times.get(result.key, HandedIn())
        result.duedate = due.isoformat() if due else ""
        result.timestamp = seen.timestamp
        if due and result.timestamp:
            late_by = when(result.timestamp) - due
            result.penalty = round(min(result.score, policy.penalty(late_by, result.max_score)), 6)
            if result.penalty:
                result.late_note = f"handed in {_ago(late_by)} after the due date ({policy.describe()})"
        elif seen.late_mark:
            result.late_note = "marked late by the LMS, with no submission time: no penalty computed"
        result.score = round(result.score - result.penalty, 6)


def _ago(delta: datetime.timedelta) -> str:
    hours = delta.total_seconds() / 3600
    return f"{hours:.1f} hours" if hours < 48 else f"{hours / 24:.1f} days"
