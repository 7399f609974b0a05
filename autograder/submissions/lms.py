"""LMS bulk downloads: Canvas, Moodle and Blackboard file names, and a browser's "(1)" renames.

Each platform names a learner's file its own way (README "LMS downloads"); this module
reads those names, never the files, and says which learner and which of the learner's
files each is. What it takes:

- Canvas ("Download Submissions"): flat files
  `<sortablename>[_LATE]_<user_id>_<attachment_id>_<filename>`, or
  `[LATE_]anon_<anonymous_id>_<attachment_id>_<filename>` when anonymous. The name is the
  learner's sortable name, lower case, with every non-word character dropped. A file the
  learner uploaded again under the same name is `<stem>-1.ipynb`, `-2`, ...
- Moodle ("Download all submissions"): a folder per learner
  `<Full Name>_<participant_id>_assignsubmission_file_/` (underscores in the name become
  spaces), or, without folders, flat files `<Full Name>_<participant_id>_assignsubmission_file_<filename>`.
- Blackboard ("Assignment File Download"): flat files
  `<Assignment>_<username>_attempt_<YYYY-MM-DD-HH-MM-SS>_<filename>`, with a
  `<Assignment>_<username>_attempt_<...>.txt` receipt beside them.
- Browsers: a file saved twice becomes `<stem> (1).ipynb`; Colab's own copy is `Copy of <name>.ipynb`.

The latest copy of a notebook is graded: the highest resubmission suffix, then Canvas's
highest attachment id or Blackboard's latest attempt; older copies are not graded.
A learner is the roster's student id for the LMS id (or name) when a roster has one,
else a stable id made from the file name (`lovelacefay_1234`, `fay_lovelace_1234`, `flovelace`).
"""

from __future__ import annotations

import datetime
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autograder.submissions.roster import Roster

CANVAS = re.compile(r"(?P<name>[^\W_]\w*?)(?P<late>_LATE)?_(?P<uid>\d+)_(?P<att>\d+)_(?P<file>.+)")
CANVAS_ANON = re.compile(r"(?P<late>LATE_)?anon_(?P<uid>[A-Za-z0-9]+)_(?P<att>\d+)_(?P<file>.+)")
MOODLE = re.compile(r"(?P<name>[^_]+)_(?P<pid>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<file>.*)")
BLACKBOARD = re.compile(
    r"(?P<prefix>.+?_[^_]+)_attempt_(?P<ts>\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d)(?:_(?P<file>.+)|(?P<txt>\.txt))"
)
_COPY_OF = re.compile(r"Copy of (?P<rest>.+)", re.I)
_RENAMED = re.compile(r"(?P<stem>.+?)(?: \((?P<copy>\d+)\)|-(?P<again>\d+))(?P<ext>\.ipynb)", re.I)


@dataclass(kw_only=True)
class Found:
    """One learner's file in an LMS download."""

    student_id: str
    filename: str  # the learner's own file name, renames undone where that names a course notebook
    path: Path
    platform: str  # "canvas" | "moodle" | "blackboard"
    order: tuple = ()  # larger: later
    late: bool = False  # the platform marked it late (Canvas)
    submitted: str = ""  # ISO 8601, when the platform's name gives it (Blackboard)
    name: str = ""  # the learner's name as the platform wrote it
    extra: dict = field(default_factory=dict)


def undo_renames(filename: str, known: Callable[[str], str | None]) -> tuple[str, int]:
    """The file name without "(N)" and "-N" copy suffixes and a "Copy of " prefix (Colab's), if that names a
    course notebook; and the largest N.

    `known` maps a file name to the course notebook it stands for, or None.
    """
    if (colab := _COPY_OF.fullmatch(filename)) and known(filename) is None:  # Colab's "Save a copy in Drive"
        name, copies = undo_renames(colab["rest"], known)
        if known(name) is not None:
            return name, copies
    name, copies = filename, 0
    while (m := _RENAMED.fullmatch(name)) and known(filename) is None:
        name, copies = m["stem"] + m["ext"], max(copies, int(m["copy"] or m["again"]))
        if known(name) is not None:
            return name, copies
    return filename, 0


