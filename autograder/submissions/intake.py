"""Intake: find submissions in SUBMISSIONS/, validate them, and reject bad input with a reason.

Nothing found here can stop a batch: every entry becomes a submission to grade or a row
(status "rejected", or "error" if the grader itself failed on it) saying why not. Nothing
is trusted: sizes are checked before anything is read, symbolic links are never followed,
no special file is opened, and a name a learner chose never becomes a notebook column: it
is quoted (control characters escaped, cut short) inside the reason only.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import stat
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

import nbformat

from autograder.results import NotebookResult, Status
from autograder.submissions import canvas_times, lms
from autograder.submissions.ids import show, valid_id

if TYPE_CHECKING:
    from autograder.submissions.roster import Roster

MAX_NOTEBOOK_BYTES = 20 * 2**20
MAX_ZIP_TOTAL_BYTES = 100 * 2**20
MAX_ZIP_FILE_BYTES = MAX_ZIP_TOTAL_BYTES + 2**20  # the archive itself, checked before it is opened
MAX_ZIP_DIRECTORY_BYTES = 2**20  # its central directory (200 members with long names fit easily)
MAX_ZIP_MEMBERS = 200
MAX_JSON_DEPTH = 100  # real notebooks nest about 10 levels; deeper JSON only serves to crash a reader
MAX_REASONS = 10  # reasons kept in one row (several unexpected files, say), then "and N more"
MAX_REASON_CHARS = 1000

# Fixed labels for rows that are not one of the course's notebooks.
WHOLE = "(none)"  # the entry as a whole: a bad id, a link, a stray file, an empty folder
ZIP = "(zip)"  # a zip archive that cannot be opened or is unsafe
UNEXPECTED = "(unexpected file)"  # a file (or link) not named like any course notebook
DUPLICATE = "#duplicate"  # suffix: the same notebook handed in more than once
LABELS = (WHOLE, ZIP, UNEXPECTED)
# beside the submissions, not one: times typed in (autograder.run.late) or saved from Canvas (canvas_times)
INSTRUCTOR_FILES = ("timestamps.csv", canvas_times.FILE)


@dataclass(kw_only=True)
class Submission:
    """One learner notebook to grade."""

    student_id: str
    notebook: str
    nb: nbformat.NotebookNode
    content_hash: str
    source: str = ""  # where it came from, for messages: 'alice/01_x.ipynb' or 'alice.zip:01_x.ipynb'
    late: bool = False  # an LMS marked it late (Canvas's _LATE_)
    submitted: str = ""  # when it was handed in (ISO 8601), where the LMS download says

    @property
    def key(self) -> str:
        return f"{self.student_id}/{self.notebook}"


def rejected(student_id: str, notebook: str, reason: str, status: Status = Status.REJECTED) -> NotebookResult:
    """A row for input that could not be graded, with the reason."""
    return NotebookResult(student_id=student_id, notebook=notebook, status=status, errors=[reason])


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def row_id(name: str) -> str:
    """A safe stand-in id for an entry whose name is not a valid student id (unique per name)."""
    base = re.sub(r"[^A-Za-z0-9_.@+-]", "_", name)[:40].lstrip("_.@+-") or "invalid"
    return f"{base}~{_hash(name)[:8]}"  # '~' is never in a valid id: no clash with a real learner


def _plain(text: str) -> str:
    """A path as a message shows it: as it is when plain, else quoted like any learner-chosen name."""
    return text if re.fullmatch(r"[A-Za-z0-9_.@+/:-]{1,200}", text) else show(text)


def _size(n: int) -> str:
    if n >= 2**30:
        return f"{n / 2**30:.1f} GiB"
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n} bytes"


def _json_problem(value: object) -> str | None:
    """Why parsed JSON is unsafe to handle further: nesting too deep, or text that is not Unicode."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            return f"its JSON is nested more than {MAX_JSON_DEPTH} levels deep"
        if isinstance(item, dict):
            for key, sub in item.items():
                stack.append((key, depth))
                stack.append((sub, depth + 1))
        elif isinstance(item, list):
            stack.extend((sub, depth + 1) for sub in item)
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return "it holds text that is not valid Unicode (an unpaired surrogate escape)"
    return None


