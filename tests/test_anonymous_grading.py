"""Anonymous grading and rubrics beside written answers: a real nbgrader gradebook and a real formgrader server.

`formgrader --anonymous` serves a gradebook whose learners are pseudonyms (no names, ids or
emails anywhere in the served folder); scores typed there land on the right learner and the
exports carry the real ids and names. Every grading view (and `mark`) shows each written
answer's rubric; the learner's feedback never does.
"""

from __future__ import annotations

import contextlib
import csv
import json
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT, grade_options
from nbgrader.api import Gradebook
from support import make_submission

from autograder import paths
from autograder.checks import coursekey
from autograder.commands import formgrader as formgrader_command
from autograder.commands import manual
from autograder.gradebook import grading_view
from autograder.gradebook.course import COURSE_ID, Course
from autograder.kernel.limits import Limits
from autograder.material import answers, rubrics
from autograder.results_folder import ResultsFolder
from autograder.run import grade

NB = "03_multi_head_attention"
LEARNERS = {  # id: (name, email, canvas id, written answer)
    "s1001x": ("Ottilie Brandvold", "ottilie.brandvold@example.edu", "77001", "Heads split the width; cost stays."),
    "s1002y": ("Ignatius Quarrow", "ignatius.quarrow@example.edu", "77002", "Each head is narrower; same work."),
}
SECRETS = [x for sid, (name, email, canvas, _) in LEARNERS.items() for x in (sid, *name.split(), email, canvas)]


def _written_gid() -> str:
    [gid] = answers.written_ids(nbformat.read(paths.source_notebook(NB), as_version=4))
    return gid


def test_pseudonyms_are_stable_per_key_and_say_nothing_of_the_id():
    key, other = bytes(range(32)), bytes(range(1, 33))
    first = coursekey.pseudonym(key, "s1001x")
    assert first == coursekey.pseudonym(key, "s1001x") and re.fullmatch(r"anon-[0-9a-f]{10}", first)
    assert first != coursekey.pseudonym(key, "s1002y") and first != coursekey.pseudonym(other, "s1001x")
    assert "s1001x" not in first


def test_every_written_answer_has_a_rubric_and_its_note_follows_it():
    for name in paths.notebook_names():
        nb = nbformat.read(paths.source_notebook(name), as_version=4)
        found = rubrics.of_notebook(name)
        assert list(found) == answers.written_ids(nb)
        for rubric in found.values():
            assert rubric.rubric.startswith("**Rubric") and rubric.model_answer and rubric.points > 0
            assert "### " not in rubric.rubric + rubric.model_answer  # the markers are not shown
        noted = rubrics.with_notes(nb, name).cells
        nbformat.validate(rubrics.with_notes(nb, name))
        for i, cell in enumerate(noted):
            if answers.is_written(cell):
                note = noted[i + 1]
                assert (
                    rubrics.NOTE_TAG in note.metadata.tags and found[answers.grade_id(cell)].rubric[:40] in note.source
                )


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Two enrolled learners' notebook 03, graded with a roster (names, emails, Canvas ids)."""
    tmp = tmp_path_factory.mktemp("anonymous")
    lines = ["id,name,email,canvas_id"]
    for sid, (name, email, canvas, text) in LEARNERS.items():
        nb = make_submission(NB, None)
        for cell in nb.cells:
            if answers.is_written(cell):
                cell.source = text
        (tmp / "subs" / sid).mkdir(parents=True)
        nbformat.write(nb, tmp / "subs" / sid / f"{NB}.ipynb")
        lines.append(f"{sid},{name},{email},{canvas}")
    (tmp / "roster.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    opts = grade_options(submissions=tmp / "subs", out=tmp / "out", jobs=1, limits=Limits(), roster=tmp / "roster.csv")
    results = {r.student_id: r for r in grade.grade(opts)}
    return opts.out, results


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=ROOT, capture_output=True, text=True)


