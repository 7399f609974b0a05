"""The class roster: who is enrolled, their names and emails, and the ids each LMS knows them by.

A CSV with a header row. `id` is required (the student id the grader uses: a folder name,
a row of grades.csv); every other column is optional:

    id,name,email,canvas_id,sis_user_id,sis_login_id,moodle_id,blackboard_id,section

`name` is "Given Family" (or "Family, Given"); `canvas_id` is Canvas's numeric user id (the
`ID` column of its gradebook export), `sis_user_id` / `sis_login_id` its SIS columns;
`moodle_id` is the number Moodle puts in download names (the participant identifier);
`blackboard_id` the Blackboard username. Columns are matched ignoring case and spaces.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from autograder.submissions import ids

COLUMNS = ("id", "name", "email", "canvas_id", "sis_user_id", "sis_login_id", "moodle_id", "blackboard_id", "section")
MAX_ROSTER_BYTES = 10 * 2**20


class RosterError(ValueError):
    """A roster that cannot be used, with the line and the reason."""


@dataclass(frozen=True, kw_only=True)
class Learner:
    """One enrolled learner."""

    id: str
    name: str = ""
    email: str = ""
    canvas_id: str = ""
    sis_user_id: str = ""
    sis_login_id: str = ""
    moodle_id: str = ""
    blackboard_id: str = ""
    section: str = ""

    @property
    def first_last(self) -> tuple[str, str]:
        """(first name, last name) from `name` ("Given Family" or "Family, Given")."""
        if "," in self.name:
            last, first = (p.strip() for p in self.name.split(",", 1))
            return first, last
        parts = self.name.split()
        return (" ".join(parts[:-1]), parts[-1]) if len(parts) > 1 else ("", self.name.strip())


class Roster:
    """Learners by student id, and lookups by the ids and names LMS downloads carry."""

    def __init__(self, learners: list[Learner]) -> None:
        self.learners = {x.id: x for x in learners}
        self._by: dict[tuple[str, str], str] = {}
        for x in learners:
            for field in ("canvas_id", "sis_user_id", "sis_login_id", "moodle_id", "blackboard_id", "email"):
                value = getattr(x, field).strip().casefold()
                if value:
                    self._by.setdefault((field, value), x.id)
            if x.name:
                self._by.setdefault(("name", _name_key(x.name)), x.id)
            self._by.setdefault(("id", x.id.casefold()), x.id)

    def find(self, field: str, value: str) -> str | None:
        """The student id whose `field` is `value` ("name" compares names loosely), or None."""
        key = _name_key(value) if field == "name" else value.strip().casefold()
        return self._by.get((field, key))

    def get(self, student_id: str) -> Learner | None:
        """The learner with this student id, if enrolled."""
        return self.learners.get(student_id)


def _name_key(name: str) -> str:
    """A name compared ignoring case, spacing and the "Family, Given" order."""
    if "," in name:
        last, first = name.split(",", 1)
        name = f"{first} {last}"
    return " ".join(name.casefold().split())


def load(path: Path) -> Roster:
    """Read a roster CSV; RosterError names the line of anything wrong."""
    data = path.read_bytes()
    if len(data) > MAX_ROSTER_BYTES:
        raise RosterError(f"{path}: over {MAX_ROSTER_BYTES // 2**20} MiB; is it a roster?")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise RosterError(
            f"{path}:{line}: not UTF-8 (byte {data[exc.start]:#04x}); save it as 'CSV UTF-8' "
            "(Excel: File > Save As > CSV UTF-8) and grade again"
        ) from None
    reader = csv.DictReader(io.StringIO(text))
    header = {(h or "").strip().lower().replace(" ", "_"): h for h in reader.fieldnames or []}
    if "id" not in header:
        raise RosterError(f"{path}: no 'id' column (the header is {', '.join(reader.fieldnames or [])!s})")
    learners, seen = [], set()
    for line, row in enumerate(reader, start=2):
        values = {c: (row.get(header[c]) or "").strip() for c in COLUMNS if c in header}
        if not any(values.values()):
            continue
        if not ids.valid_id(values["id"]):
            raise RosterError(f"{path}:{line}: {ids.show(values['id'])} is not a valid student id")
        if values["id"].casefold() in seen:
            raise RosterError(f"{path}:{line}: student id {values['id']!r} is listed twice")
        seen.add(values["id"].casefold())
        learners.append(Learner(**values))
    return Roster(learners)


def to_gradebook(roster: Roster, db_path: Path, course_id: str) -> None:
    """Every enrolled learner in nbgrader's gradebook with their name and email (formgrader's Students list)."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{db_path}", course_id) as gb:
        for x in roster.learners.values():
            first, last = x.first_last
            gb.update_or_create_student(x.id, first_name=first or None, last_name=last or None, email=x.email or None)