def read_notebook(data: bytes, where: str) -> nbformat.NotebookNode:
    """Parse notebook bytes; raise ValueError naming what is wrong (never anything else)."""
    if len(data) > MAX_NOTEBOOK_BYTES:
        raise ValueError(f"{where}: {_size(len(data))}, over the {_size(MAX_NOTEBOOK_BYTES)} limit for a notebook")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{where}: not a notebook (invalid JSON: not UTF-8 text, {exc.reason})") from None
    try:
        raw = json.loads(text)
    except RecursionError:
        raise ValueError(f"{where}: not a notebook (invalid JSON: nested too deeply to read)") from None
    except ValueError as exc:  # JSONDecodeError, and numbers too long to convert
        raise ValueError(f"{where}: not a notebook (invalid JSON: {str(exc)[:200]})") from None
    if not isinstance(raw, dict) or "cells" not in raw and "worksheets" not in raw:
        raise ValueError(f"{where}: JSON but not a Jupyter notebook (no cells)")
    major = raw.get("nbformat")
    if major != 4 or isinstance(major, bool):
        raise ValueError(
            f"{where}: notebook format {major if isinstance(major, int) else show(str(major)[:40])}, expected 4 (save it with Jupyter 4+)"
        )
    problem = _json_problem(raw)
    if problem:
        raise ValueError(f"{where}: not a usable notebook ({problem})")
    try:
        with warnings.catch_warnings():  # duplicate cell ids and the like: repaired, not worth a line each
            warnings.simplefilter("ignore")
            # joins line lists; a validation error is captured here (not logged) and raised just below
            nb = nbformat.reads(text, as_version=nbformat.NO_CONVERT, capture_validation_error={})
            nbformat.validate(nb, relax_add_props=True)
    except Exception as exc:  # noqa: BLE001 - nbformat raises several types, RecursionError included
        first = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
        raise ValueError(f"{where}: invalid notebook structure ({first})") from None
    return nb


def _answer_ids(nb) -> set[str]:
    ids = set()
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if isinstance(meta, dict) and meta.get("solution") and isinstance(meta.get("grade_id"), str):
            ids.add(meta["grade_id"])
    return ids


class _Catalog:
    """The course's notebooks: canonical names (matched ignoring case) and their answer cells."""

    def __init__(self, known: dict[str, set[str]]) -> None:
        self.known = known
        self.by_fold = {name.lower(): name for name in known}

    def exact(self, filename: str) -> str | None:
        """The course notebook a file name is ('01_x.ipynb', any case), or None."""
        if not filename.lower().endswith(".ipynb"):
            return None
        return self.by_fold.get(filename[: -len(".ipynb")].lower())

    def notebook(self, filename: str) -> str | None:
        """The course notebook a file name stands for, a browser's or LMS's copy suffix ' (1)', '-1' undone."""
        return self.exact(lms.undo_renames(filename, self.exact)[0])

    def order(self, filename: str) -> tuple[str, int, str]:
        """Sort key: copies of one notebook together, the highest copy number (the latest) first."""
        base, copies = lms.undo_renames(filename, self.exact)
        return base.lower(), -copies, filename

    def expected(self) -> str:
        names = sorted(self.known)
        return f"the course's notebooks are {names[0]}.ipynb to {names[-1]}.ipynb" if names else "the course has none"


def _from_bytes(student: str, notebook: str, where: str, data: bytes, cat: _Catalog, out: list) -> None:
    try:
        nb = read_notebook(data, where)
    except ValueError as exc:
        out.append(rejected(student, notebook, str(exc)))
        return
    wanted = cat.known[notebook]
    if wanted and not _answer_ids(nb) & wanted:
        out.append(
            rejected(
                student,
                notebook,
                f"{where} has none of the notebook's answer cells "
                f"({', '.join(sorted(wanted))}): is it the workbook's notebook?",
            )
        )
        return
    out.append(
        Submission(
            student_id=student,
            notebook=notebook,
            nb=nb,
            content_hash=hashlib.sha256(data).hexdigest()[:16],
            source=where,
        )
    )


