"""The self-study edition: full checks (hidden ones included) run locally, hints in tiers, answers once earned."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import nbformat
import pytest
from conftest import NAMES
from leaks import secret_lines
from support import load_entry, reference_of

from autograder import paths
from autograder.checks import selfcheck
from autograder.material import answers, colab, selfstudy
from autograder.shipped import study

CATALOGUE = paths.ROOT / "tests" / "catalogue"


@pytest.fixture(scope="module")
def edition(released, tmp_path_factory) -> Path:
    """A fresh self-study edition built from a fresh course release."""
    out = tmp_path_factory.mktemp("self-study")
    selfstudy.write_edition(out, released / "notebooks", NAMES)
    return out


@pytest.mark.parametrize("name", NAMES)
def test_self_study_folder_equals_a_fresh_build(edition, name):
    committed = paths.SELF_STUDY / f"{name}.ipynb"
    assert committed.read_text() == (edition / f"{name}.ipynb").read_text(), "self-study/ drifted: run release"


def test_self_study_data_and_helpers_are_current(edition):
    for helper in ("study.py", "study_data.json", "workbook.py", "wb_refusal.py"):
        assert (paths.SELF_STUDY / helper).read_bytes() == (edition / helper).read_bytes(), f"{helper} drifted"


@pytest.mark.parametrize("name", NAMES)
def test_the_edition_runs_every_hidden_check(edition, name):
    text = (edition / f"{name}.ipynb").read_text()
    hidden = secret_lines(name, "hidden")
    assert hidden, f"{name} has no hidden check to carry"
    code = "\n".join(c.source for c in nbformat.reads(text, as_version=4).cells if c.cell_type == "code")
    missing = sorted(ln for ln in hidden if ln not in code and "seed(" not in ln)
    assert missing == [], f"hidden checks missing from the self-study edition: {missing[:3]}"
    assert "BEGIN HIDDEN TESTS" not in text and "study.begin(" in text


@pytest.mark.parametrize("name", NAMES)
def test_no_solution_line_in_plain_text(edition, name):
    files = [f"{name}.ipynb", "study_data.json", "study.py", "workbook.py"]  # what this notebook ships with
    shipped = "\n".join((edition / f).read_text(encoding="utf-8") for f in files)
    leaked = sorted(ln for ln in secret_lines(name, "solution") if ln in shipped)
    assert leaked == [], f"solution lines readable in the self-study edition: {leaked[:3]}"


def test_every_seed_of_a_test_cell_is_mixed_with_the_local_seed():
    source = "gen = torch.Generator().manual_seed(1)\nrng = np.random.default_rng(\n    3)  # é\nx = f(2)\n"
    assert selfstudy.seeded(source, "t") == (
        "gen = torch.Generator().manual_seed(study.seed('t', 1))\nrng = np.random.default_rng(\n"
        "    study.seed('t', 3))  # é\nx = f(2)\n"
    )


def test_the_local_seed_draws_other_inputs_per_seed_and_test(tmp_path, monkeypatch):
    shutil.copy(paths.SELF_STUDY / "study_data.json", tmp_path)
    monkeypatch.setenv(study.SEED_ENV, "one")
    study.start(NAMES[0], tmp_path)
    first = study.seed("test_a", 1)
    assert first == study.seed("test_a", 1) and first != study.seed("test_b", 1)
    monkeypatch.setenv(study.SEED_ENV, "two")
    study.start(NAMES[0], tmp_path)
    assert study.seed("test_a", 1) != first


@pytest.mark.parametrize("name", NAMES)
def test_every_stub_has_three_hint_tiers_without_its_solution(name):
    source = nbformat.read(paths.source_notebook(name), as_version=4)
    reference = answers.reference_answers(source)
    hints = selfstudy.load_hints(name, answers.answer_ids(source))
    assert sorted(hints) == sorted(reference)
    for stub, tiers in hints.items():
        assert len(tiers) == 3 and all(len(t) > 20 for t in tiers), stub
        stub_text = reference[stub]
        lines = {ln.split("  #")[0].strip() for ln in stub_text.splitlines()}
        code = {ln for ln in lines if len(ln) >= 12 and not ln.startswith(("def ", "class ", '"""', "#", "@"))}
        shown = sorted(ln for ln in code for tier in tiers if ln in tier)
        assert shown == [], f"{name}/{stub}: a hint holds the reference's code: {shown[:2]}"


