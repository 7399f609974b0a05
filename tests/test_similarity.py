"""The similarity report on the project's own answers: disguised copies found, independent answers not."""

from __future__ import annotations

import nbformat
import pytest
from support import CATALOGUE

from autograder import paths
from autograder.material import answers
from autograder.results_folder import ResultsFolder
from autograder.run import codeshape, similarity
from benchmarks import similarity as bench
from benchmarks.disguise import VARIANTS, disguise

NAMES = paths.notebook_names()


def _doc(owner: str, notebook: str, cells: dict[str, str]) -> similarity.Doc:
    return similarity.fingerprint(similarity.Doc(owner, notebook, cells), similarity.boilerplate(notebook))


def _reference(notebook: str) -> similarity.Doc:
    return _doc(similarity.REFERENCE, notebook, similarity.reference_doc(notebook).cells)


def _flagged(found: list[similarity.Pair]) -> list[tuple[str, str, float]]:
    return [(p.a.owner, p.b.owner, round(p.score, 3)) for p in found if p.flagged_at >= similarity.THRESHOLD]


@pytest.mark.parametrize("notebook", NAMES)
def test_every_disguised_copy_of_the_reference_is_flagged(notebook):
    """Each of the fourteen disguises (renaming, reordering, comment changes, dead code, helpers and combinations)."""
    reference = similarity.reference_doc(notebook).cells
    docs = [
        similarity.Doc(f"run:{'+'.join(steps)}/{seed}", notebook,
                       {c: disguise(code, steps, seed=i + 100 * seed) for c, code in reference.items()})
        for seed in range(1)
        for i, steps in enumerate(VARIANTS)
    ]  # fmt: skip
    found = [p for p in similarity.pairs(docs) if p.a.owner == similarity.REFERENCE]
    missed = [(p.b.owner, round(p.score, 3), p.short) for p in found if p.flagged_at < similarity.THRESHOLD]
    assert len(found) == len(docs) and missed == []


@pytest.mark.parametrize("notebook", NAMES)
def test_no_pair_of_independent_correct_answers_is_flagged(notebook):
    """Every right catalogue entry, honest variant and sample, cell by cell and as whole notebooks, as the report
    compares them (the reference is the report's own side)."""
    cells = [
        similarity.Doc(f"run:{author}", notebook, {cell: code})
        for cell, authored in bench.independent_answers(notebook).items()
        for author, code in authored
        if author != "reference"
    ]
    whole = [
        similarity.Doc(f"run:{owner}", notebook, answered)
        for owner, answered in bench.independent_notebooks(notebook)
        if owner != "reference"
    ]
    found = [p for p in similarity.pairs(cells) if p.cells]
    assert len(found) >= len(cells) and _flagged(found) == []
    assert _flagged(similarity.pairs(whole)) == []


def test_the_corpus_holds_every_right_entry_honest_variant_and_sample():
    authors = {
        author
        for notebook in NAMES
        for authored in bench.independent_answers(notebook).values()
        for author, _ in authored
    }
    right = {p.stem for p in CATALOGUE.glob("*/right_*.py")}
    honest = {name.removesuffix(".py") for name in bench.honest_variants()}
    assert len(honest) >= 40 and honest <= right <= authors
    assert {"sample:cy", "sample:dee"} <= authors  # ada is the reference itself, ben the untouched stubs
    whole = {owner for owner, _ in bench.independent_notebooks("01_scaled_dot_product_attention")}
    assert whole >= {"reference", "right_independent_learner", "sample:cy", "sample:dee"}


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


def test_short_pairs_are_listed_and_marked_short_never_flagged():
    """09's DecoderBlock written apart is the reference's line for line: the contract leaves no choice."""
    notebook = "09_language_model"
    own = answers.load_answer_file(CATALOGUE / notebook / "right_independent_learner.py")
    found = similarity.pairs([similarity.Doc("run:own", notebook, {"decoder_block": own["decoder_block"]})])
    assert found[0].score == 1.0 and found[0].short and found[0].flagged_at < similarity.THRESHOLD
    assert not similarity.flags(found, similarity.THRESHOLD)[("own", notebook)]["flagged"]
    assert "(short)" in similarity.html_report(found, similarity.THRESHOLD)  # listed all the same
    whole = similarity.pairs([similarity.Doc("run:y", notebook, similarity.reference_doc(notebook).cells)])
    assert whole[0].flagged_at >= similarity.THRESHOLD and not whole[0].short