def _read_regular(path: Path, size: int, where: str) -> bytes:
    """A regular file's bytes, its size checked first, read without following links or blocking."""
    if size > MAX_NOTEBOOK_BYTES:
        raise ValueError(f"{where}: {_size(size)}, over the {_size(MAX_NOTEBOOK_BYTES)} limit for a notebook")
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError(f"{where}: not a regular file")
        data = fh.read(MAX_NOTEBOOK_BYTES + 1)  # a file that grew since: still bounded
    if len(data) > MAX_NOTEBOOK_BYTES:
        raise ValueError(f"{where}: over the {_size(MAX_NOTEBOOK_BYTES)} limit for a notebook")
    return data


def _from_folder(folder: Path, student: str, cat: _Catalog, out: list) -> None:
    found = False
    for path in sorted(folder.iterdir(), key=lambda p: cat.order(p.name)):
        name = path.name
        if name.startswith("."):
            continue  # .ipynb_checkpoints, .DS_Store, ...
        mode = path.lstat().st_mode
        notebook = cat.notebook(name)
        if stat.S_ISDIR(mode) and (collected := cat.exact(f"{name}.ipynb")):
            found = True
            _from_collected(path, student, collected, cat, out)
            continue
        if stat.S_ISLNK(mode):
            found = True
            out.append(
                rejected(
                    student, notebook or UNEXPECTED, f"{_plain(f'{student}/{name}')} is a symbolic link; not followed"
                )
            )
            continue
        if not name.lower().endswith(".ipynb"):
            continue  # other files (data, scripts) are not graded
        found = True
        if notebook is None:
            out.append(rejected(student, UNEXPECTED, f"unexpected file {show(name)}: {cat.expected()}"))
        elif stat.S_ISDIR(mode):
            out.append(rejected(student, notebook, f"{student}/{name} is a folder, not a notebook file"))
        elif not stat.S_ISREG(mode):
            out.append(rejected(student, notebook, f"{student}/{name} is not a regular file"))
        else:
            where = f"{student}/{name}"
            try:
                data = _read_regular(path, path.lstat().st_size, where)
            except (ValueError, OSError) as exc:
                out.append(rejected(student, notebook, str(exc) if isinstance(exc, ValueError) else f"{where}: {exc}"))
                continue
            _from_bytes(student, notebook, where, data, cat, out)
    if not found:
        out.append(rejected(student, WHOLE, f"folder {show(folder.name)} holds no .ipynb notebook"))


def _from_collected(folder: Path, student: str, notebook: str, cat: _Catalog, out: list) -> None:
    """nbgrader collect's layout: <student>/<notebook>/<notebook>.ipynb, with its timestamp.txt."""
    where = f"{student}/{folder.name}/{notebook}.ipynb"
    path = folder / f"{notebook}.ipynb"
    try:
        mode = path.lstat().st_mode
        if not stat.S_ISREG(mode):
            raise ValueError(f"{_plain(where)} is not a regular file")
        data = _read_regular(path, path.lstat().st_size, where)
    except FileNotFoundError:
        out.append(
            rejected(student, notebook, f"folder {_plain(f'{student}/{folder.name}')} holds no {notebook}.ipynb")
        )
        return
    except (ValueError, OSError) as exc:
        out.append(rejected(student, notebook, str(exc) if isinstance(exc, ValueError) else f"{where}: {exc}"))
        return
    before = len(out)
    _from_bytes(student, notebook, where, data, cat, out)
    if len(out) > before and isinstance(out[-1], Submission):
        out[-1].submitted = _nbgrader_time(folder / "timestamp.txt")


def _nbgrader_time(path: Path) -> str:
    """An nbgrader timestamp.txt's time as ISO 8601 (UTC where none is given), or ""."""
    try:
        text = _read_regular(path, path.lstat().st_size, path.name).decode("utf-8").strip()
        moment = datetime.datetime.fromisoformat(text.removesuffix(" UTC"))
    except (OSError, ValueError):
        return ""
    return (moment if moment.tzinfo else moment.replace(tzinfo=datetime.UTC)).isoformat()


def _zip_problem(info: zipfile.ZipInfo) -> str | None:
    name = info.filename
    if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name):
        return f"absolute path {show(name)}"
    if ".." in PurePosixPath(name.replace("\\", "/")).parts:
        return f"path escapes the archive {show(name)}"
    if stat.S_ISLNK(info.external_attr >> 16):
        return f"symbolic link {show(name)}"
    return None