def test_hints_missing_a_tier_are_refused(tmp_path):
    (tmp_path / "x.toml").write_text('[a]\nnudge = "n"\nkey_idea = "k"\n')
    with pytest.raises(ValueError, match="'a' needs the three tiers"):
        selfstudy.load_hints("x", ["a"], tmp_path)


def test_scrambled_answers_come_back_and_are_not_plain():
    blob = study.scramble("return weights @ v", "01", "sdpa")
    assert "weights" not in blob and study.unscramble(blob, "01", "sdpa") == "return weights @ v"


def _run(tmp_path: Path, name: str, sources: dict[str, str], extra: list[str]) -> nbformat.NotebookNode:
    """The self-study notebook run in a fresh kernel with these answers and extra cells at its end."""
    for path in paths.SELF_STUDY.iterdir():
        shutil.copy(path, tmp_path)
    nb = answers.with_answers(nbformat.read(tmp_path / f"{name}.ipynb", as_version=4), sources)
    nb.cells += [nbformat.v4.new_code_cell(src) for src in extra]
    assert selfcheck.run(nb, tmp_path, timeout=300) == ""
    return nb


def _text(cell) -> str:
    return "\n".join(o.get("text", "") + o.get("evalue", "") for o in cell.outputs)


@pytest.mark.slow
def test_a_catalogued_mistake_is_named_and_the_answer_stays_shut(tmp_path):
    name = NAMES[0]
    entry = CATALOGUE / name / "wrong_no_scale.py"
    expect = next(ln.split("# expect:", 1)[1].strip() for ln in entry.read_text().splitlines() if "# expect:" in ln)
    nb = _run(tmp_path, name, load_entry(entry), ['study.hint("sdpa")', 'study.hint("sdpa")', 'study.answer("sdpa")'])
    rows = {test: (status, message) for test, status, message, _ in selfcheck.parts(nb)}
    assert rows["test_matches_torch"][0] == "failed" and expect in rows["test_matches_torch"][1]
    hint1, hint2, shut = nb.cells[-3:]
    assert "Hint 1/3" in _text(hint1) and "Hint 2/3" in _text(hint2)
    assert shut.outputs[0]["ename"] == "StudyError" and "test_matches_torch" in shut.outputs[0]["evalue"]


@pytest.mark.slow
def test_only_the_hidden_checks_catch_a_3d_only_answer(tmp_path):
    """The visible checks use 3-D inputs; only the full checks try other batch shapes."""
    name = NAMES[0]
    nb = _run(tmp_path, name, load_entry(CATALOGUE / name / "wrong_transpose_3d_only.py"), [])
    failed = {test: message for test, status, message, _ in selfcheck.parts(nb) if status == "failed"}
    assert "test_matches_torch" in failed, failed


@pytest.mark.slow
def test_the_reference_answer_opens_once_the_checks_pass(tmp_path):
    name = NAMES[0]
    reference = reference_of(name)
    nb = _run(tmp_path, name, reference, ['print(study.answer("sdpa"))'])
    assert all(status != "failed" for _, status, _, _ in selfcheck.parts(nb))
    assert reference["sdpa"].strip() in _text(nb.cells[-1])
    data = json.loads((paths.SELF_STUDY / "study_data.json").read_text())
    assert data[name]["stubs"]["sdpa"]["tests"][0] == "test_hand_example"


@pytest.mark.parametrize("name", NAMES)
def test_the_colab_setup_fetches_the_study_helpers_from_the_edition(name):
    nb = nbformat.read(paths.SELF_STUDY / f"{name}.ipynb", as_version=4)
    (setup,) = [c for c in nb.cells if answers.grade_id(c) == "setup"]
    assert colab.raw_base(paths.SELF_STUDY.name) in setup.source and '"study_data.json"' in setup.source
    assert colab.colab_url(name, paths.SELF_STUDY.name) in (paths.ROOT / "README.md").read_text()