@contextlib.contextmanager
def _server(*args: str):
    """A real `python -m autograder formgrader ...`; yields (process, a GET/PUT function, the first lines)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "autograder", "formgrader", *args],
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

        def call(path: str, body: dict | None = None, method: str = "") -> str:
            data = json.dumps(body).encode() if body is not None else None
            request = urllib.request.Request(f"{base}{path}", data=data, method=method or ("PUT" if data else "GET"))
            request.add_header("Authorization", f"token {token}")
            return urllib.request.urlopen(request, timeout=30).read().decode()

        for _ in range(120):
            try:
                call("/api/status")
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("formgrader did not start")
        yield proc, call
    finally:
        if proc.poll() is None:
            proc.terminate()
        proc.wait(timeout=60)


def _pseudonym(sid: str) -> str:
    return coursekey.pseudonym(coursekey.load(coursekey.locate(), create=False), sid)


@pytest.mark.slow
def test_anonymous_formgrader_shows_pseudonyms_and_rubrics_and_its_scores_reach_the_exports(graded):
    out, results = graded
    gid, alias = _written_gid(), _pseudonym("s1001x")
    with _server(str(out), "--anonymous") as (proc, call):
        students = json.loads(call("/formgrader/api/students"))
        assert sorted(s["id"] for s in students) == sorted(_pseudonym(s) for s in LEARNERS)
        assert all(s["first_name"] is None and s["last_name"] is None and s["email"] is None for s in students)
        [mine] = [
            s for s in json.loads(call(f"/formgrader/api/submitted_notebooks/{NB}/{NB}")) if s["student"] == alias
        ]
        page = call(f"/formgrader/submissions/{mine['id']}/")
        assert LEARNERS["s1001x"][3].split(";")[0] in page and "For the grader only" in page
        assert _phrase(rubrics.of_notebook(NB)[gid].rubric) in page
        assert not [s for s in SECRETS if s in page], "a learner's name, id or email is in the grading page"
        [grade_row] = [
            g for g in json.loads(call(f"/formgrader/api/grades?submission_id={mine['id']}")) if g["name"] == gid
        ]
        [comment] = [
            c for c in json.loads(call(f"/formgrader/api/comments?submission_id={mine['id']}")) if c["name"] == gid
        ]
        call(f"/formgrader/api/grade/{grade_row['id']}", {"manual_score": 2, "extra_credit": 0.5})
        call(f"/formgrader/api/comment/{comment['id']}", {"manual_comment": "Clear about the width."})
        refused = json.loads(call(f"/formgrader/api/assignment/{NB}/{alias}/generate_feedback", {}, "POST"))
        assert not refused["success"] and grading_view.FEEDBACK_REFUSAL[:40] in refused["error"]  # it shows rubrics
        assert _leaks(out / ".grading") == []
        proc.send_signal(signal.SIGTERM)
        said = proc.stdout.read()
        assert proc.wait(timeout=60) == 128 + signal.SIGTERM
    assert "2 score(s) and comment(s) carried" in said, said
    with Gradebook(f"sqlite:///{out / '.course' / 'gradebook.db'}", COURSE_ID) as gb:  # the learner's own row
        assert gb.find_grade(gid, NB, NB, "s1001x").manual_score == 2
        assert gb.find_grade(gid, NB, NB, "s1002y").manual_score is None
    run = _cli("export", str(out))
    assert run.returncode == 0, run.stderr
    total = results["s1001x"].score + 2 + 0.5
    rows = {
        r["student_id"]: r for r in csv.DictReader((out / "grades.csv").open(encoding="utf-8")) if r["notebook"] == NB
    }
    assert float(rows["s1001x"]["score"]) == total and rows["s1001x"]["email"] == LEARNERS["s1001x"][1]
    canvas = {r["ID"]: r for r in csv.DictReader((out / "canvas.csv").open(encoding="utf-8"))}
    assert canvas["77001"]["Student"] == "Brandvold, Ottilie" and float(canvas["77001"][_column(canvas)]) == total
    moodle = {r["Email address"]: r for r in csv.DictReader((out / "moodle.csv").open(encoding="utf-8"))}
    assert float(moodle[LEARNERS["s1001x"][1]][_column(moodle)]) == total
    page = (out / "feedback" / "s1001x" / f"{NB}.html").read_text(encoding="utf-8")
    assert "Clear about the width." in page and "For the grader only" not in page
    assert _phrase(rubrics.of_notebook(NB)[gid].rubric) not in page


def _phrase(text: str) -> str:
    """Seven plain words of a rubric in a row (as its rendered page holds them, markup and symbols aside)."""
    match = re.search(r"[A-Za-z']+(?: [A-Za-z']+){6}", text)
    assert match, text
    return match.group(0)


def _column(rows: dict[str, dict]) -> str:
    return next(c for c in next(iter(rows.values())) if NB in c)


def _leaks(folder: Path) -> list[str]:
    """Files of the served folder that hold a learner's id, name or email (the gradebook's bytes included)."""
    found = []
    for path in (p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        found += [f"{path.relative_to(folder)}: {s}" for s in SECRETS if s.encode() in data]
        found += [f"{path.relative_to(folder)}: path" for s in LEARNERS if s in str(path)]
    return found


@pytest.mark.slow
def test_anonymous_mark_lists_shows_rubrics_and_scores_by_pseudonym(graded):
    out, results = graded
    gid, alias = _written_gid(), _pseudonym("s1002y")
    listed = _cli("mark", str(out), "--anonymous")
    assert listed.returncode == 0, listed.stderr
    assert f"{alias}  {NB}  {gid}" in listed.stdout and not [s for s in SECRETS if s in listed.stdout]
    shown = _cli("mark", str(out), alias, NB, "--anonymous")
    assert shown.returncode == 0, shown.stderr
    rubric = rubrics.of_notebook(NB)[gid]
    assert LEARNERS["s1002y"][3] in shown.stdout and " ".join(rubric.rubric.split()[:6]) in shown.stdout
    assert shown.stdout.index(LEARNERS["s1002y"][3]) < shown.stdout.index("Rubric")  # the answer, the rubric beside it
    scored = _cli("mark", str(out), alias, NB, gid, "1", "--comment", "Half of it.", "--anonymous")
    assert scored.returncode == 0, scored.stderr
    assert scored.stdout.startswith(f"{alias} · {NB} · {gid}: 1 /") and "s1002y" not in scored.stdout
    rows = {
        r["student_id"]: r for r in csv.DictReader((out / "grades.csv").open(encoding="utf-8")) if r["notebook"] == NB
    }
    assert (
        rows["s1002y"]["needs_manual_grading"] == "" and float(rows["s1002y"]["score"]) == results["s1002y"].score + 1
    )
    by_id = _cli("mark", str(out), "s1002y", NB, gid, "1", "--anonymous")  # a real id is no pseudonym
    assert by_id.returncode == 2 and "no learner has the pseudonym" in by_id.stderr


@pytest.mark.slow
def test_a_score_for_a_submission_that_changed_since_the_view_was_built_is_not_carried(graded, capsys):
    out, _ = graded
    folder, gid = ResultsFolder(out), _written_gid()
    view = grading_view.build(folder, formgrader_command.pseudonyms(folder))
    state = json.loads(folder.grading_state.read_text(encoding="utf-8"))
    for held in state["submissions"].values():
        held[2] = "an earlier submission"  # as if the learner resubmitted after the view was built
    folder.grading_state.write_text(json.dumps(state), encoding="utf-8")
    with Gradebook(f"sqlite:///{view.db_path}", COURSE_ID) as gb:
        before = gb.find_grade(gid, NB, NB, _pseudonym("s1002y")).manual_score
        gb.find_grade(gid, NB, NB, _pseudonym("s1002y")).manual_score = 0.25
        gb.db.commit()
    assert grading_view.collect(folder) == 0 and "resubmitted" in capsys.readouterr().err
    with Gradebook(f"sqlite:///{Course(folder.course_dir).db_path}", COURSE_ID) as gb:
        assert gb.find_grade(gid, NB, NB, "s1002y").manual_score == before


@pytest.mark.slow
def test_the_named_view_shows_rubrics_on_the_courses_own_gradebook(graded):
    out, _ = graded
    folder = ResultsFolder(out)
    view = grading_view.build(folder)
    config = view.config_path.read_text(encoding="utf-8")
    assert f"sqlite:///{Course(folder.course_dir).db_path}" in config and not folder.grading_state.exists()
    nb = nbformat.read(view.root / "autograded" / "s1001x" / NB / f"{NB}.ipynb", as_version=4)
    assert any(rubrics.NOTE_TAG in c.metadata.get("tags", []) for c in nb.cells)
    course_nb = nbformat.read(out / ".course" / "autograded" / "s1001x" / NB / f"{NB}.ipynb", as_version=4)
    assert not any(rubrics.NOTE_TAG in c.metadata.get("tags", []) for c in course_nb.cells)  # feedback's source
    assert grading_view.FEEDBACK_REFUSAL in config  # formgrader's feedback buttons are refused there


@pytest.mark.slow
def test_a_rewritten_page_reaches_the_named_view_and_an_anonymous_one_is_said(graded, capsys):
    """Issue 64 item 1: formgrader left open shows the grade a run just wrote (its copy is replaced in place)."""
    out, _ = graded
    folder = ResultsFolder(out)
    view = grading_view.build(folder)
    shown = view.root / "autograded" / "s1001x" / NB / f"{NB}.ipynb"
    shown.write_text("a copy from before the regrade", encoding="utf-8")
    assert grading_view.follow(folder, "s1001x", NB)
    nb = nbformat.read(shown, as_version=4)  # the course's notebook now, its rubrics added
    course_nb = nbformat.read(out / ".course" / "autograded" / "s1001x" / NB / f"{NB}.ipynb", as_version=4)
    assert [c.source for c in nb.cells if rubrics.NOTE_TAG not in c.metadata.get("tags", [])] == [
        c.source for c in course_nb.cells
    ]
    assert any(rubrics.NOTE_TAG in c.metadata.get("tags", []) for c in nb.cells)

    anonymous = grading_view.build(folder, formgrader_command.pseudonyms(folder))
    before = {p: p.read_bytes() for p in anonymous.root.rglob("*") if p.is_file()}
    assert not grading_view.follow(folder, "s1001x", NB)  # its gradebook is a copy: left as it was, and said
    assert {p: p.read_bytes() for p in anonymous.root.rglob("*") if p.is_file()} == before
    manual.export(folder)
    assert "grade(s) changed since the anonymous formgrader view was built" in capsys.readouterr().err
    grading_view.build(folder)  # the named view back, as the other tests find it