def _directory_problem(fh) -> str | None:
    """Check the archive's own account of its central directory before zipfile parses all of it."""
    try:  # zipfile's private reader of the end record: the only way short of parsing every entry
        end = zipfile._EndRecData(fh)  # type: ignore[attr-defined]  # noqa: SLF001 - private, not in the stubs
        entries, size = end[zipfile._ECD_ENTRIES_TOTAL], end[zipfile._ECD_SIZE]  # type: ignore[attr-defined]  # noqa: SLF001
    except Exception:  # noqa: BLE001 - no end record, or another Python: ZipFile itself says what is wrong
        return None
    if entries > MAX_ZIP_MEMBERS or size > MAX_ZIP_DIRECTORY_BYTES:
        return f"zip too large: its directory lists {entries} files in {_size(size)} (at most {MAX_ZIP_MEMBERS} files)"
    return None


def _from_zip(path: Path, student: str, size: int, cat: _Catalog, out: list) -> None:
    where = path.name
    if size > MAX_ZIP_FILE_BYTES:
        out.append(
            rejected(
                student, ZIP, f"{_plain(where)}: zip too large ({_size(size)}, at most {_size(MAX_ZIP_FILE_BYTES)})"
            )
        )
        return
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ValueError("not a regular file")
            problem = _directory_problem(fh)
            if problem:
                raise ValueError(problem)
            with zipfile.ZipFile(fh) as zf:
                _zip_members(zf, where, student, cat, out)
    except Exception as exc:  # noqa: BLE001 - BadZipFile, but a damaged archive can raise almost anything
        out.append(rejected(student, ZIP, f"{_plain(where)}: {str(exc)[:300] or type(exc).__name__}"))


def _zip_members(zf: zipfile.ZipFile, where: str, student: str, cat: _Catalog, out: list) -> None:
    infos = zf.infolist()
    if len(infos) > MAX_ZIP_MEMBERS:
        raise ValueError(f"zip too large: {len(infos)} files (at most {MAX_ZIP_MEMBERS})")
    problems = [p for p in map(_zip_problem, infos) if p]
    if problems:
        raise ValueError(f"unsafe zip: {problems[0]}")
    total = sum(i.file_size for i in infos)
    if total > MAX_ZIP_TOTAL_BYTES:
        raise ValueError(f"zip too large when unpacked ({len(infos)} files, {_size(total)} declared)")
    found, nested = False, False
    for info in infos:
        name = info.filename.replace("\\", "/")
        if "__MACOSX" in name or ".ipynb_checkpoints" in name:
            continue
        base = PurePosixPath(name).name
        nested = nested or base.lower().endswith(".zip")
        if not base.lower().endswith(".ipynb"):
            continue
        found = True
        notebook = cat.notebook(base)
        if notebook is None:
            out.append(
                rejected(
                    student,
                    UNEXPECTED,
                    f"unexpected file {show(name)} in {_plain(where)}: {cat.expected()}",
                )
            )
        elif info.is_dir():
            out.append(rejected(student, notebook, f"{_plain(where)}: {show(name)} is a folder, not a notebook file"))
        elif info.file_size > MAX_NOTEBOOK_BYTES:
            out.append(
                rejected(
                    student,
                    notebook,
                    f"{_plain(where)}: {show(name)} unpacks to {_size(info.file_size)}, over the limit",
                )
            )
        else:
            member = f"{where}:{name}"
            try:
                with zf.open(info) as fh:
                    data = fh.read(MAX_NOTEBOOK_BYTES + 1)  # what it really unpacks to, bounded
            except Exception as exc:  # noqa: BLE001 - bad CRC, encrypted, unknown compression, ...
                out.append(rejected(student, notebook, f"{_plain(member)}: could not unpack ({str(exc)[:200]})"))
                continue
            _from_bytes(student, notebook, _plain(member), data, cat, out)
    if not found:
        raise ValueError("zip holds no .ipynb notebook" + (" (zips inside the zip are not opened)" if nested else ""))


