"""Intake: find submissions in SUBMISSIONS/, validate them, and reject bad input with a reason."""

from __future__ import annotations

import hashlib
import json
import re
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path

import nbformat

from autograder.results import NotebookResult

STUDENT_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@+-]{0,63}$")
MAX_NOTEBOOK_BYTES = 20 * 2**20
MAX_ZIP_TOTAL_BYTES = 100 * 2**20
MAX_ZIP_MEMBERS = 200


@dataclass
class Submission:
    """One learner notebook to grade."""

    student_id: str
    notebook: str
    nb: nbformat.NotebookNode
    content_hash: str


def rejected(student_id: str, notebook: str, reason: str) -> NotebookResult:
    """A row for input that could not be graded, with the reason."""
    return NotebookResult(student_id=student_id, notebook=notebook, status="rejected", errors=[reason])


def read_notebook(data: bytes, where: str) -> nbformat.NotebookNode:
    """Parse notebook bytes; raise ValueError naming what is wrong."""
    if len(data) > MAX_NOTEBOOK_BYTES:
        raise ValueError(f"{where}: {len(data)} bytes, over the {MAX_NOTEBOOK_BYTES} byte limit")
    try:
        raw = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{where}: not a notebook (invalid JSON: {exc})") from None
    if not isinstance(raw, dict) or "cells" not in raw and "worksheets" not in raw:
        raise ValueError(f"{where}: JSON but not a Jupyter notebook (no cells)")
    major = raw.get("nbformat")
    if major != 4:
        raise ValueError(f"{where}: notebook format {major}, expected 4 (save it with Jupyter 4+)")
    try:
        nb = nbformat.reads(data.decode("utf-8"), as_version=nbformat.NO_CONVERT)  # joins line lists
        nbformat.validate(nb, relax_add_props=True)
    except Exception as exc:  # noqa: BLE001 - nbformat raises several types
        raise ValueError(f"{where}: invalid notebook structure ({str(exc).splitlines()[0][:200]})") from None
    return nb


def _answer_ids(nb) -> set[str]:
    ids = set()
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if isinstance(meta, dict) and meta.get("solution") and meta.get("grade_id"):
            ids.add(meta["grade_id"])
    return ids


def _from_bytes(student: str, filename: str, data: bytes, known: dict[str, set[str]], out: list) -> None:
    name = filename[: -len(".ipynb")] if filename.endswith(".ipynb") else filename
    if name not in known:
        out.append(
            rejected(
                student,
                name,
                f"unexpected file {filename!r}: expected one of {', '.join(sorted(k + '.ipynb' for k in known))}",
            )
        )
        return
    try:
        nb = read_notebook(data, f"{student}/{filename}")
    except ValueError as exc:
        out.append(rejected(student, name, str(exc)))
        return
    if known[name] and not _answer_ids(nb) & known[name]:
        out.append(
            rejected(
                student,
                name,
                f"{student}/{filename} has none of the notebook's answer cells "
                f"({', '.join(sorted(known[name]))}): is it the workbook's notebook?",
            )
        )
        return
    out.append(Submission(student, name, nb, hashlib.sha256(data).hexdigest()[:16]))


def _from_folder(folder: Path, known: dict[str, set[str]], out: list) -> None:
    files = [p for p in sorted(folder.iterdir()) if not p.name.startswith(".")]
    notebooks = [p for p in files if p.suffix == ".ipynb" and p.is_file() and not p.is_symlink()]
    if not notebooks:
        out.append(rejected(folder.name, "(none)", f"folder {folder.name!r} holds no .ipynb notebook"))
    for path in notebooks:
        _from_bytes(folder.name, path.name, path.read_bytes(), known, out)
    for path in files:
        if path.is_symlink():
            out.append(rejected(folder.name, path.name, f"{path.name!r} is a symbolic link; not followed"))


def _zip_problem(info: zipfile.ZipInfo) -> str | None:
    name = info.filename
    if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name):
        return f"absolute path {name!r}"
    if ".." in Path(name.replace("\\", "/")).parts:
        return f"path escapes the archive {name!r}"
    if stat.S_ISLNK(info.external_attr >> 16):
        return f"symbolic link {name!r}"
    return None


def _from_zip(path: Path, known: dict[str, set[str]], out: list) -> None:
    student = path.stem
    try:
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
            problems = [p for p in map(_zip_problem, infos) if p]
            total = sum(i.file_size for i in infos)
            if problems:
                raise ValueError(f"unsafe zip: {problems[0]}")
            if len(infos) > MAX_ZIP_MEMBERS or total > MAX_ZIP_TOTAL_BYTES:
                raise ValueError(f"zip too large when unpacked ({len(infos)} files, {total} bytes)")
            members = [
                i
                for i in infos
                if i.filename.endswith(".ipynb")
                and not i.is_dir()
                and "__MACOSX" not in i.filename
                and ".ipynb_checkpoints" not in i.filename
            ]
            if not members:
                raise ValueError("zip holds no .ipynb notebook")
            for info in members:
                if info.file_size > MAX_NOTEBOOK_BYTES:
                    raise ValueError(f"{info.filename} unpacks to {info.file_size} bytes, over the limit")
                _from_bytes(student, Path(info.filename).name, zf.read(info), known, out)
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        out.append(rejected(student, "(zip)", f"{path.name}: {exc}"))


def collect(submissions: Path, known: dict[str, set[str]]) -> list[Submission | NotebookResult]:
    """Every submission under `submissions`, or a rejected row saying why it can't be graded.

    `known` maps each notebook name to the grade_ids of its answer cells.
    """
    if not submissions.is_dir():
        raise FileNotFoundError(f"submissions folder {submissions} does not exist")
    out: list[Submission | NotebookResult] = []
    for entry in sorted(submissions.iterdir()):
        if entry.name.startswith("."):
            continue
        student = entry.stem if entry.suffix == ".zip" else entry.name
        if not STUDENT_ID.match(student):
            out.append(
                rejected(
                    re.sub(r"[^A-Za-z0-9_.@+-]", "_", student)[:64] or "_",
                    "(none)",
                    f"{entry.name!r} is not a valid student id (letters, digits, _.@+-)",
                )
            )
        elif entry.is_symlink():
            out.append(rejected(student, "(none)", f"{entry.name!r} is a symbolic link; not followed"))
        elif entry.is_dir():
            _from_folder(entry, known, out)
        elif entry.suffix == ".zip":
            _from_zip(entry, known, out)
        else:
            out.append(
                rejected(student, "(none)", f"{entry.name!r}: expected a folder <student_id>/ or a <student_id>.zip")
            )
    return _dedupe(out)


def _dedupe(items: list) -> list:
    """A folder and a zip for the same student and notebook: keep the first, reject the rest."""
    seen: set[tuple[str, str]] = set()
    out = []
    for item in items:
        key = (item.student_id, item.notebook)
        if isinstance(item, Submission) and key in seen:
            out.append(
                rejected(
                    item.student_id, f"{item.notebook}#duplicate", "submitted twice (folder and zip); graded the first"
                )
            )
            continue
        seen.add(key)
        out.append(item)
    return out
