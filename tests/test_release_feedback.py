"""release-feedback: pages reach learners through nbgrader's real exchange, and the LMS upload zips.

One learner fetches notebook 01 with `nbgrader fetch_assignment`, hands it in with `nbgrader
submit`; the instructor runs `nbgrader collect`, grades the collected folder, releases the
feedback; the learner's own `nbgrader fetch_feedback` then finds the page. The same graded
folder makes Canvas's and Moodle's upload zips, named from the roster.
"""

from __future__ import annotations

import getpass
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import grade_options

from autograder import paths
from autograder.commands import release_feedback
from autograder.gradebook.course_folder import CourseFolder
from autograder.results_folder import ResultsFolder
from autograder.run import grade

NB01 = "01_scaled_dot_product_attention"
NBGRADER = [sys.executable, "-m", "nbgrader"]


def _nbgrader(where: Path, *args: str) -> None:
    # as from an activated environment: nbgrader's gradebook runs the `alembic` beside this Python
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
    done = subprocess.run([*NBGRADER, *args], cwd=where, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"nbgrader {' '.join(args)}: {done.stdout[-2000:]} {done.stderr[-2000:]}"


def _config(folder: Path, exchange: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    CourseFolder(folder).config_path.write_text(
        f'c = get_config()\nc.CourseDirectory.course_id = "attn"\nc.Exchange.root = {str(exchange)!r}\n'
    )


@pytest.fixture(scope="module")
def handed_in(tmp_path_factory) -> dict:
    """A learner's notebook 01 through the real exchange, collected and graded (with a roster)."""
    root = tmp_path_factory.mktemp("exchange-course")
    exchange, course, learner = root / "exchange", root / "course", root / "learner"
    exchange.mkdir()
    exchange.chmod(0o777)  # nbgrader's exchange is world-writable
    for folder in (course, learner):
        _config(folder, exchange)
    release = course / "release" / NB01
    release.mkdir(parents=True)
    (release / f"{NB01}.ipynb").write_bytes((paths.NOTEBOOKS / f"{NB01}.ipynb").read_bytes())
    _nbgrader(course, "release_assignment", NB01, "--force")
    _nbgrader(learner, "fetch_assignment", NB01)
    _nbgrader(learner, "submit", NB01)
    _nbgrader(course, "collect", NB01)
    me = getpass.getuser()
    roster = root / "roster.csv"
    roster.write_text(
        "id,name,email,canvas_id,sis_user_id,sis_login_id,moodle_id,blackboard_id,section\n"
        f"{me},Ada Lovelace,ada@example.edu,1234,,,88,,A\n"
    )
    out = root / "results"
    results = grade.grade(grade_options(course / "submitted", out, jobs=1, roster=roster))
    return {"root": root, "out": out, "learner": learner, "me": me, "results": results}


@pytest.mark.slow
def test_collected_work_is_graded_with_its_exchange_time(handed_in):
    [result] = handed_in["results"]
    assert (result.student_id, result.notebook, result.status) == (handed_in["me"], NB01, "graded")
    times = json.loads(ResultsFolder(handed_in["out"]).timestamps.read_text(encoding="utf-8"))
    stamp = times[f"{handed_in['me']}/{NB01}"]["timestamp"]
    handed = (handed_in["root"] / "course" / "submitted" / handed_in["me"] / NB01 / "timestamp.txt").read_text()
    assert stamp and stamp.startswith(handed.strip()[:10]), f"nbgrader's timestamp.txt was not read: {stamp!r}"


@pytest.mark.slow
def test_fetch_feedback_finds_the_released_page(handed_in, capsys):
    root = handed_in["root"]
    argv = [str(handed_in["out"]), "--exchange", str(root / "exchange"), "--course", "attn"]
    assert release_feedback.main([*argv, "--submissions", str(root / "course" / "submitted")]) == 0
    assert "released 1 page(s); held back 0" in capsys.readouterr().out
    _nbgrader(handed_in["learner"], "fetch_feedback", NB01)
    pages = list((handed_in["learner"] / NB01 / "feedback").glob(f"*/{NB01}.html"))
    graded = (handed_in["out"] / "feedback" / handed_in["me"] / f"{NB01}.html").read_bytes()
    assert [p.read_bytes() for p in pages] == [graded], "the learner's fetch_feedback did not get the page"


@pytest.mark.slow
def test_a_notebook_handed_in_again_after_grading_is_held_back(handed_in, tmp_path, capsys):
    submitted = tmp_path / "submitted"
    src = handed_in["root"] / "course" / "submitted"
    subprocess.run(["cp", "-r", str(src), str(submitted)], check=True)
    (submitted / handed_in["me"] / NB01 / f"{NB01}.ipynb").write_text("{}")
    argv = [str(handed_in["out"]), "--exchange", str(tmp_path / "exchange"), "--course", "attn"]
    assert release_feedback.main([*argv, "--submissions", str(submitted)]) == 1  # nothing released: said so
    said = capsys.readouterr()
    assert "handed in again since it was graded" in said.out and "ERROR: nothing released" in said.err
    assert not list((tmp_path / "exchange").rglob("*.html"))


@pytest.mark.slow
@pytest.mark.parametrize(
    "platform,name",
    [
        ("canvas", f"lovelaceada_1234_feedback_{NB01}.html"),
        ("moodle", f"Ada Lovelace_88_assignsubmission_file_/{NB01}.html"),
    ],
)
def test_lms_zip_names_each_page_as_the_platform_reads_it(handed_in, tmp_path, platform, name):
    target = tmp_path / f"{platform}.zip"
    assert release_feedback.main([str(handed_in["out"]), f"--{platform}", str(target)]) == 0
    with zipfile.ZipFile(target) as zf:
        assert zf.namelist() == [name]
        page = handed_in["out"] / "feedback" / handed_in["me"] / f"{NB01}.html"
        assert zf.read(name) == page.read_bytes()


def test_bad_arguments_are_named_and_nothing_is_written(tmp_path, capsys):
    assert release_feedback.main([str(tmp_path)]) == 2
    assert "not a graded results folder" in capsys.readouterr().err
    (tmp_path / "results.json").write_text('{"submissions": []}')
    assert release_feedback.main([str(tmp_path)]) == 2
    assert "give one of --exchange" in capsys.readouterr().err
    assert release_feedback.main([str(tmp_path), "--exchange", str(tmp_path / "x")]) == 2
    assert "needs --course ID and --submissions" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def _copy_submitted(handed_in, to: Path) -> Path:
    shutil.copytree(handed_in["root"] / "course" / "submitted", to, symlinks=True)
    return to / handed_in["me"] / NB01


@pytest.mark.slow
def test_links_planted_in_the_exchange_are_never_written_through(handed_in, tmp_path):
    """A learner can write in the exchange and knows their own hash: links at the page and old temp names."""
    from nbgrader.utils import notebook_hash

    secret = (handed_in["root"] / "course" / "submitted" / handed_in["me"] / NB01 / "submission_secret.txt").read_text()
    feedback = tmp_path / "exchange" / "attn" / "feedback"
    feedback.mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("instructor's file")
    target = feedback / f"{notebook_hash(secret=secret, notebook_id=NB01)}.html"
    target.symlink_to(victim)
    (feedback / f".{target.name}.tmp").symlink_to(victim)
    argv = [str(handed_in["out"]), "--exchange", str(tmp_path / "exchange"), "--course", "attn"]
    assert release_feedback.main([*argv, "--submissions", str(handed_in["root"] / "course" / "submitted")]) == 0
    assert victim.read_text() == "instructor's file"
    assert target.is_file() and not target.is_symlink()


@pytest.mark.slow
@pytest.mark.parametrize("plant", ["fifo", "symlink", "huge"])
def test_a_planted_secret_is_held_back_without_hanging(handed_in, tmp_path, capsys, plant):
    handed = _copy_submitted(handed_in, tmp_path / "submitted")
    secret = handed / "submission_secret.txt"
    secret.unlink()
    if plant == "fifo":
        os.mkfifo(secret)  # an open() that would wait for a writer forever
    elif plant == "symlink":
        secret.symlink_to("/etc/hostname")
    else:
        with secret.open("wb") as fh:
            fh.truncate(1 << 31)  # 2 GiB, sparse: refused by its size before any read
    argv = [str(handed_in["out"]), "--exchange", str(tmp_path / "exchange"), "--course", "attn"]
    assert release_feedback.main([*argv, "--submissions", str(tmp_path / "submitted")]) == 1  # none released
    assert "held back 1" in capsys.readouterr().out
    assert not list((tmp_path / "exchange").rglob("*.html"))
