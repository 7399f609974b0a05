"""Issue 64 item 1: one late learner's grade is the same in every view after each change of the term.

An instructor's course repository (a copy of this one) grades ann, who hands in 32 hours late, with
the project's own commands. In turn: the late policy changes, she gets an extension (then loses it),
one of her tests is overridden, that test's points change in the source (released, graded again),
and her written answer is scored. formgrader is started once, as the project's command starts it,
and left running through the term, as an instructor leaves it open. After each change her grade is
read from every view: results.json, grades.csv, lms.csv, canvas.csv, moodle.csv, nbgrader's own
`nbgrader export` and its gradebook, her feedback page, the page `release-feedback` puts in
nbgrader's exchange (where fetch_feedback finds it) and in the Canvas feedback zip, and what
formgrader serves: its API's score and its submission page ("Grade:" and "Late:"). They must agree. The table of views is written to the test's folder (views.md) and printed.
"""

from __future__ import annotations

import contextlib
import csv
import json
import re
import shutil
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import nbformat
import pytest
from conftest import REQUIRE_SANDBOX, ROOT, SANDBOX_PROBLEM
from nbgrader.api import Gradebook
from nbgrader.utils import notebook_hash
from support import make_submission

from autograder.checks import coursekey
from autograder.gradebook.course import COURSE_ID
from autograder.gradebook.course_folder import exchange_feedback
from autograder.material import answers, contents

pytestmark = pytest.mark.slow

NB01 = "01_scaled_dot_product_attention"
DUE = f'[due]\n{NB01} = "2026-12-01T23:59:00+00:00"\n'
POLICY = "[policy]\nper_day = {per_day}\nmax = 50\n"
ROSTER = "id,name,email,canvas_id,sis_user_id,sis_login_id,moodle_id,section\nann,Ann Lovelace,ann@example.edu,1234,S1,al,88,A\n"
HANDED_IN = "2026-12-03 08:00:00.000000 UTC"  # 32 hours late: 2 days started
SECRET = "ann-s-exchange-secret"  # nbgrader submit's secret: fetch_feedback finds her page by its hash
OVERRIDDEN = "test_mask"  # a 2-point test ann passes: overridden to 1, then worth 3
# as the suite's in-process runs: the sandbox wherever it runs (CI requires it)
UNSAFE = ["--unsafe"] if SANDBOX_PROBLEM and not REQUIRE_SANDBOX else []
# what an instructor's checkout holds that grade, release, mark, export and formgrader read
COPIED = (
    "autograder",
    "solutions",
    "notebooks",
    "self-study",
    "pyproject.toml",
    "README.md",
    "requirements-learner.txt",
)


class Term:
    """One course's repository, submissions and results, driven by the project's commands."""

    def __init__(self, tmp: Path) -> None:
        self.tmp, self.repo, self.out = tmp, tmp / "course", tmp / "out"
        for name in COPIED:
            (shutil.copytree if (ROOT / name).is_dir() else shutil.copy)(ROOT / name, self.repo / name)
        (self.repo / "docs" / "learner").mkdir(parents=True)
        shutil.copy(ROOT / "docs" / "learner" / "index.md", self.repo / "docs" / "learner")
        self.key, self.policy = tmp / "course.key", tmp / "late.toml"
        coursekey.load(self.key, create=True)
        (tmp / "roster.csv").write_text(ROSTER)

    def command(self, *argv: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "autograder", *argv], cwd=self.repo, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, f"{argv[0]}: {done.stdout[-1500:]}\n{done.stderr[-3000:]}"
        return done.stdout + done.stderr

    def grade(self, policy: str) -> str:
        self.policy.write_text(policy)
        argv = ["grade", str(self.tmp / "subs"), "--out", str(self.out), "--key", str(self.key), "--jobs", "1"]
        argv += ["--roster", str(self.tmp / "roster.csv"), "--late", str(self.policy), "--quiet"]
        return self.command(*argv, *UNSAFE)

    def change_points(self, test: str, points: float) -> None:
        """The instructor's edit of the source, then `release` (the learners' copies stay valid)."""
        path = self.repo / "solutions" / f"{NB01}.ipynb"
        source = nbformat.read(path, as_version=4)
        (cell,) = [c for c in source.cells if answers.is_test(c) and answers.nbgrader_id(c) == test]
        cell.metadata.nbgrader["points"] = points
        nbformat.write(source, path)
        self.command("release", NB01)


def _rows(path: Path) -> list[dict]:
    return list(csv.DictReader(path.open(encoding="utf-8")))


View = tuple[float, float, float | None]  # a view's score, late penalty and the notebook's points (None: not shown)


