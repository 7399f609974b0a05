"""formgrader as README gives it: its config loads without the package, its Autograde is refused,
`python -m autograder formgrader` prints a URL with its token, and scores typed in a real browser
(an override of a test and a written answer's points) reach grades.csv through `export`."""

from __future__ import annotations

import contextlib
import csv
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT, grade_options
from nbgrader.api import Gradebook
from support import make_submission

from autograder import paths
from autograder.gradebook import records as gradebook
from autograder.gradebook.course import COURSE_ID, REFUSAL, Course
from autograder.kernel.limits import Limits
from autograder.material import answers
from autograder.run import grade

NB = "03_multi_head_attention"


def test_the_course_config_loads_in_a_python_without_the_package(tmp_path):
    Course(tmp_path / "course").write_config()
    text = (tmp_path / "course" / "nbgrader_config.py").read_text().replace(str(paths.ROOT), str(tmp_path / "gone"))
    (tmp_path / "course" / "nbgrader_config.py").write_text(text)
    # the package is made unimportable, as on a machine without it, however it is installed here
    # (an editable install puts it on every interpreter's path, -I included)
    probe = (
        "import sys\n"
        "class Absent:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.partition('.')[0] == 'autograder':\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Absent())\n"
        "try:\n"
        "    import autograder\n"
        "except ModuleNotFoundError:\n"
        "    pass\n"
        "else:\n"
        "    raise SystemExit('autograder is still importable')\n"
        "from traitlets.config.loader import PyFileConfigLoader\n"
        "c = PyFileConfigLoader('nbgrader_config.py', path='.').load_config()\n"
        "print([p.__name__ for p in c.Autograde.autograde_preprocessors])\n"
    )
    run = subprocess.run([sys.executable, "-I", "-c", probe], cwd=tmp_path / "course", capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "SandboxedGradingOnly" in run.stdout and "WarningsAreNotFailures" not in run.stdout


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("formgrader")
    nb = make_submission(NB, None)
    for cell in nb.cells:
        if answers.is_written(cell):
            cell.source = "The batch, the queries and the keys."
    (tmp / "subs" / "wes").mkdir(parents=True)
    nbformat.write(nb, tmp / "subs" / "wes" / f"{NB}.ipynb")
    opts = grade_options(
        submissions=tmp / "subs",
        out=tmp / "out",
        jobs=1,
        limits=Limits(),
        quiet=True,
    )
    (result,) = grade.grade(opts)
    return opts.out, result


@pytest.mark.slow
def test_formgraders_autograde_is_refused_and_changes_nothing(graded):
    out, result = graded
    from nbgrader.apps import NbGraderAPI
    from traitlets.config.loader import PyFileConfigLoader

    course = out / ".course"
    config = PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()  # what formgrader reads
    try:
        outcome = NbGraderAPI(config=config).autograde(NB, "wes", force=True)
    finally:
        gradebook.restore_autograde()  # this test process grades again later
    assert not outcome["success"] and REFUSAL[:40] in outcome["error"]
    assert (course / "autograded" / "wes" / NB / f"{NB}.ipynb").exists()  # nothing touched: formgrader still shows it
    test = next(t for t in result.tests if not t.manual)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", COURSE_ID) as gb:
        assert gb.find_grade(test.name, NB, NB, "wes").manual_score == test.score


@contextlib.contextmanager
def _formgrader(out: Path):
    proc = subprocess.Popen(
        [sys.executable, "-m", "autograder", "formgrader", str(out)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+)/formgrader\?token=(\w+)", line)
        assert match, line
        base, token = match.groups()
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=1)
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("formgrader did not start")
        yield proc, base, token
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.mark.slow
def test_the_formgrader_command_prints_a_url_whose_token_opens_it(graded):
    out, _ = graded
    with _formgrader(out) as (_proc, base, token):
        page = urllib.request.urlopen(f"{base}/formgrader?token={token}", timeout=10).read().decode()
        assert "formgrader" in page.lower()
        with pytest.raises(OSError):  # without the token: refused
            urllib.request.urlopen(f"{base}/api/status", timeout=5)
        lines = []  # every process's command line, as `ps` shows them to any user
        for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
            with contextlib.suppress(OSError):
                lines.append(cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace"))
        assert any("jupyter" in line and "server" in line for line in lines)
        assert not any(token in line for line in lines), "formgrader's token is visible in the process list"
    if os.geteuid() == 0:
        from autograder.commands.formgrader import command

        assert "--allow-root" in command(1)


@pytest.mark.slow
@pytest.mark.browser
def test_scores_typed_in_formgrader_reach_grades_csv_through_export(graded):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium)")
    playwright = pytest.importorskip("playwright.sync_api", reason="the playwright Python package is not installed")
    out, result = graded
    written = next(t for t in result.tests if t.manual)
    test = next(t for t in result.tests if not t.manual and t.status == "passed")
    db = f"sqlite:///{out / '.course' / 'gradebook.db'}"
    with Gradebook(db, COURSE_ID) as gb:
        submission = gb.find_submission_notebook(NB, NB, "wes").id
    with _formgrader(out) as (_proc, base, token), playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        page.goto(f"{base}/formgrader?token={token}")  # the URL the command printed: it logs the browser in
        page.goto(f"{base}/formgrader/submissions/{submission}/")
        page.wait_for_load_state("networkidle")
        page.locator(f"input.score[id='{test.name}'][placeholder]").wait_for(timeout=60_000)  # its view is bound
        for gid, points in ((written.name, "1.5"), (test.name, "0")):
            box = page.locator(f"input.score[id='{gid}']")
            box.wait_for(timeout=60_000)
            box.fill(points)
            box.press("Tab")  # formgrader saves on change
        for _ in range(60):
            with Gradebook(db, COURSE_ID) as gb:
                saved = [gb.find_grade(g, NB, NB, "wes").manual_score for g in (written.name, test.name)]
            if saved == [1.5, 0]:
                break
            time.sleep(0.5)
        browser.close()
    assert saved == [1.5, 0]
    run = subprocess.run(
        [sys.executable, "-m", "autograder", "export", str(out)], cwd=ROOT, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    [row] = list(csv.DictReader((out / "grades.csv").open(encoding="utf-8")))
    assert float(row["score"]) == result.score - test.max_score + 1.5
    assert row["overridden"] == test.name and row["needs_manual_grading"] == ""


def _children(pid: int) -> list[int]:
    """The live children of a process (Linux's /proc)."""
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(x) for x in text.split()]


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")  # a zombie no longer runs (its parent reaps it)


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_stopped_formgrader_stops_its_jupyter_server(tmp_path, signum):
    """A real `python -m autograder formgrader`, sent SIGTERM (or SIGHUP): its server is gone, not orphaned."""
    Course(tmp_path / ".course").write_config()  # what the command needs of a results folder
    with _formgrader(tmp_path) as (proc, _base, _token):
        (server,) = _children(proc.pid)
        assert "jupyter" in Path(f"/proc/{server}/cmdline").read_text()
        proc.send_signal(signum)
        code = proc.wait(timeout=30)
        try:
            for _ in range(100):
                if _gone(server):
                    break
                time.sleep(0.1)
            assert _gone(server), f"the jupyter server {server} outlived its formgrader"
        finally:
            if not _gone(server):
                os.kill(server, signal.SIGKILL)  # the orphan this test found: not left running
        assert code == 128 + signum  # stopped by the signal, having stopped its server


def test_the_course_has_its_own_writable_exchange_so_nbgrader_warns_of_none():
    """Issue 64 item 7: formgrader logged "Unwritable directory ... /usr/local/share/nbgrader/exchange" each time."""
    from nbgrader.exchange.default import Exchange
    from traitlets.config.loader import PyFileConfigLoader

    course = Course(Path(tempfile.mkdtemp()) / "course")
    course.write_config()
    config = PyFileConfigLoader("nbgrader_config.py", path=str(course.root)).load_config()
    assert Path(config.Exchange.root) == course.exchange_dir and course.exchange_dir.is_dir()
    Exchange(config=config).ensure_root()  # nbgrader's own check: its fail() raises where it would log the warning
    shutil.rmtree(course.root.parent)


def test_the_formgrader_token_is_never_on_a_command_line():
    from autograder.commands.formgrader import TOKEN_ENV, command

    argv = command(8888)
    assert not any("token" in a.lower() for a in argv), argv
    assert TOKEN_ENV == "JUPYTER_TOKEN"  # the variable Jupyter's server reads its token from (IdentityProvider)