def _slug(text: str) -> str:
    """Letters and digits of a name, ASCII, words joined by '_' ('' if none)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return "_".join(re.findall(r"[A-Za-z0-9]+", ascii_text)).lower()[:40]


def _student(roster: Roster | None, lookups: list[tuple[str, str]], fallback: str) -> str:
    for how, value in lookups:
        found = roster.find(how, value) if roster is not None and value else None
        if found:
            return found
    return fallback


def canvas(path: Path, roster: Roster | None) -> Found | None:
    """A Canvas download's file, or None if the name is not Canvas's."""
    m = CANVAS_ANON.fullmatch(path.name) or CANVAS.fullmatch(path.name)
    if m is None:
        return None
    anonymous = "name" not in m.groupdict()
    base = f"anon_{m['uid']}" if anonymous else f"{_slug(m['name']) or 'canvas'}_{m['uid']}"
    student = base if anonymous else _student(roster, [("canvas_id", m["uid"])], base)
    late = bool(m["late"])
    order = (f"{int(m['att']):030d}",)  # strings everywhere: orders of different platforms compare
    return Found(
        student_id=student,
        filename=m["file"],
        path=path,
        platform="canvas",
        order=order,
        late=late,
        name="" if anonymous else m["name"],
        extra={"canvas_user": m["uid"], "attachment": m["att"]},  # what canvas_times keys its times by
    )


def moodle(path: Path, roster: Roster | None, inner: str = "") -> Found | None:
    """A Moodle download's flat file, or the file `inner` in a per-learner folder `path`; None if not Moodle's."""
    m = MOODLE.fullmatch(path.name)
    if m is None or m["plugin"] != "file" or (not inner and not m["file"]):
        return None
    base = f"{_slug(m['name']) or 'moodle'}_{m['pid']}"
    by_id = _student(roster, [("moodle_id", m["pid"])], "")
    student = by_id or _student(roster, [("name", m["name"])], base)
    where = path / inner if inner else path
    found = Found(
        student_id=student, filename=inner or m["file"], path=where, platform="moodle", order=(), name=m["name"]
    )
    if not by_id and student != base:  # a name is the learner's own text: it yields to an id (latest)
        found.extra["by_name_else"] = base
    return found


def blackboard(path: Path, roster: Roster | None) -> Found | None:
    """A Blackboard download's file (its .txt receipt too), or None if not Blackboard's."""
    m = BLACKBOARD.fullmatch(path.name)
    if m is None:
        return None
    user, student = _blackboard_user(m["prefix"], roster)
    when = datetime.datetime.strptime(m["ts"], "%Y-%m-%d-%H-%M-%S")
    return Found(
        student_id=student,
        filename=m["file"] or "",
        path=path,
        platform="blackboard",
        order=(m["ts"],),
        submitted=when.isoformat(),
        name=user,
    )


def _blackboard_user(prefix: str, roster: Roster | None) -> tuple[str, str]:
    """(username, student id) of `<Assignment>_<username>`: both may hold '_', so the roster decides the split.

    The longest username the roster knows wins (`Homework 1_c_babbage` is c_babbage's when the
    roster lists c_babbage); with none known, the username is the part after the last '_'.
    """
    parts = prefix.split("_")
    for i in range(1, len(parts)):
        user = "_".join(parts[i:])
        found = _student(roster, [("blackboard_id", user), ("sis_login_id", user), ("id", user)], "")
        if found:
            return user, found
    return parts[-1], _slug(parts[-1]) or "bb"


def recognise(path: Path, is_dir: bool, roster: Roster | None) -> list[Found] | None:
    """The learner files a top-level entry of an LMS download stands for, or None if it is not one."""
    if is_dir:
        if MOODLE.fullmatch(path.name) is None:
            return None
        inner = [p.name for p in sorted(path.iterdir()) if _notebook_like(p.name)]
        return [f for f in (moodle(path, roster, name) for name in inner) if f is not None]
    if not path.name.lower().endswith((".ipynb", ".txt")):  # a <student_id>.zip is never an LMS file
        return None
    for reader in (blackboard, moodle, canvas):
        found = reader(path, roster)
        if found is not None:
            return [found]
    return None


def _notebook_like(name: str) -> bool:
    return name.lower().endswith(".ipynb") and not name.startswith(".")


def latest(found: list[Found], known: Callable[[str], str | None]) -> tuple[list[Found], list[Found]]:
    """(the latest copy of each learner's notebook, the older copies), renames undone in `filename`."""
    by_id = {f.student_id for f in found if "by_name_else" not in f.extra}
    for f in found:  # a learner the download names by id: a file that only takes their name is not theirs
        if f.extra.get("by_name_else") and f.student_id in by_id:
            f.student_id = f.extra["by_name_else"]
    groups: dict[tuple[str, str], list[tuple[tuple, Found]]] = {}
    for f in found:
        if not f.filename:  # a Blackboard receipt
            continue
        f.filename, copies = undo_renames(f.filename, known)
        notebook = known(f.filename) or f.filename
        groups.setdefault((f.student_id, notebook.lower()), []).append(((copies, *f.order), f))
    kept, older = [], []
    for group in groups.values():
        group.sort(key=lambda entry: entry[0], reverse=True)
        kept.append(group[0][1])
        older += [f for _, f in group[1:]]
    return kept, older
