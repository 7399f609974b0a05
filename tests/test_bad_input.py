"""Bad input never stops a batch: each gets a row with a clear reason; the rest is graded."""

from __future__ import annotations

import csv
import functools
import io
import json
import os
import time
import zipfile

import nbformat
import pytest
from bad_inputs import FORMULA_NAMES, GOOD, NB01, build_bad_inputs, write_zip

from autograder import paths
from autograder.gradebook import feedback
from autograder.gradebook.course import Course
from autograder.kernel import launchers
from autograder.kernel.limits import Limits
from autograder.material import answers
from autograder.results import NotebookResult
from autograder.results import TestResult as Verdict  # not 'Test*': pytest would collect it
from autograder.results_folder import ResultsFolder
from autograder.run import grade, pool, report, sheet
from autograder.submissions import ids, intake


@functools.cache
def _known() -> dict[str, set[str]]:
    """Each notebook's answer cell ids (read once: every row of every test checks against them)."""
    return {
        n: set(answers.answer_ids(nbformat.read(paths.source_notebook(n), as_version=4)))
        for n in paths.notebook_names()
    }


def _rows_of(items: list, entry: str) -> list:
    """The rows (or submissions) intake made for one entry of SUBMISSIONS."""
    student = entry[:-4] if entry.endswith(".zip") else entry
    ids = {student, intake.row_id(entry)}
    return [i for i in items if i.student_id in ids]


def _check_rows(items: list, expected: dict[str, str]) -> None:
    assert [i.student_id for i in items if isinstance(i, intake.Submission)] == ["good"]
    keys = [(i.student_id, i.notebook) for i in items]
    assert len(keys) == len(set(keys)), "two rows with the same student and notebook"
    for entry, reason in expected.items():
        rows = _rows_of(items, entry)
        assert rows, f"no row for {entry!r}"
        assert all(r.status == "rejected" for r in rows), (entry, rows)
        text = " | ".join(e for r in rows for e in r.errors)
        assert reason.lower() in text.lower(), (entry, text)
        for row in rows:  # the row is one of the course's notebooks or a fixed label, never a learner's name
            assert row.notebook in _known() or row.notebook in intake.LABELS, (entry, row.notebook)
            assert ids.valid_id(row.student_id) or "~" in row.student_id, (entry, row.student_id)


def test_intake_rejects_each_bad_input_with_a_reason(tmp_path):
    expected = build_bad_inputs(tmp_path)
    t0 = time.perf_counter()
    items = intake.collect(tmp_path, _known())
    assert time.perf_counter() - t0 < 60, "intake read something whole (the sparse file or the zip bomb)"
    _check_rows(items, expected)


def test_every_row_can_be_saved_and_loaded(tmp_path):
    """State file names come from a hash, not from what a learner named: none is too long or unsafe."""
    (tmp_path / "subs").mkdir()
    build_bad_inputs(tmp_path / "subs")
    rows = [i for i in intake.collect(tmp_path / "subs", _known()) if isinstance(i, NotebookResult)]
    folder = ResultsFolder(tmp_path / "out")
    for row in rows:
        folder.save(row, "digest")
    names = [p.name for p in folder.state_dir.rglob("*")]
    assert all(len(name.encode()) <= 255 and name.isprintable() for name in names)
    assert set(ResultsFolder(tmp_path / "out").states()) == {r.key for r in rows}  # read back from disk


def test_case_duplicates_folders_named_like_notebooks_and_links_in_a_folder(tmp_path):
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / f"{NB01}.ipynb").write_text(GOOD)
    (tmp_path / "subs" / "ann").mkdir(parents=True)
    (tmp_path / "subs" / "ann" / f"{NB01}.ipynb").write_text(GOOD)
    (tmp_path / "subs" / "ann" / f"{NB01.upper()}.ipynb").write_text(GOOD)  # the same notebook, by case
    (tmp_path / "subs" / "bob").mkdir()
    (tmp_path / "subs" / "bob" / f"{NB01}.ipynb").write_text(GOOD)
    (tmp_path / "subs" / "bob" / f"{NB01[:3].upper()}{NB01[3:]}.IPYNB").mkdir()  # a folder named like it
    (tmp_path / "subs" / "cy").mkdir()
    os.symlink(other / f"{NB01}.ipynb", tmp_path / "subs" / "cy" / f"{NB01}.ipynb")  # outside SUBMISSIONS
    os.symlink(other, tmp_path / "subs" / "dee")
    items = {(i.student_id, i.notebook): i for i in intake.collect(tmp_path / "subs", _known())}
    assert isinstance(items["ann", NB01], intake.Submission)
    assert "submitted twice" in items["ann", f"{NB01}#duplicate"].errors[0]
    assert isinstance(items["bob", NB01], intake.Submission)
    assert "is a folder" in items["bob", f"{NB01}#duplicate"].errors[0]
    assert "symbolic link; not followed" in items["cy", NB01].errors[0]
    assert "symbolic link; not followed" in items["dee", intake.WHOLE].errors[0]
    assert sum(isinstance(i, intake.Submission) for i in items.values()) == 2