def _page_grade(page: str) -> View:
    """The "Grade:" line and the "Late:" line's points of a page nbgrader rendered from the summary cell."""
    grade_line = re.search(r"Grade: ([\d.]+) / ([\d.]+)", page)
    late = re.search(r"Late:</strong> .*?: ([\d.]+) point\(s\) taken", page)
    if grade_line is None:
        return (-1.0, -1.0, None)
    return (float(grade_line.group(1)), float(late.group(1)) if late else 0.0, float(grade_line.group(2)))


@contextlib.contextmanager
def _formgrader(term: Term):
    """`python -m autograder formgrader OUT`, as README starts it; yields a reader of its pages."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "autograder", "formgrader", str(term.out)],
        cwd=term.repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        match = re.search(r"(http://127\.0\.0\.1:\d+)/formgrader\?token=(\w+)", line)
        assert match, line
        base, token = match.groups()

        def read(path: str) -> str:
            return urllib.request.urlopen(f"{base}{path}?token={token}", timeout=30).read().decode()

        for _ in range(240):
            with contextlib.suppress(OSError):
                read("/api/status")
                break
            time.sleep(0.5)
        else:
            pytest.fail("formgrader did not start")
        yield read
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _formgrader_views(read) -> dict[str, View]:
    """What formgrader serves of ann: its API's score (nbgrader's, before the penalty) and her submission page."""
    (notebook,) = json.loads(read(f"/formgrader/api/student_notebook_submissions/ann/{NB01}"))
    assignment = json.loads(read(f"/formgrader/api/submission/{NB01}/ann"))
    page = read(f"/formgrader/submissions/{notebook['id']}/")
    shown = _page_grade(page)
    penalty = shown[1]  # formgrader's API has nbgrader's score before the penalty, which it does not show
    return {
        "formgrader page": shown,
        "formgrader API (before penalty)": (assignment["score"] - penalty, penalty, assignment["max_score"]),
    }


def _views(term: Term, read) -> dict[str, View]:
    """ann's (score, penalty) as each view has it (a view without a penalty column repeats results.json's)."""
    out = term.out
    [ann] = [r for r in json.loads((out / "results.json").read_text())["submissions"] if r["student_id"] == "ann"]
    [row] = [r for r in _rows(out / "grades.csv") if r["student_id"] == "ann" and r["notebook"] == NB01]
    [lms] = [r for r in _rows(out / "lms.csv") if r["student_id"] == "ann"]
    canvas_rows = _rows(out / "canvas.csv")
    [canvas] = [r for r in canvas_rows if r["ID"] == "1234"]
    possible = float(canvas_rows[0][NB01])  # Canvas's "Points Possible" row
    [moodle] = [r for r in _rows(out / "moodle.csv") if r["Email address"] == "ann@example.edu"]
    exported = term.tmp / "nbgrader_export.csv"
    run = subprocess.run(
        [sys.executable, "-m", "nbgrader", "export", "--to", str(exported)], cwd=out / ".course", capture_output=True
    )
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    [nbg] = [r for r in _rows(exported) if r["student_id"] == "ann" and r["assignment"] == NB01]
    with Gradebook(f"sqlite:///{out / '.course' / 'gradebook.db'}", COURSE_ID) as gb:
        sub = gb.find_submission_notebook(NB01, NB01, "ann")
        penalty = sub.assignment.late_submission_penalty
        book = (sub.score - penalty, penalty, sub.max_score)
    exchange = term.tmp / "exchange"
    argv = ["--exchange", str(exchange), "--course", "course", "--submissions", str(term.tmp / "collected")]
    term.command("release-feedback", str(out), *argv)
    fetched = exchange_feedback(exchange, "course") / f"{notebook_hash(secret=SECRET, notebook_id=NB01)}.html"
    zipped = term.tmp / "canvas-feedback.zip"
    term.command("release-feedback", str(out), "--canvas", str(zipped))
    with zipfile.ZipFile(zipped) as zf:
        [member] = [n for n in zf.namelist() if "_1234_feedback_" in n]
        shipped = zf.read(member).decode("utf-8")
    penalty = ann["penalty"]
    return {
        "results.json": (ann["score"], penalty, ann["max_score"]),
        "grades.csv": (float(row["score"]), float(row["late_submission_penalty"]), float(row["max_score"])),
        "lms.csv": (float(lms[NB01]), penalty, None),
        "canvas.csv": (float(canvas[NB01]), penalty, possible),
        "moodle.csv": (float(moodle[NB01]), penalty, None),
        "nbgrader export": (float(nbg["score"]), float(nbg["late_submission_penalty"] or 0), float(nbg["max_score"])),
        "nbgrader gradebook": book,
        "feedback page": _page_grade((out / "feedback" / "ann" / f"{NB01}.html").read_text(encoding="utf-8")),
        "nbgrader exchange": _page_grade(fetched.read_text(encoding="utf-8")),
        "Canvas feedback zip": _page_grade(shipped),
        **_formgrader_views(read),
    }


def _table(steps: list[tuple[str, dict]]) -> str:
    names = list(steps[0][1])
    lines = ["| change | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for label, views in steps:
        cells = [f"{s:g}" + (f"/{m:g}" if m is not None else "") + f" (-{p:g})" for s, p, m in views.values()]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def _ann(tmp: Path) -> None:
    nb = make_submission(NB01, None)
    for cell in (c for c in nb.cells if answers.is_written(c)):
        cell.source = "The scores grow with the key size, so the softmax saturates."
    (tmp / "subs" / "ann").mkdir(parents=True)
    nbformat.write(nb, tmp / "subs" / "ann" / f"{NB01}.ipynb")
    (tmp / "subs" / "ann" / "timestamp.txt").write_text(HANDED_IN + "\n")
    collected = tmp / "collected" / "ann" / NB01  # as nbgrader collect leaves what came through its exchange
    collected.mkdir(parents=True)
    shutil.copy(tmp / "subs" / "ann" / f"{NB01}.ipynb", collected)
    (collected / "submission_secret.txt").write_text(SECRET)


def test_every_view_has_one_grade_after_each_change(tmp_path):
    _ann(tmp_path)
    term = Term(tmp_path)
    steps: list[tuple[str, dict]] = []
    late_10, late_20 = DUE + POLICY.format(per_day=10), DUE + POLICY.format(per_day=20)
    term.grade(late_10)
    with _formgrader(term) as read:
        steps.append(("graded late, 10% a day", _views(term, read)))
        term.grade(late_20)
        steps.append(("late policy: 20% a day", _views(term, read)))
        term.grade(DUE + "[extensions.ann]\nall_hours = 48\n" + POLICY.format(per_day=20))
        steps.append(("extension: 48 hours", _views(term, read)))
        term.grade(late_20)
        steps.append(("extension withdrawn", _views(term, read)))
        term.command("mark", str(term.out), "ann", NB01, OVERRIDDEN, "1")
        steps.append((f"override: {OVERRIDDEN} = 1 of 2", _views(term, read)))
        term.change_points(OVERRIDDEN, 3)
        said = term.grade(late_20)
        steps.append((f"points: {OVERRIDDEN} 2 -> 3", _views(term, read)))
        replayed = term.command("replay", str(term.out), "ann", NB01, OVERRIDDEN, "--key", str(term.key), *UNSAFE)
        [ann] = json.loads((term.out / "results.json").read_text())["submissions"]
        written = next(t for t in ann["tests"] if t["manual"])
        term.command("mark", str(term.out), "ann", NB01, written["name"], str(written["max_score"] / 2))
        steps.append((f"written answer: {written['max_score'] / 2:g}", _views(term, read)))

    table = _table(steps)
    (tmp_path / "views.md").write_text(table)
    print(table)
    for label, views in steps:
        reference = views["results.json"]
        wrong = {
            name: v
            for name, v in views.items()
            if v[:2] != pytest.approx(reference[:2], abs=0.006) or v[2] not in (None, reference[2])
        }
        assert not wrong, f"after '{label}' these views differ from results.json {reference}: {wrong}"
    scores = [views["results.json"][:2] for _, views in steps]
    assert [views["results.json"][2] for _, views in steps] == [14] * 5 + [15] * 2  # test_mask: 2 points, then 3
    assert scores[0][1] > 0 and scores[1][1] > scores[0][1] and scores[2][1] == 0 and scores[3] == scores[1]
    raw = [score + penalty for score, penalty in scores]  # the points before the late penalty
    assert raw[4] == pytest.approx(raw[3] - 1)  # the override: 1 of 2
    assert raw[5] == pytest.approx(raw[4] + 0.5) and scores[5][1] > scores[4][1]  # 1.5 of 3; 40% of a larger max
    assert f"override rescaled: ann · {NB01} · {OVERRIDDEN}: 1/2 -> 1.5/3" in said  # kept as its fraction, said
    assert raw[6] == pytest.approx(raw[5] + written["max_score"] / 2)
    assert "== OVERRIDDEN: the grade uses 1.5/3, set by mark on " in replayed  # replay shows the override
    released = nbformat.read(term.repo / "notebooks" / f"{NB01}.ipynb", as_version=4)
    (check,) = [c for c in released.cells if contents.is_self_check(c)]
    assert f"'{OVERRIDDEN}': 3," in check.source  # the self-check cell learners get shows the points now