def _entry(entry: Path, cat: _Catalog, first_case: dict[str, str], out: list) -> None:
    name = entry.name
    mode = entry.lstat().st_mode
    is_zip = name.lower().endswith(".zip") and not stat.S_ISDIR(mode)
    student = name[: -len(".zip")] if is_zip else name
    if not valid_id(student):
        out.append(
            rejected(
                row_id(name),
                WHOLE,
                f"{show(name)} is not a valid student id "
                "(1-64 letters, digits and _.@+-, starting with a letter or digit)",
            )
        )
        return
    first = first_case.setdefault(student.lower(), student)
    if first != student:
        out.append(
            rejected(
                student,
                WHOLE,
                f"student id {show(student)} differs from {show(first)} only in case; not graded "
                "(rename one: ids must differ by more than case)",
            )
        )
    elif stat.S_ISLNK(mode):
        out.append(rejected(student, WHOLE, f"{show(name)} is a symbolic link; not followed"))
    elif stat.S_ISDIR(mode):
        _from_folder(entry, student, cat, out)
    elif is_zip and stat.S_ISREG(mode):
        _from_zip(entry, student, entry.lstat().st_size, cat, out)
    else:
        out.append(rejected(student, WHOLE, f"{show(name)}: expected a folder <student_id>/ or a <student_id>.zip"))


def any_submission(folder: Path, notebooks: set[str]) -> bool:
    """Whether some entry of `folder` looks like a submission: a zip, a notebook, a folder holding either.

    A shallow look (no file is read) for the grade command's "did you mean": a folder of learners, an
    LMS download and nbgrader's collected layout all pass; their parent, or a results folder, does not.
    """
    for entry in _visible(folder):
        name = entry.name.lower()
        if name.endswith((".zip", ".ipynb")) and entry.is_file():
            return True
        if entry.is_dir() and not entry.is_symlink() and any(_inner(entry, notebooks)):
            return True
    return False


def _visible(folder: Path) -> list[Path]:
    """A folder's entries that intake reads (no hidden file, no instructor's file); none if it cannot be listed."""
    try:
        return sorted(e for e in folder.iterdir() if not e.name.startswith(".") and e.name not in INSTRUCTOR_FILES)
    except OSError:
        return []


def _inner(folder: Path, notebooks: set[str]):
    """A learner folder's entries that are submissions: notebooks, or nbgrader's <notebook>/ folders."""
    return (e for e in _visible(folder) if e.name.lower().endswith(".ipynb") or (e.is_dir() and e.name in notebooks))


def collect(
    submissions: Path, known: dict[str, set[str]], roster: Roster | None = None
) -> list[Submission | NotebookResult]:
    """Every submission under `submissions`, or a rejected row saying why it can't be graded.

    `known` maps each notebook name to the grade_ids of its answer cells. Entries named as
    a Canvas, Moodle or Blackboard download names them are read as such (autograder.submissions.lms),
    their learners found in `roster` if given. Only a missing `submissions` folder raises;
    each item of the result has its own (student, notebook).
    """
    if not submissions.is_dir():
        raise FileNotFoundError(f"submissions folder {submissions} does not exist")
    cat = _Catalog(known)
    out: list[Submission | NotebookResult] = []
    first_case: dict[str, str] = {}
    entries = sorted(e for e in submissions.iterdir() if not e.name.startswith(".") and e.name not in INSTRUCTOR_FILES)
    plain = _lms_entries(entries, cat, roster, out, canvas_times.load(submissions))
    for entry in plain:
        try:
            _entry(entry, cat, first_case, out)
        except Exception as exc:  # noqa: BLE001 - the last resort: one entry never stops the batch
            student = entry.name[:-4] if entry.name.lower().endswith(".zip") else entry.name
            reason = f"{show(entry.name)}: the grader could not read this submission ({type(exc).__name__}: {str(exc)[:200]})"
            out.append(rejected(student if valid_id(student) else row_id(entry.name), WHOLE, reason, Status.ERROR))
    return _settle(out)