@pytest.mark.slow
def test_colab_run_all_in_an_empty_folder_with_the_fetch_served_locally(tmp_path, monkeypatch):
    """Colab's path: only the notebook in the folder; its setup cell fetches the rest (from a file:// copy)."""
    name = NAMES[0]
    monkeypatch.setenv("WORKBOOK_FORCE_FETCH", "1")
    monkeypatch.setenv("WORKBOOK_URL", paths.SELF_STUDY.as_uri())
    nb = answers.with_answers(nbformat.read(paths.SELF_STUDY / f"{name}.ipynb", as_version=4), reference_of(name))
    nb.cells.append(nbformat.v4.new_code_cell('study.answer("attention_numpy")'))
    assert selfcheck.run(nb, tmp_path, timeout=300) == ""
    assert selfcheck.stopped_at(nb) == "" and all(r[1] != "failed" for r in selfcheck.parts(nb))
    for helper in ("workbook.py", "wb_refusal.py", "study.py", "study_data.json"):
        assert (tmp_path / helper).read_bytes() == (paths.SELF_STUDY / helper).read_bytes(), helper
    assert "Reference answer of attention_numpy" in _text(nb.cells[-1])


# --- issue 66: answers opened by the tests that call a part, progress kept, written and exercise answers ---


def _mapping(name: str) -> dict[str, list[str]]:
    return selfstudy.stub_tests(nbformat.read(paths.source_notebook(name), as_version=4))


def test_a_part_opens_with_the_tests_that_call_it_not_the_tests_after_it():
    masks, positions = _mapping("02_masks"), _mapping("04_positional_encoding")
    assert "test_pad_invariance" not in masks["merge_masks"]  # it sits after merge_masks but never calls it
    assert "test_merge_masks" in masks["merge_masks"] and "test_nan_trap" in masks["merge_masks"]
    assert "test_pad_invariance" in masks["key_padding_mask"]  # it calls key_padding_mask, far above it
    assert "test_to_additive_mask" not in masks["causal_mask"]  # causal_mask only builds its input
    assert positions["learned_pe"] == ["test_learned", "test_extrapolation"]  # not test_d_model_1024
    assert _mapping("09_language_model")["decoder_block"]  # called only through LanguageModel: its tests


def _cell(kind: str, source: str, grade_id: str | None = None) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source)
    if kind != "plain":
        solution = kind == "answer"
        cell.metadata["nbgrader"] = {"grade_id": grade_id, "grade": not solution, "solution": solution, "points": 1}
    return cell


def test_which_tests_call_a_part_is_read_from_their_source_and_helpers():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        _cell("answer", "def f(x):\n    return x", "f"),
        _cell("answer", "def g(x):\n    return f(x)", "g"),
        _cell("plain", "def helper():\n    return f(1)"),
        _cell("test", "check = Check('test_g')\ncheck.true('k', g(1) == 1, 'g')", "test_g"),
        _cell("test", "check = Check('test_h')\ncheck.true('k', helper() == 1, 'h')", "test_h"),
    ]
    assert selfstudy.stub_tests(nb) == {"f": ["test_h"], "g": ["test_g"]}
    nb.cells = nb.cells[:2] + nb.cells[3:4]  # f called only inside g: g's tests open it
    assert selfstudy.stub_tests(nb) == {"f": ["test_g"], "g": ["test_g"]}
    nb.cells.insert(0, _cell("answer", "def unused():\n    pass", "unused"))
    with pytest.raises(ValueError, match="unused"):
        selfstudy.stub_tests(nb)


@pytest.fixture()
def studying(tmp_path, monkeypatch):
    """study.py started on 02 in an empty folder, its checks recording into a fresh context (a fresh kernel)."""
    from autograder import workbook

    shutil.copy(paths.SELF_STUDY / "study_data.json", tmp_path)
    monkeypatch.setenv(study.SEED_ENV, "fixed")
    monkeypatch.setitem(sys.modules, "workbook", workbook)
    with workbook.checking(workbook.CheckContext()) as context:
        study.start("02_masks", tmp_path)
        yield tmp_path, context.parts


def _pass(parts: dict, *tests: str) -> None:
    for test in tests:
        parts[test] = {"status": "passed", "message": "", "asserts": 1}