def test_zip_members_duplicated_by_case_or_by_folder(tmp_path):
    write_zip(tmp_path / "ann.zip", {f"a/{NB01}.ipynb": GOOD.encode(), f"b/{NB01.upper()}.ipynb": GOOD.encode()})
    (tmp_path / "ann").mkdir()
    (tmp_path / "ann" / f"{NB01}.ipynb").write_bytes(b"{broken")
    items = {(i.student_id, i.notebook): i for i in intake.collect(tmp_path, _known())}
    assert isinstance(items["ann", NB01], intake.Submission)
    text = " | ".join(items["ann", f"{NB01}#duplicate"].errors)
    assert "invalid JSON" in text and "submitted twice" in text


def test_an_unexpected_failure_is_one_error_row(tmp_path, monkeypatch):
    (tmp_path / "ann").mkdir()
    (tmp_path / "ann" / f"{NB01}.ipynb").write_text(GOOD)
    (tmp_path / "zed").mkdir()
    (tmp_path / "zed" / f"{NB01}.ipynb").write_text(GOOD)
    real = intake._from_folder

    def flaky(folder, student, cat, out):
        if student == "ann":
            raise MemoryError("simulated")
        real(folder, student, cat, out)

    monkeypatch.setattr(intake, "_from_folder", flaky)
    items = {(i.student_id, i.notebook): i for i in intake.collect(tmp_path, _known())}
    assert items["ann", intake.WHOLE].status == "error"
    assert "could not read this submission (MemoryError" in items["ann", intake.WHOLE].errors[0]
    assert isinstance(items["zed", NB01], intake.Submission)


def test_a_submission_that_broke_the_grader_is_run_again_by_the_next_run(tmp_path, monkeypatch):
    """Issue 64 item 6: a grader-side failure is never the learner's: the next run grades it again, unchanged."""
    (tmp_path / "subs" / "ann").mkdir(parents=True)
    (tmp_path / "subs" / "ann" / f"{NB01}.ipynb").write_text(GOOD)
    opts = grade.Options(
        submissions=tmp_path / "subs",
        out=tmp_path / "out",
        sandbox=launchers.choose(unsafe=True),
        limits=Limits(),
        quiet=True,
    )
    course = Course(tmp_path / "out" / ".course")

    def todo():
        items = intake.collect(opts.submissions, _known())
        return grade._jobs(opts, items, course, b"secret", ResultsFolder(opts.out).states(), "digest")

    def broken(job, uid):
        raise RuntimeError("the grader tripped over this one")

    monkeypatch.setattr("autograder.run.worker.run_job", broken)  # pool.run_one imports it when called
    [job] = todo()
    result, executed = pool.run_one(job, 0)
    assert result.status == "error" and executed is None
    assert result.errors[0].startswith("grader error: ") and result.errors[0].endswith(
        "RuntimeError: the grader tripped over this one"
    )  # the exception itself, at the end of the traceback's last lines
    ResultsFolder(opts.out).save(result, "digest")
    assert len(todo()) == 1  # graded again, unchanged: the grader failed, not the learner
    graded = NotebookResult(student_id="ann", notebook=NB01, status="graded", content_hash=result.content_hash)
    ResultsFolder(opts.out).save(graded, "digest")
    assert todo() == []  # a grade on its merits is kept while nothing changes


def test_a_result_nbgrader_cannot_record_is_an_error_left_for_the_next_run(tmp_path):
    class Broken:
        calls = 0
        course = None  # no gradebook: nothing of a person's to bring in
        unfollowed = 0  # no anonymous formgrader view to tell of

        def record(self, result, digest, executed=None):
            Broken.calls += 1
            raise RuntimeError("nbgrader choked")

    result = NotebookResult(student_id="ann", notebook=NB01, status="graded", score=1, max_score=2, content_hash="abc")
    ResultsFolder(tmp_path / "out").save(result, "digest")
    folder = ResultsFolder(tmp_path / "out")
    Broken.folder = folder  # where _record_or_error saves the error row
    grade.finish(folder, Broken())
    saved = ResultsFolder(tmp_path / "out").states()[f"ann/{NB01}"].result  # as saved on disk
    assert saved.status == "error" and saved.errors[-1].endswith("RuntimeError: nbgrader choked")
    assert saved.retry_next_run  # the next run grades it again (grade._jobs), changed or not
    grade.finish(ResultsFolder(tmp_path / "out"), Broken())
    assert Broken.calls == 1  # this run's finish does not loop on it


