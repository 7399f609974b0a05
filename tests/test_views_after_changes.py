"""Issue 64 item 1: one late learner's grade is the same in every view after each change of the term.

ann hands in 32 hours late. In turn: the late policy changes, she gets an extension, a test of
hers is overridden, her written answer is scored. After each change (grade again, or `mark`,
which rewrites the reports) her grade is read from every view: results.json, grades.csv, lms.csv,
canvas.csv, moodle.csv, nbgrader's own `nbgrader export`, nbgrader's gradebook (what formgrader
shows) and her feedback page (its "Grade:" line and nbgrader's penalty line). They must agree.
The table of views is written to the test's folder (views.md) and printed.
"""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys

import nbformat
import pytest
from conftest import ROOT, grade_options
from nbgrader.api import Gradebook
from support import make_submission

from autograder.gradebook.course import COURSE_ID
from autograder.material import answers
from autograder.results_folder import ResultsFolder
from autograder.run import grade

pytestmark = pytest.mark.slow

NB01 = "01_scaled_dot_product_attention"
DUE = f'[due]\n{NB01} = "2026-12-01T23:59:00+00:00"\n'
ROSTER = "id,name,email,canvas_id,sis_user_id,sis_login_id,moodle_id,section\nann,Ann Lovelace,ann@example.edu,1234,S1,al,88,A\n"
HANDED_IN = "2026-12-03 08:00:00.000000 UTC"  # 32 hours late: 2 days started


def _rows(path) -> list[dict]:
    return list(csv.DictReader(path.open(encoding="utf-8")))


def _views(out) -> dict[str, tuple[float, float]]:
    """ann's (score, penalty) as each view has it (a view without a penalty column repeats results.json's)."""
    [ann] = [r for r in json.loads((out / "results.json").read_text())["submissions"] if r["student_id"] == "ann"]
    [row] = [r for r in _rows(out / "grades.csv") if r["student_id"] == "ann" and r["notebook"] == NB01]
    [lms] = [r for r in _rows(out / "lms.csv") if r["student_id"] == "ann"]
    canvas = [r for r in _rows(out / "canvas.csv") if r["ID"] == "1234"][0]
    [moodle] = [r for r in _rows(out / "moodle.csv") if r["Email address"] == "ann@example.edu"]
    exported = out.parent / "nbgrader_export.csv"
    run = subprocess.run(
        [sys.executable, "-m", "nbgrader", "export", "--to", str(exported)], cwd=out / ".course", capture_output=True
    )
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    [nbg] = [r for r in _rows(exported) if r["student_id"] == "ann" and r["assignment"] == NB01]
    with Gradebook(f"sqlite:///{out / '.course' / 'gradebook.db'}", COURSE_ID) as gb:
        sub = gb.find_submission_notebook(NB01, NB01, "ann")
        book = (sub.score - sub.assignment.late_submission_penalty, sub.assignment.late_submission_penalty)
    page = (out / "feedback" / "ann" / f"{NB01}.html").read_text(encoding="utf-8")
    grade_line = re.search(r"Grade: ([\d.]+) / ([\d.]+)", page)
    late = re.search(r"Late submission penalty \(Score: -([\d.]+)\)", page)
    penalty = ann["penalty"]
    return {
        "results.json": (ann["score"], penalty),
        "grades.csv": (float(row["score"]), float(row["late_submission_penalty"])),
        "lms.csv": (float(lms[NB01]), penalty),
        "canvas.csv": (float(canvas[NB01]), penalty),
        "moodle.csv": (float(moodle[NB01]), penalty),
        "nbgrader export": (float(nbg["score"]), float(nbg["late_submission_penalty"] or 0)),
        "gradebook (formgrader)": book,
        "feedback page": (float(grade_line.group(1)) if grade_line else -1, float(late.group(1)) if late else 0.0),
    }


def _mark(out, *args: str) -> None:
    run = subprocess.run([sys.executable, "-m", "autograder", "mark", str(out), *args], cwd=ROOT, capture_output=True)
    assert run.returncode == 0, run.stderr.decode()[-2000:]


def test_every_view_has_one_grade_after_each_change(tmp_path):
    nb = make_submission(NB01, None)
    for cell in (c for c in nb.cells if answers.is_written(c)):
        cell.source = "The scores grow with the key size, so the softmax saturates."
    (tmp_path / "subs" / "ann").mkdir(parents=True)
    nbformat.write(nb, tmp_path / "subs" / "ann" / f"{NB01}.ipynb")
    (tmp_path / "subs" / "ann" / "timestamp.txt").write_text(HANDED_IN + "\n")
    (tmp_path / "roster.csv").write_text(ROSTER)
    policy, out = tmp_path / "late.toml", tmp_path / "out"

    def regrade(text: str) -> None:
        policy.write_text(text)
        grade.grade(grade_options(tmp_path / "subs", out, jobs=1, late=policy, roster=tmp_path / "roster.csv"))

    table, steps = [], []
    regrade(DUE + "[policy]\nper_day = 10\nmax = 50\n")
    steps.append(("graded late, 10% a day", _views(out)))
    regrade(DUE + "[policy]\nper_day = 20\nmax = 50\n")
    steps.append(("late policy: 20% a day", _views(out)))
    regrade(DUE + "[extensions.ann]\nall_hours = 48\n[policy]\nper_day = 20\nmax = 50\n")
    steps.append(("extension: 48 hours", _views(out)))
    regrade(DUE + "[policy]\nper_day = 20\nmax = 50\n")  # the extension withdrawn: late again
    steps.append(("extension withdrawn", _views(out)))
    first = next(iter(ResultsFolder(out).results()))
    passed = next(t for t in first.tests if not t.manual and t.score > 0)
    written = next(t for t in first.tests if t.manual)
    _mark(out, "ann", NB01, passed.name, "0")
    steps.append((f"override: {passed.name} = 0", _views(out)))
    _mark(out, "ann", NB01, written.name, str(written.max_score / 2))
    steps.append((f"written answer: {written.max_score / 2:g}", _views(out)))

    names = list(steps[0][1])
    table.append("| change | " + " | ".join(names) + " |")
    table.append("|---" * (len(names) + 1) + "|")
    for label, views in steps:
        table.append(f"| {label} | " + " | ".join(f"{s:g} (-{p:g})" for s, p in views.values()) + " |")
    (tmp_path / "views.md").write_text("\n".join(table) + "\n")
    print("\n".join(table))
    for label, views in steps:
        reference = views["results.json"]
        wrong = {name: v for name, v in views.items() if v != pytest.approx(reference, abs=0.006)}
        assert not wrong, f"after '{label}' these views differ from results.json {reference}: {wrong}"
    scores = [views["results.json"] for _, views in steps]
    assert scores[0][1] > 0 and scores[1][1] > scores[0][1] and scores[2][1] == 0 and scores[3] == scores[1]
    assert scores[4][0] < scores[3][0] and scores[5][0] > scores[4][0]  # each change moved the grade
