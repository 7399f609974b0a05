"""Bad submissions: a folder of every kind of broken, hostile or odd input, and one good notebook."""

from __future__ import annotations

import functools
import io
import json
import os
import stat
import struct
import zipfile
from pathlib import Path

import nbformat
from support import make_submission

NB01 = "01_scaled_dot_product_attention"
GOOD = nbformat.writes(make_submission(NB01, None))
FORMULA_NAMES = ['=HYPERLINK("evil.example","click").ipynb', "+1+1.ipynb", "@SUM(1).ipynb", "-2.ipynb"]


def write_zip(path: Path, members: dict[str, bytes], links: dict[str, str] | None = None) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, target)


@functools.cache
def _zeros_zip(mib: int) -> bytes:
    """A zip of one member, MiB zeros (deflated once per process: 300 MiB take a second)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(f"{NB01}.ipynb", b"0" * (mib * 2**20))
    return buf.getvalue()


def _lying_zip(path: Path) -> None:
    """A zip whose one member says it unpacks to 1000 bytes and really unpacks to 30 MiB."""
    data = bytearray(_zeros_zip(30))
    struct.pack_into("<I", data, 22, 1000)  # local header: uncompressed size
    struct.pack_into("<I", data, data.rfind(b"PK\x01\x02") + 24, 1000)  # central directory: the same
    path.write_bytes(bytes(data))


def _notebook_with(tweak) -> bytes:
    nb = json.loads(GOOD)
    tweak(nb)
    return json.dumps(nb).encode()


def _deep_metadata(nb: dict) -> None:
    value: object = 1
    for _ in range(500):
        value = [value]
    nb["metadata"]["deep"] = value


def _list_grade_ids(nb: dict) -> None:
    for cell in nb["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("solution"):
            meta["grade_id"] = [meta["grade_id"]]  # unhashable: crashed intake before


def build_bad_inputs(root: Path) -> dict[str, str]:
    """A folder of bad submissions and one good one; returns entry name -> text its reason must contain.

    None of these reaches a kernel: only 'good' is graded.
    """
    v3 = {"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"cells": []}]}
    scratch = nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1)")]))
    files = {
        "bad-json": (f"{NB01}.ipynb", b'{"cells": [ this is not json'),
        "not-notebook": (f"{NB01}.ipynb", b"\x89PNG\r\n\x1a\n binary"),
        "json-list": (f"{NB01}.ipynb", b"[1, 2, 3]"),
        "nbformat3": (f"{NB01}.ipynb", json.dumps(v3).encode()),
        "no-answers": (f"{NB01}.ipynb", scratch.encode()),
        "wrong-name": ("homework1.ipynb", GOOD.encode()),
        "deep-json": (f"{NB01}.ipynb", b"[" * 100_000),
        "deep-metadata": (f"{NB01}.ipynb", _notebook_with(_deep_metadata)),
        "lone-surrogate": (f"{NB01}.ipynb", GOOD.replace("YOUR CODE", "\\ud800", 1).encode()),
        "list-grade-ids": (f"{NB01}.ipynb", _notebook_with(_list_grade_ids)),
        "CASE-A": (f"{NB01}.ipynb", b"not json"),
        "case-a": (f"{NB01}.ipynb", GOOD.encode()),  # same id as CASE-A but for case: never graded
        "newline\n": (f"{NB01}.ipynb", GOOD.encode()),  # passed `$` before: must not be graded
        "tab\tid": (f"{NB01}.ipynb", GOOD.encode()),
        "ünïcødé": (f"{NB01}.ipynb", GOOD.encode()),
        "has space": (f"{NB01}.ipynb", GOOD.encode()),
        "x" * 255: (f"{NB01}.ipynb", GOOD.encode()),
        "\x1b[31mred": (f"{NB01}.ipynb", GOOD.encode()),
    }
    for student, (name, data) in files.items():
        (root / student).mkdir()
        (root / student / name).write_bytes(data)
    (root / "empty-folder").mkdir()
    (root / "nb-folder").mkdir()
    (root / "nb-folder" / f"{NB01}.ipynb").mkdir()  # a folder named like the notebook
    (root / "fifo").mkdir()
    os.mkfifo(root / "fifo" / f"{NB01}.ipynb")  # opening it would block the run forever
    (root / "sparse").mkdir()
    with open(root / "sparse" / f"{NB01}.ipynb", "wb") as fh:
        fh.truncate(200 * 2**30)  # 200 GB, sparse: reading it whole would take the machine down
    with open(root / "sparse-zip.zip", "wb") as fh:
        fh.truncate(200 * 2**30)
    (root / "long-names").mkdir()
    (root / "long-names" / ("n" * 249 + ".ipynb")).write_text(GOOD)  # 255 bytes: the longest a name can be
    os.symlink(root / "good", root / "long-names" / ("l" * 255))
    (root / "link-out").mkdir()
    os.symlink("/etc/passwd", root / "link-out" / f"{NB01}.ipynb")
    (root / "ctrl-names").mkdir()
    (root / "ctrl-names" / "\x1b]0;pwned\x07\r\x08évil name.ipynb").write_text(GOOD)
    (root / "formulas").mkdir()
    for name in FORMULA_NAMES:
        (root / "formulas" / name).write_text(GOOD)
    write_zip(root / "zip-slip.zip", {f"../../{NB01}.ipynb": GOOD.encode()})
    write_zip(root / "zip-absolute.zip", {f"/etc/{NB01}.ipynb": GOOD.encode()})
    write_zip(root / "zip-symlink.zip", {}, links={f"{NB01}.ipynb": "/etc/passwd"})
    (root / "zip-bomb.zip").write_bytes(_zeros_zip(300))  # unpacks to 300 MiB
    _lying_zip(root / "zip-lying.zip")
    write_zip(root / "zip-many.zip", {f"f{i}.txt": b"" for i in range(300)})
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as zf:
        zf.writestr(f"{NB01}.ipynb", GOOD)
    write_zip(root / "zip-nested.zip", {"inner.zip": inner.getvalue()})
    write_zip(
        root / "zip-names.zip",
        {"\x1b[2J=cmd|' /C calc'!A0.ipynb": b"{}", "ünï cødé.ipynb": b"{}", "y" * 3000 + ".ipynb": b"{}"},
    )
    with zipfile.ZipFile(root / "zip-dir.zip", "w") as zf:
        zf.writestr(zipfile.ZipInfo(f"sub/{NB01}.ipynb/"), b"")
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
        "deep-json": "nested too deeply",
        "deep-metadata": "nested more than 100 levels",
        "lone-surrogate": "not valid Unicode",
        "list-grade-ids": "answer cells",
        "CASE-A": "invalid JSON",
        "case-a": "only in case",
        "newline\n": "not a valid student id",
        "tab\tid": "not a valid student id",
        "ünïcødé": "not a valid student id",
        "has space": "not a valid student id",
        "x" * 255: "not a valid student id",
        "\x1b[31mred": "not a valid student id",
        "empty-folder": "no .ipynb",
        "nb-folder": "is a folder",
        "fifo": "not a regular file",
        "sparse": "over the 20.0 MiB limit",
        "sparse-zip.zip": "zip too large",
        "long-names": "unexpected file",
        "link-out": "symbolic link",
        "ctrl-names": "unexpected file",
        "formulas": "unexpected file",
        "zip-slip.zip": "escapes",
        "zip-absolute.zip": "absolute path",
        "zip-symlink.zip": "symbolic link",
        "zip-bomb.zip": "too large",
        "zip-lying.zip": "could not unpack",
        "zip-many.zip": "too large",
        "zip-nested.zip": "zips inside the zip are not opened",
        "zip-names.zip": "unexpected file",
        "zip-dir.zip": "is a folder",
        "not-a-zip.zip": "zip",
        "stray-file.txt": "expected a folder",
        "link-folder": "symbolic link",
    }
