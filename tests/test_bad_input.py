"""Bad input never stops a batch: each gets a row with a clear reason; the rest is graded."""

from __future__ import annotations

import io
import json
import os
import stat
import zipfile
from pathlib import Path

import nbformat
import pytest
from conftest import run_grade
from support import make_submission

from autograder import answers, intake, paths

NB01 = "01_scaled_dot_product_attention"
GOOD = nbformat.writes(make_submission(NB01, None))


def _zip(path: Path, members: dict[str, bytes], links: dict[str, str] | None = None) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, target)


def build_bad_inputs(root: Path) -> dict[str, str]:
    """A folder of bad submissions; returns student id -> text its reason must contain."""
    v3 = {"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"cells": []}]}
    scratch = nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1)")]))
    files = {
        "bad-json": (f"{NB01}.ipynb", b'{"cells": [ this is not json'),
        "not-notebook": (f"{NB01}.ipynb", b"\x89PNG\r\n\x1a\n binary"),
        "json-list": (f"{NB01}.ipynb", b"[1, 2, 3]"),
        "nbformat3": (f"{NB01}.ipynb", json.dumps(v3).encode()),
        "no-answers": (f"{NB01}.ipynb", scratch.encode()),
        "wrong-name": ("homework1.ipynb", GOOD.encode()),
    }
    for student, (name, data) in files.items():
        (root / student).mkdir()
        (root / student / name).write_bytes(data)
    (root / "empty-folder").mkdir()
    _zip(root / "zip-slip.zip", {f"../../{NB01}.ipynb": GOOD.encode()})
    _zip(root / "zip-absolute.zip", {f"/etc/{NB01}.ipynb": GOOD.encode()})
    _zip(root / "zip-symlink.zip", {}, links={f"{NB01}.ipynb": "/etc/passwd"})
    _zip(root / "zip-bomb.zip", {f"{NB01}.ipynb": b"0" * (300 * 2**20)})
    (root / "not-a-zip.zip").write_bytes(b"PK\x03\x04 truncated")
    (root / "stray-file.txt").write_text("hello")
    os.symlink("/etc", root / "link-folder")
    (root / "good").mkdir()
    (root / "good" / f"{NB01}.ipynb").write_text(GOOD)
    return {
        "bad-json": "invalid JSON",
        "not-notebook": "invalid JSON",
        "json-list": "not a Jupyter notebook",
        "nbformat3": "format 3",
        "no-answers": "answer cells",
        "wrong-name": "unexpected file",
        "empty-folder": "no .ipynb",
        "zip-slip": "escapes",
        "zip-absolute": "absolute path",
        "zip-symlink": "symbolic link",
        "zip-bomb": "too large",
        "not-a-zip": "zip",
        "stray-file.txt": "expected a folder",
        "link-folder": "symbolic link",
    }


def _known():
    return {
        n: set(answers.answer_ids(nbformat.read(paths.source_notebook(n), as_version=4)))
        for n in paths.notebook_names()
    }


def test_intake_rejects_each_bad_input_with_a_reason(tmp_path):
    expected = build_bad_inputs(tmp_path)
    items = intake.collect(tmp_path, _known())
    rows = {i.student_id: i for i in items}
    assert isinstance(rows["good"], intake.Submission)
    for student, reason in expected.items():
        row = rows.get(student) or rows.get(student.replace(".", "_"))
        assert row is not None, f"no row for {student}"
        assert row.status == "rejected", student
        assert reason.lower() in row.errors[0].lower(), (student, row.errors)


def test_missing_submissions_folder_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        intake.collect(tmp_path / "nope", _known())


@pytest.mark.slow
def test_bad_inputs_do_not_stop_the_batch(tmp_path):
    (tmp_path / "subs").mkdir()
    expected = build_bad_inputs(tmp_path / "subs")
    results = run_grade(tmp_path / "subs", tmp_path / "out")
    good = results[f"good/{NB01}"]
    assert good.status == "graded" and good.score == good.max_score
    students = {key.split("/")[0] for key in results}
    assert {s.replace(".", "_") for s in expected} <= {s.replace(".", "_") for s in students}
    csv_rows = (tmp_path / "out" / "grades.csv").read_text().splitlines()[1:]
    assert len(csv_rows) == len(results)
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    assert all(s["errors"] for s in data["submissions"] if s["status"] == "rejected")


def test_zip_reading_is_bounded():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(f"{NB01}.ipynb", GOOD)
    assert len(buf.getvalue()) < intake.MAX_ZIP_TOTAL_BYTES