def test_hints_and_answers_show_once_and_return_nothing(studying, capsys):
    folder, parts = studying
    assert study.hint("merge_masks") is None
    _pass(parts, *json.loads((folder / "study_data.json").read_text())["02_masks"]["stubs"]["merge_masks"]["tests"])
    assert study.answer("merge_masks") is None
    out = capsys.readouterr().out
    assert out.count("Hint 1/3 for merge_masks") == 1 and out.count("Reference answer of merge_masks") == 1


def test_an_answer_opens_when_its_own_tests_pass_whatever_else_fails(studying, capsys):
    _, parts = studying
    parts["test_pad_invariance"] = {"status": "failed", "message": "x", "asserts": 1}
    with pytest.raises(study.StudyError, match="test_merge_masks"):
        study.answer("merge_masks")
    _pass(parts, "test_merge_masks", "test_padding_gets_zero", "test_conventions")
    with pytest.raises(study.StudyError, match="not yet: test_nan_trap$"):
        study.answer("merge_masks")
    _pass(parts, "test_nan_trap")
    study.answer("merge_masks")
    assert "def merge_masks" in capsys.readouterr().out


def test_progress_survives_a_kernel_restart(studying, capsys):
    folder, parts = studying
    study.hint("causal_mask")
    study.hint("causal_mask")
    _pass(parts, "test_causal_mask", "test_no_future_leak")
    study.answer("causal_mask")
    parts.clear()  # a restart: no test has passed in the new session
    study._STATE.update(notebook="", key=b"", progress={}, progress_file=None)
    study._STATE.pop("data")
    study.start("02_masks", folder)
    capsys.readouterr()
    study.hint("causal_mask")
    study.answer("causal_mask")  # opened before the restart: still open
    out = capsys.readouterr().out
    assert "Hint 3/3 for causal_mask" in out and "Reference answer of causal_mask" in out
    with pytest.raises(study.StudyError, match="test_key_padding_mask"):
        study.answer("key_padding_mask")  # never opened: still shut
    saved = json.loads((folder / study.PROGRESS_FILE).read_text())
    assert saved["02_masks"] == {"hints": {"causal_mask": 3}, "opened": ["causal_mask"]}


def test_a_written_question_has_its_model_answer_once_every_test_passed(studying, capsys):
    folder, parts = studying
    study.hint("q_cached_mask")  # no tiers for a written question: a note, not an error
    assert "written question" in capsys.readouterr().out
    tests = json.loads((folder / "study_data.json").read_text())["02_masks"]["tests"]
    _pass(parts, *tests[:-1])
    with pytest.raises(study.StudyError, match=tests[-1]):
        study.answer("q_cached_mask")
    _pass(parts, tests[-1])
    study.answer("q_cached_mask")
    study.exercise(1)
    out = capsys.readouterr().out
    assert "Model answer of q_cached_mask" in out and "How a grader scores it" in out
    assert "Worked solution of exercise 1" in out


@pytest.mark.parametrize("name", NAMES)
def test_every_written_question_and_exercise_has_its_answer_in_the_edition(name):
    source = nbformat.read(paths.source_notebook(name), as_version=4)
    entry = json.loads((paths.SELF_STUDY / "study_data.json").read_text())[name]
    written = answers.written_ids(source)
    assert sorted(entry["written"]) == sorted(written)
    for gid in written:
        text = study.unscramble(entry["written"][gid], name, gid)
        model = text.split("How a grader scores it:")[0].strip()
        assert len(model) > 100, f"{name}/{gid}: no model answer"
    count = selfstudy.exercise_count(source)
    assert count > 0 and len(entry["exercises"]) == count, f"{name}: worked solutions for {count} exercises"
    for number, blob in enumerate(entry["exercises"], 1):
        assert len(study.unscramble(blob, name, f"exercise {number}")) > 80, f"{name}: exercise {number}"


def test_worked_solutions_must_match_the_exercises(tmp_path):
    (tmp_path / "x.exercises.md").write_text("# x\n\n## Exercise 1\n\nOne.\n\n## Exercise 3\n\nThree.\n")
    with pytest.raises(ValueError, match="Exercise 1' to '## Exercise 2"):
        selfstudy.load_exercises("x", 2, tmp_path)
    assert selfstudy.load_exercises("y", 2, tmp_path) == []  # none yet: the edition offers none