def test_code_the_notebook_shows_counts_for_nobody():
    """01's demonstration and test-helper cells are the lesson's code: pasted into an answer, it is nobody's own."""
    import nbformat

    notebook = "01_scaled_dot_product_attention"
    student = nbformat.read(paths.NOTEBOOKS / f"{notebook}.ipynb", as_version=4)
    given = [c.source for c in student.cells if c.cell_type == "code" and "def oracle(" in c.source]
    assert len(given) == 1
    doc = _doc("run:a", notebook, {"sdpa": given[0]})
    assert doc.prints == {} or doc.prints["sdpa"].counted < 8


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("y = torch.softmax(x, dim=-1, dtype=torch.float64)", "y = torch.softmax(x, dtype=torch.float64, dim=-1)"),
        ("y = (a + b * c) * torch.exp(d)", "y = torch.exp(d) * (c * b + a)"),
        ("y = torch.where(a < b, a == b, c)", "y = torch.where(b > a, b == a, c)"),
        ("y = torch.softmax(x.float(), -1)", "import torch as T\ny = T.softmax(x.float(), -1)"),
        ("def f(x):\n    y = g(x, scale=2.0)\n    return y", "def f(x):\n    y = g(x, factor=2.0)\n    return y"),
        (
            "def f(x):\n    y = torch.softmax(x * 2.0, -1)\n    return y",
            "DEBUG = False\ndef f(x):\n    def unused(a):\n        return a\n    if DEBUG:\n        print(x)\n"
            "    y = torch.softmax(x * 2.0, -1)\n    return y\n    print('never')",
        ),
    ],
)
def test_changes_that_change_nothing_leave_the_shape(one, other):
    """Keyword order, operand order, turned comparisons, module aliases, own keyword names, dead code."""
    a, b = (codeshape.shape(code, imported=similarity.NAMES_NOBODY_CHOOSES) for code in (one, other))
    assert a and b and codeshape.covered(a, b.big())[0] == a.counted


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("y = torch.softmax(a - b * c, -1)", "y = torch.softmax(b * c - a, -1)"),
        ("y = torch.softmax(a @ b.float(), -1)", "y = torch.softmax(b.float() @ a, -1)"),
        ("y = torch.softmax(x, dim=-1, dtype=d)", "y = torch.softmax(x, axis=-1, dtype=d)"),  # an API's keyword
    ],
)
def test_changes_that_change_the_result_change_the_shape(one, other):
    a, b = (codeshape.shape(code, imported=similarity.NAMES_NOBODY_CHOOSES) for code in (one, other))
    assert a and b and codeshape.covered(a, b.big())[0] < a.counted


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
    write_reports(ResultsFolder(out), results)
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
    write_reports(ResultsFolder(out), results)  # as `export` or a later run rewrites it
    similarity.reapply(ResultsFolder(out))
    again = {s["student_id"]: s["similarity"] for s in json.loads((out / "results.json").read_text())["submissions"]}
    assert again == subs


def test_a_copy_padded_with_an_over_deep_dead_expression_is_still_compared():
    """Attack: the reference's sdpa with one dead `q + q + ... + q` of 1,000 terms (valid, runs) made the
    shaping passes recurse too deep, and the whole cell was left out of the comparison: the copy went unseen."""
    notebook = "01_scaled_dot_product_attention"
    first, *rest = similarity.reference_doc(notebook).cells["sdpa"].rstrip("\n").split("\n")
    padded = "\n".join([first, "    _unused = q" + " + q" * 1000, *rest]) + "\n"
    compile(padded, "padded", "exec")  # Python runs it: a learner can hand it in
    [pair] = similarity.pairs([similarity.Doc("run:padded", notebook, {"sdpa": padded})])
    assert "sdpa" in pair.cells and pair.cells["sdpa"][0] >= similarity.THRESHOLD, pair.cells
    assert pair.flagged_at >= similarity.THRESHOLD


def test_a_copy_cannot_make_its_own_code_starter_code(tmp_path):
    """Attack on the cached starter shapes: a copy of the reference that also pastes the reference into
    a given cell of its own file (so that, were starter code read from the learner's notebook, the
    copied code would count for nobody), graded twice in one process, and a caller that tries to
    grow the shared starter sets. Starter code comes from the released notebook only, once."""
    notebook = "01_scaled_dot_product_attention"
    reference = similarity.reference_doc(notebook).cells
    planted = nbformat.read(paths.NOTEBOOKS / f"{notebook}.ipynb", as_version=4)
    given = next(c for c in planted.cells if c.cell_type == "code" and not answers.is_answer(c))
    given.source += "\n" + "\n".join(reference.values())  # the copied code, also as "given" code
    for cell in planted.cells:
        if answers.is_answer(cell):
            cell.source = reference.get(answers.grade_id(cell), cell.source)
    nbformat.write(planted, tmp_path / f"{notebook}.ipynb")
    for attempt in range(2):  # the second with the starter shapes cached
        doc = similarity.notebook_doc(f"run:planted{attempt}", notebook, tmp_path / f"{notebook}.ipynb")
        assert doc is not None and doc.cells
        assert _flagged(similarity.pairs([doc])), attempt
    stubs = similarity.boilerplate(notebook)
    with pytest.raises(AttributeError):  # frozensets: no caller can grow what the next run reads
        next(iter(stubs.cells.values())).add(b"x")
    assert similarity.boilerplate(notebook) is stubs