def test_missing_submissions_folder_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        intake.collect(tmp_path / "nope", _known())


def _csv_rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def test_csv_cells_are_neutralised():
    assert sheet.csv_cell('=HYPERLINK("x")') == '"\'=HYPERLINK(""x"")"'
    for start in ("=", "+", "-", "@", "\t", "\r"):
        cell = sheet.csv_cell(f"{start}1+1")
        assert cell.startswith("\"'") and cell.endswith('"'), cell
        assert _csv_rows(cell + "\n") == [[f"'{start}1+1"]]
    assert sheet.csv_cell("plain") == "plain"
    assert sheet.csv_cell("a,b") == '"a,b"'


def test_exports_name_no_column_a_learner_chose(tmp_path):
    (tmp_path / "ann").mkdir()
    for name in [*FORMULA_NAMES, "total.ipynb", "student_id.ipynb"]:
        (tmp_path / "ann" / name).write_text(GOOD)
    (tmp_path / "ann" / f"{NB01}.ipynb").write_bytes(b"{broken")
    rows = intake.collect(tmp_path, _known())
    assert {r.notebook for r in rows} == {NB01, intake.UNEXPECTED}
    rows.append(
        NotebookResult(student_id="+bob", notebook=NB01, status="rejected", errors=["=1+1"])
    )  # as if an id could start so
    grades = _csv_rows(report.grades_csv(rows))
    assert grades[0][:4] == ["student_id", "notebook", "score", "max_score"]
    for row in grades[1:]:
        assert len(row) == len(report.GRADES_COLUMNS)
        assert row[1] in (NB01, intake.UNEXPECTED)
        for cell in row:
            assert not cell.startswith(sheet.FORMULA_STARTS), row
    unexpected = next(r for r in grades if r[1] == intake.UNEXPECTED)
    reason = unexpected[report.GRADES_COLUMNS.index("reason")]
    assert all(repr(name) in reason for name in FORMULA_NAMES[:2])  # quoted inside the reason only
    lms = _csv_rows(report.lms_csv(rows))
    assert lms[0] == ["student_id", *paths.notebook_names(), "total"]
    assert [r[0] for r in lms[1:]] == ["ann"]  # '+bob' is no valid id: grades.csv only


@pytest.mark.slow
def test_bad_inputs_do_not_stop_the_batch(graded_batch):
    """The bad inputs, in the session's grading batch (with the samples and the catalogue)."""
    expected, results, out = graded_batch["bad_inputs"], graded_batch["results"], graded_batch["out"]
    good = results[f"good/{NB01}"]
    assert good.status == "graded" and good.score == good.auto_max  # written answers wait for a person
    ids = {i for entry in expected for i in (entry.removesuffix(".zip"), intake.row_id(entry))}
    _check_rows([r for r in results.values() if r.student_id in ids] + [_as_submission(good)], expected)
    grades = _csv_rows((out / "grades.csv").read_text())
    assert len(grades) - 1 == len(results)
    assert all(not cell.startswith(sheet.FORMULA_STARTS) for row in grades for cell in row)
    lms = _csv_rows((out / "lms.csv").read_text())
    assert lms[0] == ["student_id", *paths.notebook_names(), "total"]
    data = json.loads((out / "results.json").read_text())
    assert all(s["errors"] for s in data["submissions"] if s["status"] == "rejected")


def _as_submission(result: NotebookResult) -> intake.Submission:
    return intake.Submission(
        student_id=result.student_id,
        notebook=result.notebook,
        nb=nbformat.v4.new_notebook(),
        content_hash=result.content_hash,
    )


def test_zip_reading_is_bounded():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(f"{NB01}.ipynb", GOOD)
    assert len(buf.getvalue()) < intake.MAX_ZIP_TOTAL_BYTES


PAYLOAD = "<script>document.title='PWNED'</script><img src=x onerror=alert(1)>"


