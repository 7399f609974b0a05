"""Issue 64 item 4: every instructor mistake gets a clear refusal naming what to do, and nothing is written.

Each test makes the mistake as an instructor types it (the command's own argv), then checks the exit
code, the message and that no results folder, key or zip was made. None starts a kernel.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT

from autograder import paths
from autograder.checks import coursekey
from autograder.commands import release_feedback
from autograder.gradebook import feedback
from autograder.results import NotebookResult, Status
from autograder.results_folder import ResultsFolder
from autograder.run import grade, preflight

NB01 = "01_scaled_dot_product_attention"


def _learners(folder: Path, *names: str) -> Path:
    """A submissions folder: each learner's folder holds notebook 01 (a sample's copy)."""
    for name in names:
        (folder / name).mkdir(parents=True)
        shutil.copy(paths.DATA / "submissions" / "ada" / f"{NB01}.ipynb", folder / name)
    return folder


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def _grade(argv: list[str], capsys) -> tuple[int, str]:
    code = grade.main([*argv, "--unsafe", "--quiet"])
    return code, capsys.readouterr().err


def test_a_key_path_that_does_not_exist_is_refused_and_never_made(tmp_path, capsys):
    subs, typo = _learners(tmp_path / "subs", "ada"), tmp_path / "coures.key"
    code, err = _grade([str(subs), "--out", str(tmp_path / "R"), "--key", str(typo)], capsys)
    assert code == 2
    assert f"ERROR: {typo}: no course key there" in err and "--new-key" in err and "check the path" in err
    assert not typo.exists() and not (tmp_path / "R").exists()


def test_a_new_key_is_made_only_when_asked(tmp_path, monkeypatch):
    """--new-key is the documented way; without it a named place is never made (the run refuses first)."""
    named = tmp_path / "new.key"
    opts = grade.Options(submissions=tmp_path, out=tmp_path / "R", key_file=named)
    assert not grade.may_make_key(opts)
    assert grade.may_make_key(grade.Options(submissions=tmp_path, out=tmp_path / "R", key_file=named, new_key=True))
    monkeypatch.delenv(coursekey.KEY_ENV)  # the default place: made on a new folder's first run only
    assert grade.may_make_key(grade.Options(submissions=tmp_path, out=tmp_path / "R"))
    ResultsFolder(tmp_path / "R").write_key("0" * 16)  # a folder already graded: its key is missing, not new
    assert not grade.may_make_key(grade.Options(submissions=tmp_path, out=tmp_path / "R"))


def test_a_folder_given_as_the_key_is_called_a_folder(tmp_path, capsys):
    subs, keys = _learners(tmp_path / "subs", "ada"), tmp_path / "keys"
    keys.mkdir()
    code, err = _grade([str(subs), "--out", str(tmp_path / "R"), "--key", str(keys)], capsys)
    assert code == 2
    assert f"ERROR: {keys} is a folder, not a course key file" in err and f"--key {keys / 'course.key'}" in err
    assert "chmod" not in err
    assert _files(keys) == [] and not (tmp_path / "R").exists()


def _as_unprivileged() -> list[str]:
    """A command prefix under which this user cannot read a mode-000 file: root without its DAC override."""
    if os.geteuid() != 0:
        return []
    if not shutil.which("setpriv"):
        pytest.skip("root without setpriv: every file is readable")
    caps = "-dac_override,-dac_read_search"
    return ["setpriv", f"--bounding-set={caps}", f"--inh-caps={caps}"]


def test_an_unreadable_key_is_refused_with_what_to_do(tmp_path):
    subs, key = _learners(tmp_path / "subs", "ada"), tmp_path / "course.key"
    coursekey.load(key, create=True)
    key.chmod(0o000)
    command = [*_as_unprivileged(), sys.executable, "-m", "autograder", "grade", str(subs)]
    command += ["--out", str(tmp_path / "R"), "--key", str(key), "--unsafe", "--quiet"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr[-2000:]
    assert f"ERROR: {key}: this user" in done.stderr and "cannot read the course key (permission denied)" in done.stderr
    assert "run as the key's owner" in done.stderr and "Errno" not in done.stderr
    assert not (tmp_path / "R").exists()


def _results_folder(folder: Path) -> ResultsFolder:
    """A results folder as grade leaves one: a saved state, results.json, grades.csv, its key record."""
    results = ResultsFolder(folder)
    result = NotebookResult(student_id="ada", notebook=NB01, status=Status.GRADED, score=3, max_score=5)
    results.save(result, "d")
    results.results_json.write_text(json.dumps({"submissions": [result.to_dict()]}))
    results.grades_csv.write_text("student_id,notebook,score,max_score\nada,01,3,5\n")
    results.write_key("0" * 16)
    return results


def test_a_results_folder_given_as_the_submissions_is_refused(tmp_path, capsys):
    """The arguments swapped: grade RESULTS --out SUBMISSIONS."""
    subs, results = _learners(tmp_path / "subs", "ada"), _results_folder(tmp_path / "R")
    before, subs_before = _files(results.root), _files(subs)
    code, err = _grade([str(results.root), "--out", str(subs)], capsys)
    assert code == 2
    assert f"ERROR: {results.root} is a results folder" in err and "were the arguments swapped?" in err
    assert "grade SUBMISSIONS --out RESULTS" in err
    assert _files(results.root) == before and _files(subs) == subs_before


@pytest.mark.parametrize("inside", [".", "results", "ada/results"])
def test_out_inside_the_submissions_folder_is_refused(tmp_path, capsys, inside):
    subs = _learners(tmp_path / "subs", "ada")
    before = _files(subs)
    code, err = _grade([str(subs), "--out", str(subs / inside)], capsys)
    assert code == 2
    assert "is inside the submissions folder" in err and f"--out {tmp_path / 'results'}" in err
    assert _files(subs) == before


def test_the_submissions_parent_is_refused_with_did_you_mean(tmp_path, capsys):
    """grade data --out R: the folder above the submissions (a script, a README beside them)."""
    data = tmp_path / "data"
    _learners(data / "submissions", "ada", "ben")
    (data / "make_samples.py").write_text("print('samples')\n")
    (data / "README.md").write_text("the course's data\n")
    code, err = _grade([str(data), "--out", str(tmp_path / "R")], capsys)
    assert code == 2
    assert f"ERROR: nothing in {data} is a submission" in err and f"did you mean {data / 'submissions'}?" in err
    assert not (tmp_path / "R").exists()


def test_an_empty_submissions_folder_is_refused(tmp_path, capsys):
    (tmp_path / "subs").mkdir()
    code, err = _grade([str(tmp_path / "subs"), "--out", str(tmp_path / "R")], capsys)
    assert code == 2 and f"nothing in {tmp_path / 'subs'} is a submission" in err
    assert "give the folder that holds them" in err and not (tmp_path / "R").exists()


def test_a_notebook_file_given_as_the_submissions_is_called_a_file(tmp_path, capsys):
    notebook = _learners(tmp_path / "subs", "ada") / "ada" / f"{NB01}.ipynb"
    code, err = _grade([str(notebook), "--out", str(tmp_path / "R")], capsys)
    assert code == 2
    assert f"ERROR: {notebook} is a file, not the folder of submissions" in err and "does not exist" not in err
    assert "python -m autograder check NOTEBOOK" in err and not (tmp_path / "R").exists()


def test_every_layout_grade_reads_passes_the_checks(tmp_path):
    """Fairness of the refusals: learners' folders, zips, LMS downloads and nbgrader's layout are all accepted."""
    names = set(paths.notebook_names())
    sample = paths.DATA / "submissions" / "ada" / f"{NB01}.ipynb"
    folders = _learners(tmp_path / "folders", "ada")
    zips = tmp_path / "zips"
    zips.mkdir()
    with zipfile.ZipFile(zips / "ada.zip", "w") as zf:
        zf.write(sample, f"{NB01}.ipynb")
    canvas = tmp_path / "canvas"  # Canvas's flat download: <name>_<user id>_<attachment id>_<file>
    canvas.mkdir()
    shutil.copy(sample, canvas / f"lovelaceada_1234_5678_{NB01}.ipynb")
    collected = tmp_path / "collected" / "ada" / NB01  # nbgrader collect: <student>/<notebook>/<notebook>.ipynb
    collected.mkdir(parents=True)
    shutil.copy(sample, collected)
    for folder in (folders, zips, canvas, tmp_path / "collected"):
        assert preflight.refusal(folder, tmp_path / "R", names) is None, folder


def _feedback_folder(tmp_path: Path) -> ResultsFolder:
    """A graded folder with one learner's feedback page and a roster that has neither LMS id."""
    results = _results_folder(tmp_path / "R")
    page = results.feedback_page("ada", NB01)
    page.parent.mkdir(parents=True)
    (result,) = results.results()
    page.write_text(feedback.with_csp("<html><head></head>3 / 5</html>", feedback.grade_mark(result)))
    results.roster.write_text("id,name,email\nada,Ada Lovelace,ada@example.org\n")
    return results


