"""Property-based fuzzing: intake and rebuild never raise, whatever a learner hands in.

Random and malformed notebook JSON, file and folder names (control characters, unicode,
spaces, very long), zips with hostile member names: intake.collect returns one item per
(student, notebook), each a submission or a row with a reason; rebuild.rebuild accepts any
JSON value as the submitted notebook. No kernel runs: the whole file takes seconds.
"""

from __future__ import annotations

import copy
import io
import json
import os
import tempfile
import zipfile
from pathlib import Path

import nbformat
import pytest
from support import make_submission

from autograder import paths
from autograder.material import answers
from autograder.results import NotebookResult
from autograder.results_folder import ResultsFolder
from autograder.run import rebuild, report, sheet
from autograder.submissions import ids, intake

hypothesis = pytest.importorskip("hypothesis", reason="hypothesis is not installed (pip install -r requirements.txt)")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

NB01 = "01_scaled_dot_product_attention"
GOOD = json.loads(nbformat.writes(make_submission(NB01, None)))
SOURCE = nbformat.read(paths.source_notebook(NB01), as_version=4)
RELEASE = nbformat.read(paths.NOTEBOOKS / f"{NB01}.ipynb", as_version=4)
KNOWN = {
    n: set(answers.answer_ids(nbformat.read(paths.source_notebook(n), as_version=4))) for n in paths.notebook_names()
}
FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck), database=None)

# Text a learner could type or a file system could hold: control characters, unicode, quotes.
texts = st.text(st.characters(codec="utf-8"), max_size=40) | st.sampled_from(
    [NB01, f"{NB01}.ipynb", "=1+1", "+SUM(1)", "@x", "-2", "\t=x", "\r", "..", "a/b", " ", "\x1b[31m", "‮", "total"]
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=20,
)
CELL_KEYS = ["cell_type", "source", "metadata", "outputs", "execution_count", "id"]
META_KEYS = ["grade_id", "solution", "grade", "locked", "points", "schema_version"]


@st.composite
def mutated_notebooks(draw) -> dict:
    """The learner's notebook with a few fields replaced by random JSON, cells copied, dropped or moved."""
    nb = copy.deepcopy(GOOD)
    for _ in range(draw(st.integers(0, 4))):
        if not nb["cells"]:
            break
        i = draw(st.integers(0, len(nb["cells"]) - 1))
        action = draw(st.sampled_from(["cell", "meta", "nbgrader", "drop", "copy", "swap", "replace"]))
        cell = nb["cells"][i] if isinstance(nb["cells"][i], dict) else {}
        if action == "cell":
            cell[draw(st.sampled_from(CELL_KEYS))] = draw(json_values)
        elif action == "meta" and isinstance(cell.get("metadata"), dict):
            cell["metadata"]["nbgrader"] = draw(json_values)
        elif (
            action == "nbgrader"
            and isinstance(meta := cell.get("metadata"), dict)
            and isinstance(meta.get("nbgrader"), dict)
        ):
            cell["metadata"]["nbgrader"][draw(st.sampled_from(META_KEYS))] = draw(json_values)
        elif action == "drop":
            del nb["cells"][i]
        elif action == "copy":
            nb["cells"].insert(draw(st.integers(0, len(nb["cells"]))), copy.deepcopy(cell))
        elif action == "swap":
            j = draw(st.integers(0, len(nb["cells"]) - 1))
            nb["cells"][i], nb["cells"][j] = nb["cells"][j], nb["cells"][i]
        else:
            nb["cells"][i] = draw(json_values)
    if draw(st.booleans()):
        nb[draw(st.sampled_from(["metadata", "nbformat", "nbformat_minor", "cells"]))] = draw(json_values)
    return nb


def _encode(value) -> bytes:
    return json.dumps(value, allow_nan=True).encode("utf-8", "surrogatepass")