def _kernel_outputs() -> list:
    """Outputs a learner's kernel can send: every active type, and malformed ones."""
    out = nbformat.v4.new_output
    return [
        out("display_data", data={"text/html": PAYLOAD, "text/plain": "<HTML object>"}),
        out("display_data", data={"image/svg+xml": f"<svg onload=alert(1)>{PAYLOAD}</svg>"}),
        out("display_data", data={"text/markdown": f"[x](javascript:alert(1)) {PAYLOAD}"}),
        out("display_data", data={"application/javascript": "alert(1)", "text/latex": PAYLOAD}),
        out("display_data", data={"application/vnd.jupyter.widget-view+json": {"model_id": "m"}}),
        out("display_data", data={"image/png": 'x" onerror="alert(1)'}),
        out(
            "display_data", data={"image/png": "iVBORw0KGgo="}, metadata={"image/png": {"width": "1 onerror=alert(1)"}}
        ),
        {
            "output_type": "execute_result",
            "data": {"text/html": PAYLOAD},
            "execution_count": "<script>",
            "metadata": {},
        },
        out("stream", name="stdout", text=PAYLOAD),
        {"output_type": "stream", "name": "<b>", "text": [PAYLOAD, "\ud800"]},
        out("error", ename="<b>E</b>", evalue=PAYLOAD, traceback=[PAYLOAD]),
        {"output_type": "mystery", "data": PAYLOAD},
        "not even an output",
    ]


def test_feedback_keeps_only_inert_outputs():
    """What nbgrader renders into the page holds no active output, and the notes are escaped text."""
    from nbconvert import HTMLExporter

    nb = nbformat.read(paths.source_notebook(NB01), as_version=4)
    answer = next(c for c in nb.cells if answers.is_answer(c))
    answer.outputs = _kernel_outputs()
    answer.execution_count = "<script>"
    nb.metadata["title"] = PAYLOAD
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": PAYLOAD}}
    result = NotebookResult(
        student_id="ann",
        notebook=NB01,
        status="graded",
        tests=[Verdict(name="t", score=0, max_score=1, status="failed", message=PAYLOAD)],
    )
    result.flags.append("unknown cell id '[x](javascript:alert(1))' ![i](http://tracker.example/x.png)")
    clean = feedback.sanitize(nb, result)
    nbformat.validate(clean)
    kept = {mime for o in next(c for c in clean.cells if answers.is_answer(c)).outputs for mime in o.get("data", {})}
    assert kept <= {"text/plain", "image/png"}
    page, _ = HTMLExporter(template_name="classic").from_notebook_node(clean)
    assert _active_markup(page) == []
    assert "PWNED" in page and "javascript:alert" in page  # shown, as text
    assert "tracker.example" in page


def _active_markup(page: str) -> list[str]:
    """Elements and attributes in an HTML page that could run or load something a learner chose.

    (The template's own script and style links are nbconvert's, blocked by the page's CSP.)
    """
    from html.parser import HTMLParser

    from autograder.gradebook import mathml

    found: list[str] = []

    class Parser(HTMLParser):
        script = False

        def handle_starttag(self, tag, attrs):
            self.script = tag == "script"
            for name, value in attrs:
                value = (value or "").strip().lower()
                if name.startswith("on") or value.startswith(("javascript:", "vbscript:")):
                    found.append(f"<{tag} {name}={value}>")
                media = tag in ("img", "image", "iframe", "embed", "object", "video", "audio", "source")
                if media and name in ("src", "href", "xlink:href", "data") and not value.startswith("data:image/"):
                    found.append(f"<{tag} {name}={value}>")
            if tag in ("svg", "iframe", "object", "embed"):
                found.append(f"<{tag}>")
            # MathML only as the course's formulas are rendered: allow-listed elements and attributes
            if tag in mathml.ELEMENTS and any(name not in mathml.ATTRIBUTES for name, _ in attrs):
                found.append(f"<{tag} {attrs}>")

        def handle_data(self, data):
            if self.script and ("PWNED" in data or "alert(" in data):
                found.append(f"<script>{data[:60]}")

    Parser().feed(page)
    return found


def test_feedback_page_gets_a_content_security_policy():
    page = "<!DOCTYPE html>\n<html>\n<HEAD lang=en>\n<meta charset=utf-8><script>x()</script></head></html>"
    safe = feedback.with_csp(page)
    assert safe.index(feedback.CSP_META) < safe.index("<script>") and safe.count(feedback.CSP_META) == 1
    assert "script-src" not in feedback.CSP and "default-src 'none'" in feedback.CSP
    assert feedback.with_csp("<p>no head</p>").startswith(f"<head>{feedback.CSP_META}</head>")
