"""The similarity report on the project's own answers: disguised copies found, independent answers not."""

from __future__ import annotations

import pytest
from support import CATALOGUE

from autograder import paths
from autograder.material import answers
from autograder.results_folder import ResultsFolder
from autograder.run import similarity
from benchmarks.disguise import VARIANTS, disguise

NAMES = paths.notebook_names()


def _doc(owner: str, notebook: str, cells: dict[str, str]) -> similarity.Doc:
    return similarity.fingerprint(similarity.Doc(owner, notebook, cells), similarity.boilerplate(notebook))


def _reference(notebook: str) -> similarity.Doc:
    return _doc(similarity.REFERENCE, notebook, similarity.reference_doc(notebook).cells)


@pytest.mark.parametrize("notebook", NAMES)
def test_the_reference_pasted_with_renamed_variables_is_flagged(notebook):
    ref = _reference(notebook)
    for steps in (("rename",), ("rename", "reorder", "comments"), ("dead",), VARIANTS[-1]):  # the last: all of them
        copy = _doc("run:copier", notebook, {c: disguise(code, steps, seed=3) for c, code in ref.cells.items()})
        pair = similarity.compare(ref, copy)
        assert pair.flagged_at >= similarity.THRESHOLD, (steps, pair.score, pair.nodes)


def test_independent_correct_answers_are_not_flagged():
    notebook = "02_masks"
    ref = _reference(notebook)
    for entry in ("right_arange_where", "right_expand_full"):  # written apart from the reference
        cells = answers.load_answer_file(CATALOGUE / notebook / f"{entry}.py")
        pair = similarity.compare(ref, _doc(f"run:{entry}", notebook, cells))
        assert pair.cells and pair.flagged_at < similarity.THRESHOLD, (entry, pair.score, pair.nodes)
    one = answers.load_answer_file(CATALOGUE / notebook / "right_arange_where.py")
    two = answers.load_answer_file(CATALOGUE / notebook / "right_expand_full.py")
    assert similarity.compare(_doc("run:a", notebook, one), _doc("run:b", notebook, two)).flagged_at < 0.5


INDEPENDENT = sorted(p.parent.name for p in CATALOGUE.glob("*/right_independent_learner.py"))


@pytest.mark.parametrize("notebook", INDEPENDENT)
def test_a_whole_notebook_written_apart_is_not_flagged(notebook):
    """The contract dictates names and structure (09's LanguageModel): placeholders and the starter take them out."""
    cells = answers.load_answer_file(CATALOGUE / notebook / "right_independent_learner.py")
    pair = similarity.compare(_reference(notebook), _doc("run:own", notebook, cells))
    assert len(pair.cells) == len(cells) and pair.score < similarity.THRESHOLD, (pair.score, pair.nodes)


def test_the_issue_disguise_of_01_is_flagged():
    """The reference of 01 with renamed variables, reordered lines, new comments and an unused line."""
    code = similarity.reference_doc("01_scaled_dot_product_attention").cells["sdpa"]
    copy = disguise(code, ("rename", "reorder", "dead", "comments"), seed=11)
    pair = similarity.compare(_reference("01_scaled_dot_product_attention"),
                              _doc("run:x", "01_scaled_dot_product_attention", {"sdpa": copy}))  # fmt: skip
    assert pair.cells["sdpa"][0] >= similarity.THRESHOLD, pair.cells["sdpa"][0]


def test_short_pairs_are_listed_and_marked_short():
    """A near-identical pair is listed whatever its size; one under SHORT of the reference's code says so."""
    notebook = "09_language_model"
    ref = _reference(notebook)
    cell = min(ref.prints, key=lambda c: ref.prints[c].counted)
    copy = _doc("run:x", notebook, {cell: disguise(ref.cells[cell], ("rename",), seed=1)})
    found = [p for p in similarity.pairs([similarity.Doc("run:x", notebook, copy.cells)]) if p.b.owner == "run:x"]
    assert found and found[0].flagged_at >= similarity.THRESHOLD and found[0].short
    whole = similarity.pairs([similarity.Doc("run:y", notebook, dict(ref.cells))])
    assert whole[0].flagged_at >= similarity.THRESHOLD and not whole[0].short