@pytest.mark.parametrize("platform", ["moodle", "canvas"])
def test_an_lms_zip_with_no_page_in_it_is_refused_and_not_written(tmp_path, capsys, platform):
    results = _feedback_folder(tmp_path)
    target = tmp_path / f"{platform}.zip"
    assert release_feedback.main([str(results.root), f"--{platform}", str(target)]) == 1
    said = capsys.readouterr()
    column = f"{platform}_id"
    assert f"ada/{NB01}: no {column} on the roster" in said.out
    assert f"ERROR: nothing released and no zip written: no graded learner has a {column} on the roster" in said.err
    assert f"add the {column} column to the roster" in said.err
    assert not target.exists() and not list(tmp_path.glob(f".{platform}.zip*"))


def test_release_feedback_holding_back_every_page_exits_non_zero(tmp_path, capsys):
    """Through the exchange: nothing handed in there (no secret): every page held back, exit 1 with why."""
    results = _feedback_folder(tmp_path)
    (tmp_path / "submitted").mkdir()
    argv = [str(results.root), "--exchange", str(tmp_path / "x"), "--course", "c", "--submissions"]
    assert release_feedback.main([*argv, str(tmp_path / "submitted")]) == 1
    said = capsys.readouterr()
    assert "released 0 page(s); held back 1" in said.out and "not handed in through the exchange" in said.out
    assert (
        f"(no submission_secret.txt in {tmp_path / 'submitted' / 'ada' / NB01})" in said.out and "Errno" not in said.out
    )
    assert "ERROR: nothing released: every page was held back (above)" in said.err
    assert not list((tmp_path / "x").rglob("*.html"))