contents = st.one_of(
    st.binary(max_size=200),
    json_values.map(_encode),
    mutated_notebooks().map(_encode),
    st.just(json.dumps(GOOD).encode()),
    st.integers(1, 3000).map(lambda n: b"[" * n + b"]" * n),
    mutated_notebooks().map(lambda nb: _encode(nb)[: len(_encode(nb)) // 2]),  # cut short
)
# File names a file system accepts: no '/' or NUL, at most 255 bytes, not '.' or '..'.
file_names = (
    st.text(st.characters(codec="utf-8", exclude_characters="/\x00"), min_size=1, max_size=60)
    | st.sampled_from([f"{NB01}.ipynb", f"{NB01.upper()}.IPYNB", "=HYPERLINK(1).ipynb", "x" * 249 + ".ipynb"])
    | st.text(max_size=20).map(lambda s: s.replace("/", "").replace("\x00", "") + ".ipynb")
).filter(lambda s: s not in (".", "..") and 0 < len(s.encode("utf-8", "surrogatepass")) <= 255)
member_names = file_names | st.sampled_from(
    [f"../{NB01}.ipynb", f"/abs/{NB01}.ipynb", f"sub/{NB01}.ipynb", f"{NB01}.ipynb/", "C:\\x.ipynb", "inner.zip"]
)


@st.composite
def zips(draw) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name in draw(st.lists(member_names, max_size=4)):
            zf.writestr(name, draw(contents))
    data = buf.getvalue()
    if draw(st.booleans()):  # damage it
        at = draw(st.integers(0, max(0, len(data) - 1)))
        data = data[:at] + draw(st.binary(max_size=8)) + data[at + 8 :]
    return data


@st.composite
def trees(draw) -> list[tuple[str, str, object]]:
    """Entries of SUBMISSIONS: (name, kind, payload)."""
    entries = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["folder", "zip", "file", "link"]))
        name = draw(st.sampled_from(["ann", "Ann", "bob.b", "c@d"]) | file_names)
        if kind == "folder":
            names = st.just(f"{NB01}.ipynb") | st.just(f"{NB01.upper()}.IPYNB") | file_names
            kinds = st.sampled_from(["file", "file", "file", "dir", "link"])
            files = draw(st.lists(st.tuples(names, kinds, contents), max_size=3))
            entries.append((name, kind, files))
        elif kind == "zip":
            entries.append((name + ".zip", kind, draw(zips())))
        else:
            entries.append((name, kind, draw(contents)))
    return entries


def _make(root: Path, entries) -> None:
    for name, kind, payload in entries:
        if len(name.encode()) > 255:
            continue  # a name no file system holds
        path = root / name
        if path.exists() or path.is_symlink():
            continue
        if kind == "folder":
            path.mkdir()
            for fname, fkind, data in payload:
                target = path / fname
                if target.exists() or target.is_symlink():
                    continue
                if fkind == "dir":
                    target.mkdir()
                elif fkind == "link":
                    os.symlink("/etc/passwd", target)
                else:
                    target.write_bytes(data)
        elif kind == "link":
            os.symlink(root.parent, path)
        else:
            path.write_bytes(payload)


def _check(items: list) -> None:
    keys = [(i.student_id, i.notebook) for i in items]
    assert len(keys) == len(set(keys))
    for item in items:
        assert ids.valid_id(item.student_id) or "~" in item.student_id, item.student_id
        base = item.notebook.removesuffix(intake.DUPLICATE)
        assert base in KNOWN or item.notebook in intake.LABELS, item.notebook
        path = ResultsFolder(Path("/out")).state_path(item.student_id, item.notebook)
        assert all(len(part.encode()) <= 255 and part.isprintable() for part in path.parts)
        if isinstance(item, intake.Submission):
            rebuild.rebuild(SOURCE, RELEASE, item.nb)
        else:
            assert item.status in ("rejected", "error") and item.errors
            assert all(isinstance(e, str) and len(e) <= intake.MAX_REASON_CHARS for e in item.errors)
    rows = [i for i in items if isinstance(i, NotebookResult)]
    for text in (report.grades_csv(rows), report.lms_csv(rows)):
        for line in text.splitlines():
            assert not line.startswith(sheet.FORMULA_STARTS)


@pytest.mark.filterwarnings("ignore:Duplicate name")  # zips that hold one name twice, on purpose
@FUZZ
@given(trees())
def test_collect_never_raises(entries):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "subs"
        root.mkdir()
        _make(root, entries)
        _check(intake.collect(root, KNOWN))


@settings(FUZZ, max_examples=300)
@given(contents)
def test_read_notebook_raises_only_value_error(data):
    try:
        nb = intake.read_notebook(data, "ann/x.ipynb")
    except ValueError as exc:
        assert str(exc).startswith("ann/x.ipynb")
        return
    rebuild.rebuild(SOURCE, RELEASE, nb)


@settings(FUZZ, max_examples=300)
@given(json_values | mutated_notebooks())
def test_rebuild_never_raises(submitted):
    out, flags = rebuild.rebuild(SOURCE, RELEASE, submitted)
    assert [c.cell_type for c in out.cells] == [c.cell_type for c in SOURCE.cells]
    assert all(isinstance(c.source, str) for c in out.cells)
    assert all(isinstance(f, str) and len(f) < 300 for f in flags)
    assert len(flags) <= 3 * len(SOURCE.cells) + 10
    nbformat.validate(out)