@pytest.mark.parametrize("notebook", NAMES[:3])
def test_starter_code_never_counts(notebook):
    import nbformat

    student = nbformat.read(paths.NOTEBOOKS / f"{notebook}.ipynb", as_version=4)
    stubs = {answers.grade_id(c): c.source for c in student.cells if answers.is_answer(c)}
    a, b = _doc("run:a", notebook, stubs), _doc("run:b", notebook, dict(stubs))
    assert not a.prints and similarity.compare(a, b).score == 0  # two untouched notebooks share nothing
    assert similarity.compare(_reference(notebook), a).score == 0


def test_the_html_report_escapes_learner_text(tmp_path):
    notebook = "02_masks"
    ref = _reference(notebook)
    evil = {
        c: f"# </pre><script>alert(1)</script>\n{code}\nx = '<img src=x onerror=alert(2)>'\n"
        for c, code in ref.cells.items()
    }
    pair = similarity.compare(ref, _doc('run:"><script>alert(3)</script>', notebook, evil))
    page = similarity.html_report([pair], similarity.THRESHOLD)
    assert "<script" not in page and "<img" not in page and "onerror=alert(2)" in page  # shown, as text
    assert "&lt;script&gt;alert(1)" in page and "<mark>" in page
    assert "Content-Security-Policy" in page


def test_rows_rank_by_score():
    notebook = "02_masks"
    ref = _reference(notebook)
    copy = _doc("run:copy", notebook, {c: disguise(code, ("rename",), 0) for c, code in ref.cells.items()})
    own = _doc("run:own", notebook, answers.load_answer_file(CATALOGUE / notebook / "right_arange_where.py"))
    found = similarity.pairs(
        [similarity.Doc("run:copy", notebook, copy.cells), similarity.Doc("run:own", notebook, own.cells)]
    )
    assert found[0].flagged_at >= similarity.THRESHOLD and {found[0].a.owner, found[0].b.owner} == {
        "reference",
        "run:copy",
    }
    marks = similarity.flags(found, similarity.THRESHOLD)
    assert marks[("copy", notebook)]["flagged"] and marks[("copy", notebook)]["with"] == ["reference"]
    assert not marks[("own", notebook)]["flagged"]


def _graded_folder(tmp_path, notebooks: dict[str, dict[str, str]]):
    """A results folder as `grade` leaves it (saved states and results.json), one notebook 02 per learner."""
    from support import make_submission

    from autograder.results import NotebookResult
    from autograder.run.report import write_reports

    out, notebook, results = tmp_path / "R", "02_masks", []
    for student, cells in notebooks.items():
        result = NotebookResult(student_id=student, notebook=notebook, status="graded", content_hash=student)
        nb = make_submission(notebook, None)
        nb = answers.with_answers(nb, cells) if cells else nb
        ResultsFolder(out).save(result, "digest", nb, recorded=True)
        results.append(result)
    write_reports(out, results)
    return out, results


def test_the_command_marks_results_json_and_the_marks_survive_a_rewrite(tmp_path):
    import json

    from autograder.run.report import write_reports

    notebook = "02_masks"
    reference = similarity.reference_doc(notebook).cells
    own = answers.load_answer_file(CATALOGUE / notebook / "right_arange_where.py")
    out, results = _graded_folder(
        tmp_path, {"paster": {c: disguise(code, ("rename",), 1) for c, code in reference.items()}, "own": own}
    )
    earlier = tmp_path / "earlier" / "alum"
    earlier.mkdir(parents=True)
    (earlier / f"{notebook}.ipynb").write_text((out / ".state" / "own" / f"{notebook}.ipynb").read_text())
    assert similarity.main([str(out), "--earlier", str(earlier.parent)]) == 0
    subs = {s["student_id"]: s["similarity"] for s in json.loads((out / "results.json").read_text())["submissions"]}
    assert subs["paster"]["flagged"] and subs["paster"]["with"] == ["reference"]
    assert subs["own"]["flagged"] and subs["own"]["with"] == ["earlier:alum"]  # last year's very notebook
    assert "earlier:alum" in (out / "similarity.csv").read_text() and (out / "similarity.html").exists()
    write_reports(out, results)  # as `export` or a later run rewrites it
    similarity.reapply(out)
    again = {s["student_id"]: s["similarity"] for s in json.loads((out / "results.json").read_text())["submissions"]}
    assert again == subs