def test_release_feedback_with_no_page_at_all_exits_non_zero(tmp_path, capsys):
    results = _results_folder(tmp_path / "R")
    results.roster.write_text("id,name,canvas_id\nada,Ada Lovelace,1234\n")
    assert release_feedback.main([str(results.root), "--canvas", str(tmp_path / "c.zip")]) == 1
    assert "holds no feedback page (grade it first)" in capsys.readouterr().err
    assert not (tmp_path / "c.zip").exists()


def test_release_feedback_help_names_every_format_it_writes(capsys):
    with pytest.raises(SystemExit):
        release_feedback.main(["--help"])
    text = capsys.readouterr().out
    for fmt in ("nbgrader's exchange", "fetch_feedback", 'Canvas\'s "Re-Upload Submissions"', "Moodle's"):
        assert fmt in text, fmt
    for flag in ("--exchange ROOT", "--canvas OUT.zip", "--moodle OUT.zip"):
        assert flag in text, flag


def test_release_feedback_holds_back_a_page_older_than_the_learners_grade(tmp_path, capsys):
    """Issue 64 item 1: a grade changed (a policy, an extension) after its page was written: never released."""
    results = _feedback_folder(tmp_path)
    results.roster.write_text("id,name,canvas_id\nada,Ada Lovelace,1234\n")
    assert release_feedback.main([str(results.root), "--canvas", str(tmp_path / "ok.zip")]) == 0  # current: released
    capsys.readouterr()
    (now,) = results.results()
    now.score, now.penalty = 2.5, 0.5  # the grade now, as grade or export wrote it after a policy change
    results.results_json.write_text(json.dumps({"submissions": [now.to_dict()]}))
    assert release_feedback.main([str(results.root), "--canvas", str(tmp_path / "c.zip")]) == 1
    said = capsys.readouterr()
    assert (
        f"ada/{NB01}: its page is older than the current grade (the page: 3/5 penalty 0; now: 2.5/5 penalty 0.5)"
        in said.out
    )
    assert "ERROR: nothing released and no zip written: every page was held back (above)" in said.err
    assert f"run python -m autograder export {results.root}, then release again" in said.out
    assert not (tmp_path / "c.zip").exists()