def _lms_entries(
    entries: list[Path], cat: _Catalog, roster: Roster | None, out: list, times: canvas_times.Times
) -> list[Path]:
    """Read the entries an LMS download named (the latest copy of each notebook); returns the others."""
    found, plain = [], []
    for entry in entries:
        try:
            got = lms.recognise(entry, stat.S_ISDIR(entry.lstat().st_mode), roster)
        except (OSError, ValueError):
            got = None  # read as a plain entry, which reports what is wrong with it
        if got is None:
            plain.append(entry)
        else:
            found += got
    kept, _older = lms.latest(found, cat.exact)
    for item in (f for f in kept if f.platform == "canvas"):  # Canvas's names give no time: its API list does
        user = item.extra.get("canvas_user", "")
        item.submitted = item.submitted or times.when(user, item.extra.get("attachment", ""))
        item.late = item.late or user in times.late
    for item in kept:
        try:
            _lms_file(item, cat, out)
        except Exception as exc:  # noqa: BLE001 - one entry never stops the batch
            where = show(item.path.name)
            out.append(
                rejected(
                    row_id(item.path.name), WHOLE, f"{where}: could not be read ({type(exc).__name__})", Status.ERROR
                )
            )
    return plain


def _lms_file(item: lms.Found, cat: _Catalog, out: list) -> None:
    """One learner file of an LMS download: checked and read as a folder's file is."""
    where = _plain(item.path.name if item.platform != "moodle" else f"{item.path.parent.name}/{item.path.name}")
    if not valid_id(item.student_id):
        out.append(
            rejected(row_id(item.path.name), WHOLE, f"{where}: no valid student id in this {item.platform} name")
        )
        return
    notebook = cat.exact(item.filename)
    if notebook is None:
        out.append(
            rejected(item.student_id, UNEXPECTED, f"unexpected file {show(item.filename)} in {where}: {cat.expected()}")
        )
        return
    mode = item.path.lstat().st_mode
    if stat.S_ISLNK(mode) or not stat.S_ISREG(mode):
        out.append(rejected(item.student_id, notebook, f"{where} is not a regular file; not read"))
        return
    try:
        data = _read_regular(item.path, item.path.lstat().st_size, where)
    except (ValueError, OSError) as exc:
        out.append(rejected(item.student_id, notebook, str(exc) if isinstance(exc, ValueError) else f"{where}: {exc}"))
        return
    _from_bytes(item.student_id, notebook, where, data, cat, out)
    if isinstance(out[-1], Submission):
        out[-1].late, out[-1].submitted = item.late, item.submitted


def _settle(items: list) -> list:
    """One item per (student, notebook): the first submission is graded; the rest become one row each.

    A notebook handed in twice (folder and zip, two names differing only in case, two
    members of one zip) keeps the first; the others, and any rejected copy, are reported
    under '<notebook>#duplicate'. Several rejected rows with the same key are merged.
    """
    groups: dict[tuple[str, str], list] = {}
    for item in items:
        groups.setdefault((item.student_id, item.notebook), []).append(item)
    out: list = []
    for (student, notebook), group in groups.items():
        subs = [i for i in group if isinstance(i, Submission)]
        rows = [i for i in group if not isinstance(i, Submission)]
        if subs:
            out.append(subs[0])
            reasons = [
                f"{s.source} is the same notebook as {subs[0].source} (submitted twice); {subs[0].source} was graded"
                for s in subs[1:]
            ]
            reasons += [f"also handed in: {e}" for r in rows for e in r.errors]
            if reasons:
                error = any(r.status == Status.ERROR for r in rows)
                out.append(
                    _merged(student, f"{notebook}{DUPLICATE}", reasons, Status.ERROR if error else Status.REJECTED)
                )
        elif len(rows) == 1:
            out.append(_merged(student, notebook, rows[0].errors, rows[0].status))
        else:
            error = any(r.status == Status.ERROR for r in rows)
            out.append(
                _merged(
                    student, notebook, [e for r in rows for e in r.errors], Status.ERROR if error else Status.REJECTED
                )
            )
    return out


def _merged(student: str, notebook: str, reasons: list[str], status: Status) -> NotebookResult:
    kept = [r[:MAX_REASON_CHARS] for r in reasons[:MAX_REASONS]]
    if len(reasons) > MAX_REASONS:
        kept.append(f"and {len(reasons) - MAX_REASONS} more like these")
    return NotebookResult(student_id=student, notebook=notebook, status=status, errors=kept)
