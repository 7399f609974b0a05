"""Issue 64 item 2: a test's points change: overrides keep their fraction, replay shows them, the self-check follows."""

from __future__ import annotations

import re
import shutil

import nbformat

from autograder import paths, results
from autograder.commands import replay
from autograder.gradebook import release
from autograder.material import answers, contents
from autograder.results import NotebookResult, Outcome, Status
from autograder.results_folder import ResultsFolder
from autograder.run import overrides

NB01 = "01_scaled_dot_product_attention"


def _result(points: float) -> NotebookResult:
    test = results.TestResult(name="test_mask", score=0.0, max_score=points, status=Outcome.FAILED, message="")
    result = NotebookResult(student_id="ann", notebook=NB01, status=Status.GRADED, tests=[test], content_hash="h1")
    result.total()
    return result


def _give(folder: ResultsFolder, points: float, out_of: float) -> None:
    store = overrides.Store(folder)
    store.put(
        overrides.Override(
            student_id="ann",
            notebook=NB01,
            test="test_mask",
            points=points,
            comment="partly right",
            content_hash="h1",
            auto_score=0.0,
            source="mark",
            out_of=out_of,
        )  # fmt: skip
    )
    store.save()


def test_an_override_keeps_its_fraction_when_the_points_change(tmp_path, capsys):
    folder = ResultsFolder(tmp_path)
    folder.root.mkdir(exist_ok=True)
    _give(folder, 1.5, out_of=2)
    same = [_result(2)]
    overrides.apply(folder, None, same)
    assert same[0].tests[0].score == 1.5 and "rescaled" not in capsys.readouterr().err  # points unchanged: as given
    changed = [_result(3)]  # the test's points went from 2 to 3
    overrides.apply(folder, None, changed)
    assert changed[0].tests[0].score == 2.25 and changed[0].score == 2.25 and changed[0].tests[0].overridden
    err = capsys.readouterr().err
    assert f"override rescaled: ann · {NB01} · test_mask: 1.5/2 -> 2.25/3 (the test's points changed" in err
    held = overrides.Store(folder).current[f"ann/{NB01}/test_mask"]
    assert (held.points, held.out_of) == (2.25, 3)  # kept in the file: said once, not at every run
    overrides.apply(folder, None, [_result(3)])
    assert "rescaled" not in capsys.readouterr().err


def test_replay_names_the_override_in_force(tmp_path):
    folder = ResultsFolder(tmp_path)
    folder.root.mkdir(exist_ok=True)
    assert replay.override_line(folder, "ann", NB01, "test_mask") is None
    _give(folder, 1.5, out_of=2)
    said = replay.override_line(folder, "ann", NB01, "test_mask")
    assert said is not None and said.startswith("== OVERRIDDEN: the grade uses 1.5/2, set by mark on ")
    assert "(the checks gave 0): partly right; the score above is the checks' alone" in said
    assert replay.override_line(folder, "ann", NB01, "test_matches_torch") is None


def test_a_release_shows_the_points_the_tests_have_now(tmp_path):
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    source = nbformat.read(paths.source_notebook(NB01), as_version=4)
    test = next(c for c in source.cells if answers.is_test(c))
    before = float(test.metadata.nbgrader["points"])
    test.metadata.nbgrader["points"] = before + 1  # the instructor's change; the source's self-check cell not synced
    nbformat.write(source, solutions / f"{NB01}.ipynb")
    for extra in paths.SOLUTIONS.iterdir():  # what a source folder holds beside the notebooks (helpers, hints)
        if extra.suffix != ".ipynb" and not (solutions / extra.name).exists():
            (shutil.copytree if extra.is_dir() else shutil.copy)(extra, solutions / extra.name)
    [path] = release.release_notebooks(tmp_path / "out", [NB01], solutions=solutions)
    [cell] = [c for c in nbformat.read(path, as_version=4).cells if contents.is_self_check(c)]
    gid = test.metadata.nbgrader["grade_id"]
    assert re.search(rf"'{gid}': {before + 1:g},", cell.source), cell.source
    [old] = [c for c in source.cells if contents.is_self_check(c)]
    assert re.search(rf"'{gid}': {before:g},", old.source)  # the source still said the old points