@pytest.mark.parametrize("name", NAMES)
def test_check_your_work_speaks_for_the_self_study_edition(name):
    nb = nbformat.read(paths.SELF_STUDY / f"{name}.ipynb", as_version=4)
    text = "\n".join(c.source for c in nb.cells).lower()
    assert "hidden tests check more" not in text and "when your notebook is graded" not in text
    (call,) = [c.source for c in nb.cells if c.source.startswith("from workbook import self_check")]
    assert call.endswith(", every_check_ran=True)")
    course = nbformat.read(paths.NOTEBOOKS / f"{name}.ipynb", as_version=4)
    assert "every_check_ran" not in "\n".join(c.source for c in course.cells)


def test_the_self_study_table_says_every_check_ran():
    from autograder import workbook

    rows = [("test_a", "passed", "", 2.0), ("q_a", "written", "", 1.0)]
    own, course = workbook.render_table(rows, every_check_ran=True), workbook.render_table(rows)
    assert "Tests passed: 1 / 1 parts" in own and "hidden" not in own.lower() and "study.answer" in own
    assert "Hidden tests will check more" in course


def test_tqdm_comment_names_the_notebooks_that_use_it():
    users = sorted(n[:2] for n in NAMES if "tqdm" in paths.source_notebook(n).read_text())
    for file in ("requirements-learner.txt", "requirements.txt"):
        (line,) = [ln for ln in (paths.ROOT / file).read_text().splitlines() if ln.startswith("tqdm")]
        assert f"(notebooks {', '.join(users)})" in line, (file, line, users)


def _kernel_run(folder: Path, sources: list[str]) -> nbformat.NotebookNode:
    """These cells run in a fresh IPython kernel in `folder` (beside a copy of workbook.py), errors kept."""
    from nbclient import NotebookClient

    shutil.copy(paths.NOTEBOOKS / "workbook.py", folder)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(src) for src in sources]
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True).execute(cwd=str(folder))
    return nb


def _outputs(cell) -> str:
    """A cell's printed text and tracebacks, without their colours."""
    text = "\n".join(o.get("text", "") + "\n".join(o.get("traceback", [])) for o in cell.outputs)
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


@pytest.mark.slow
def test_a_failing_check_shows_the_learners_line_and_message_only(tmp_path):
    nb = _kernel_run(
        tmp_path,
        [
            "from workbook import Check",
            'def mine():\n    return 1 / 0\n\ncheck = Check("t")\ncheck.true("k", 1 + 1 == 3, "one plus one")',
            'check = Check("u")\ncheck.raises("k", ValueError, mine)',
        ],
    )
    failed, raised = nb.cells[1].outputs[-1], nb.cells[2].outputs[-1]
    assert failed["ename"] == raised["ename"] == "CheckFailure" and failed["evalue"] == "[t/k] one plus one"
    shown = _outputs(nb.cells[1])
    assert "check.true" in shown and "one plus one" in shown, shown
    assert "workbook.py" not in shown and "_fail" not in shown, shown
    text = _outputs(nb.cells[2])
    assert "1 / 0" in text and "ZeroDivisionError" in text and "workbook.py" not in text, text  # the learner's line


@pytest.mark.slow
def test_tqdm_without_ipywidgets_shows_a_text_bar_and_no_warning(tmp_path):
    no_widgets = "import sys\nsys.modules['ipywidgets'] = None  # as if it were not installed"
    bar = "from tqdm.auto import tqdm\nfor _ in tqdm(range(3)):\n    pass"
    control = _kernel_run(tmp_path, [no_widgets, bar])  # without workbook: tqdm warns
    assert "IProgress not found" in _outputs(control.cells[1]), _outputs(control.cells[1])
    nb = _kernel_run(tmp_path, [no_widgets, "import workbook", bar])
    shown = _outputs(nb.cells[2])
    assert "IProgress" not in shown and "TqdmWarning" not in shown and "3/3" in shown, shown
