"""Grading in shards (grade --shard K/N), merging them (python -m autograder merge), and deploy/.

The slow test grades a class in 3 shards as 3 separate processes (two through the Slurm
script with the array variables set by hand, one with an explicit --shard 3/3), merges
them with the Slurm merge script, and compares with one run over the whole class.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest
import yaml
from conftest import ROOT, SANDBOX_PROBLEM
from support import CATALOGUE, make_submission

from autograder import paths
from autograder.results_folder import ResultsFolder
from autograder.run import grade
from autograder.run import shard as sharding
from autograder.scale import merge

NB01 = "01_scaled_dot_product_attention"
DEPLOY = ROOT / "deploy"


# --- the shard of a learner -------------------------------------------------------------


def test_shard_of_is_a_stable_hash_of_the_id():
    # SHA-256 of the UTF-8 id, mod N, plus one: these values hold on every machine, every run
    assert [sharding.shard_of(s, 3) for s in ("ada", "ben", "cy", "dee", "gil", "hal")] == [3, 3, 1, 3, 2, 2]
    assert sharding.shard_of("ada", 1) == 1
    assert sharding.shard_of("émile", 7) == sharding.shard_of("émile", 7)
    ids = [f"s{i:05d}" for i in range(3000)]
    for n in (1, 2, 7, 50):
        counts = [0] * n
        for s in ids:
            k = sharding.shard_of(s, n)
            assert 1 <= k <= n
            counts[k - 1] += 1
        assert min(counts) > 0.7 * len(ids) / n  # about even


def test_every_learner_lands_in_exactly_one_shard():
    class Item:
        def __init__(self, student_id):
            self.student_id = student_id

    items = [Item(f"learner-{i}") for i in range(200)] + [Item("rejected zip.zip")]
    parts = [sharding.select(items, sharding.Shard(k, 5)) for k in range(1, 6)]
    assert sorted(id(i) for part in parts for i in part) == sorted(id(i) for i in items)
    assert sharding.select(items, None) == items


@pytest.mark.parametrize("spec, expected", [("1/3", (1, 3)), ("3/3", (3, 3)), (" 2/8 ", (2, 8)), ("1/1", (1, 1))])
def test_parse(spec, expected):
    shard = sharding.parse(spec)
    assert (shard.index, shard.count) == expected


@pytest.mark.parametrize("spec", ["0/3", "4/3", "3", "a/b", "1/0", "-1/3", "1/3/4", ""])
def test_parse_refuses(spec):
    with pytest.raises(sharding.ShardError, match="K/N"):
        sharding.parse(spec)


def test_kubernetes_indexed_job():
    env = {"JOB_COMPLETION_INDEX": "0", "AUTOGRADER_SHARDS": "3"}
    assert sharding.parse("auto", env) == sharding.Shard(1, 3)
    assert sharding.parse("auto", {**env, "JOB_COMPLETION_INDEX": "2"}) == sharding.Shard(3, 3)
    with pytest.raises(sharding.ShardError, match="K/N"):
        sharding.parse("auto", {**env, "JOB_COMPLETION_INDEX": "3"})
    with pytest.raises(sharding.ShardError, match="AUTOGRADER_SHARDS is not"):
        sharding.parse("auto", {"JOB_COMPLETION_INDEX": "0"})
    with pytest.raises(sharding.ShardError, match="not an integer"):
        sharding.parse("auto", {**env, "AUTOGRADER_SHARDS": "three"})


def _slurm(task, low, high, step=1, count=None):
    count = (high - low) // step + 1 if count is None else count
    return {
        "SLURM_ARRAY_TASK_ID": str(task),
        "SLURM_ARRAY_TASK_MIN": str(low),
        "SLURM_ARRAY_TASK_MAX": str(high),
        "SLURM_ARRAY_TASK_STEP": str(step),
        "SLURM_ARRAY_TASK_COUNT": str(count),
    }


def test_slurm_array_from_0_or_1_or_stepped():
    assert [sharding.from_env(_slurm(t, 0, 2)) for t in (0, 1, 2)] == [sharding.Shard(k, 3) for k in (1, 2, 3)]
    assert [sharding.from_env(_slurm(t, 1, 3)) for t in (1, 2, 3)] == [sharding.Shard(k, 3) for k in (1, 2, 3)]
    assert [sharding.from_env(_slurm(t, 10, 14, 2)) for t in (10, 12, 14)] == [sharding.Shard(k, 3) for k in (1, 2, 3)]
    assert sharding.from_env({**_slurm(2, 1, 3), "AUTOGRADER_SHARDS": "3"}) == sharding.Shard(2, 3)


def test_slurm_refusals():
    with pytest.raises(sharding.ShardError, match="evenly spaced"):
        sharding.from_env(_slurm(4, 1, 9, count=3))  # --array=1,4,9
    with pytest.raises(sharding.ShardError, match="--shard K/50"):
        sharding.from_env({**_slurm(7, 7, 7), "AUTOGRADER_SHARDS": "50"})  # one shard re-run on its own
    with pytest.raises(sharding.ShardError, match="SLURM_ARRAY_TASK_COUNT is not set"):
        sharding.from_env({"SLURM_ARRAY_TASK_ID": "1"})
    with pytest.raises(sharding.ShardError, match="both"):
        sharding.from_env({**_slurm(1, 1, 3), "JOB_COMPLETION_INDEX": "0", "AUTOGRADER_SHARDS": "3"})
    with pytest.raises(sharding.ShardError, match="no scheduler variables"):
        sharding.from_env({})


def test_a_results_folder_belongs_to_one_shard(tmp_path):
    folder = ResultsFolder(tmp_path)
    sharding.claim(folder, sharding.Shard(1, 3))
    sharding.record(folder, sharding.Shard(1, 3), "d-2")
    sharding.claim(folder, sharding.Shard(1, 3))  # the same shard resumes
    with pytest.raises(sharding.ShardError, match="holds shard 1/3, not 2/3"):
        sharding.claim(folder, sharding.Shard(2, 3))
    with pytest.raises(sharding.ShardError, match="holds shard 1/3"):
        sharding.claim(folder, None)
    whole = tmp_path / "whole"
    (whole / ".state" / "ada").mkdir(parents=True)
    (whole / ".state" / "ada" / f"{NB01}.json").write_text("{}")
    with pytest.raises(sharding.ShardError, match="without --shard"):
        sharding.claim(ResultsFolder(whole), sharding.Shard(1, 3))


def test_an_empty_shard_writes_empty_results(tmp_path, capsys):
    subs = tmp_path / "subs"
    (subs / "ada").mkdir(parents=True)  # ada is in shard 3 of 3: shard 1 has nobody
    shutil.copy(paths.DATA / "submissions" / "ada" / f"{NB01}.ipynb", subs / "ada")
    out = tmp_path / "out"
    argv = [str(subs), "--out", str(out), "--shard", "1/3", "--jobs", "1", "--quiet"]
    assert grade.main(argv + (["--unsafe"] if SANDBOX_PROBLEM else [])) == 0
    assert (out / "grades.csv").read_text().count("\n") == 1  # the header only
    assert json.loads((out / "results.json").read_text()) == {"submissions": []}
    assert (out / "lms.csv").read_text().startswith("student_id,")
    record = json.loads((out / "shard.json").read_text())
    assert (record["index"], record["count"]) == (1, 3) and record["digest"].endswith(f"-{grade.ENGINE_VERSION}")
    assert grade.main([str(subs), "--out", str(tmp_path / "o2"), "--shard", "0/3", "--unsafe"]) == 2
    assert "K/N" in capsys.readouterr().err


# --- merge refusals (folders made by hand: nothing graded) --------------------------------


def _digest() -> str:
    return f"{grade.sources_digest(paths.notebook_names())}-{grade.ENGINE_VERSION}"


def _fake_shard(folder: Path, index: int, count: int, students=(), digest=None, recorded=True) -> Path:
    digest = digest or _digest()
    sharding.record(ResultsFolder(folder), sharding.Shard(index, count), digest)
    for student in students:
        result = {"student_id": student, "notebook": NB01, "status": "graded", "content_hash": "x"}
        path = folder / ".state" / student / f"{NB01}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"digest": digest, "recorded": recorded, "result": result}))
    return folder


def _refused(folders, out, match):
    with pytest.raises(merge.MergeError, match=match):
        merge.merge([ResultsFolder(f) for f in folders], ResultsFolder(out), quiet=True)
    assert not out.exists() or not any(out.iterdir())  # nothing written


def test_merge_refusals(tmp_path):
    out = tmp_path / "merged"
    ok = [
        _fake_shard(tmp_path / f"s{k}", k, 3, [s for s in ("cy", "gil", "ada") if sharding.shard_of(s, 3) == k])
        for k in (1, 2, 3)
    ]
    _refused(ok[:2], out, r"missing shard\(s\): 3/3")
    _refused([ok[0], ok[1], ok[1], ok[2]], out, "given twice")
    _refused([ok[0], ok[1], shutil.copytree(ok[1], tmp_path / "again"), ok[2]], out, "shard 2/3 given 2 times")
    other = _fake_shard(tmp_path / "other", 3, 3, digest="0123456789abcdef-1")
    _refused([ok[0], ok[1], other], out, "different sources or engine versions")
    _refused([ok[0], _fake_shard(tmp_path / "four", 2, 4)], out, "different counts")
    wrong = _fake_shard(tmp_path / "wrong", 3, 3, ["ada", "cy"])  # cy belongs to shard 1
    _refused([ok[0], ok[1], wrong], out, "overlapping shards")
    unfinished = _fake_shard(tmp_path / "unfinished", 3, 3, ["ada"], recorded=False)
    _refused([ok[0], ok[1], unfinished], out, "did not finish")
    (tmp_path / "plain").mkdir()
    _refused([ok[0], ok[1], tmp_path / "plain"], out, "not a shard's results")
    (ok[1] / "late.toml").write_text(LATE)  # graded with a late policy that the other shards were not
    _refused(ok, out, r"different late.toml files .*s1 has none.*s2 has one")
    (ok[1] / "late.toml").unlink()
    foreign = [_fake_shard(tmp_path / f"f{k}", k, 2, digest="0123456789abcdef-1") for k in (1, 2)]
    _refused(foreign, out, "this checkout has")
    out.mkdir()
    (out / "something").write_text("")
    with pytest.raises(merge.MergeError, match="not empty"):
        merge.merge([ResultsFolder(f) for f in ok], ResultsFolder(out), quiet=True)
    assert merge.main([str(f) for f in ok[:2]] + ["--out", str(tmp_path / "m2"), "--quiet"]) == 2


# --- deploy/ ----------------------------------------------------------------------------


def test_kubernetes_manifests():
    job = yaml.safe_load((DEPLOY / "kubernetes" / "grade-job.yaml").read_text())
    spec = job["spec"]
    assert job["kind"] == "Job" and spec["completionMode"] == "Indexed"
    assert 1 <= spec["parallelism"] <= spec["completions"]
    (container,) = spec["template"]["spec"]["containers"]
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert int(env["AUTOGRADER_SHARDS"]) == spec["completions"]  # N = the Job's completions
    command = " ".join(container["command"] + container["args"])
    assert "-m autograder grade" in command and "--shard auto" in command
    assert "${JOB_COMPLETION_INDEX}" in command  # each shard its own results folder
    assert "--unsafe" not in command  # no sandbox: the pod fails, it never grades unsandboxed
    assert sharding.parse("auto", {"JOB_COMPLETION_INDEX": str(spec["completions"] - 1), **env}) == sharding.Shard(
        spec["completions"], spec["completions"]
    )
    merge_job = yaml.safe_load((DEPLOY / "kubernetes" / "merge-job.yaml").read_text())
    (merger,) = merge_job["spec"]["template"]["spec"]["containers"]
    merge_command = " ".join(merger["command"] + merger["args"])
    assert "-m autograder merge /data/results/shards/*" in merge_command
    volumes = {v["name"]: v for v in spec["template"]["spec"]["volumes"]}
    assert volumes["data"] == {v["name"]: v for v in merge_job["spec"]["template"]["spec"]["volumes"]}["data"]
    assert "run_job grade-shards" in (DEPLOY / "kubernetes" / "run.sh").read_text()


def test_deploy_scripts_are_valid_shell():
    for script in (*(DEPLOY / "slurm").iterdir(), DEPLOY / "kubernetes" / "run.sh"):
        subprocess.run(["bash", "-n", str(script)], check=True)
        assert os.access(script, os.X_OK), script
    text = (DEPLOY / "slurm" / "grade.sbatch").read_text()
    assert "#SBATCH" in text and '--shard "$SHARD"' in text and "SHARD=${SHARD:-auto}" in text


# --- 3 shards in 3 processes, merged == one run ------------------------------------------


# The course's decisions, given to every shard and to the single run: a due date (cy is two
# days late: 20 % off), a roster (zed is enrolled and submitted nothing), and an override of
# one of ada's tests with `mark` (in shard 3 and in the single run).
LATE = f'[due]\n{NB01} = "2026-12-01T12:00:00+00:00"\n[policy]\nper_day = 10\n'
TIMES = "student_id,notebook,timestamp\ncy,,2026-12-03T11:00:00Z\nada,,2026-12-01T09:00:00Z\n"
ROSTER = "id,name,email\n" + "".join(
    f"{s},{s.title()} Doe,{s}@example.edu\n" for s in "ada ben cy dee gil hal zed".split()
)
OVERRIDE = ["ada", NB01, "test_mask", "1", "--comment", "the mask is right, the test was strict"]


def _decisions(where: Path) -> list[str]:
    """The late policy and roster files, and the grade options that name them."""
    (where / "late.toml").write_text(LATE)
    (where / "roster.csv").write_text(ROSTER)
    return ["--late", str(where / "late.toml"), "--roster", str(where / "roster.csv")]


def _class(subs: Path) -> None:
    """6 learners of notebook 01: shard 1 holds cy, shard 2 gil and hal, shard 3 ada, ben and dee."""
    for student in ("ada", "ben", "cy", "dee"):
        (subs / student).mkdir(parents=True)
        shutil.copy(paths.DATA / "submissions" / student / f"{NB01}.ipynb", subs / student)
    for student, entry in (("gil", "wrong_no_scale.py"), ("hal", "right_einsum.py")):
        (subs / student).mkdir(parents=True)
        nbformat.write(make_submission(NB01, CATALOGUE / NB01 / entry), subs / student / f"{NB01}.ipynb")
    (subs / "timestamps.csv").write_text(TIMES)


def _checkout(where: Path) -> Path:
    """A frozen copy of the repository, as a cluster node has (the sources cannot change under the run)."""
    for part in ("autograder", "solutions", "notebooks", "data", "deploy"):
        shutil.copytree(ROOT / part, where / part, ignore=shutil.ignore_patterns("__pycache__", "*.orig"))
    shutil.copy(ROOT / "pyproject.toml", where)
    return where


def _run(cmd, cwd, env=None):
    done = subprocess.run(cmd, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{cmd}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def _hand_grade(db: Path) -> None:
    """What a person adds in formgrader: extra credit and a comment on cy's notebook."""
    with sqlite3.connect(db) as con:
        notebook = con.execute(
            "SELECT sn.id FROM submitted_notebook sn JOIN submitted_assignment sa ON sn.assignment_id = sa.id "
            "WHERE sa.student_id = 'cy'"
        ).fetchone()[0]
        con.execute(
            "UPDATE grade SET extra_credit = 0.5 WHERE notebook_id = ? AND rowid = "
            "(SELECT min(rowid) FROM grade WHERE notebook_id = ?)",
            (notebook, notebook),
        )
        con.execute("UPDATE comment SET manual_comment = 'see me' WHERE notebook_id = ?", (notebook,))


def _gradebook(db: Path) -> dict:
    """Every stored grade and comment of every submission, by student, notebook and cell name."""
    with sqlite3.connect(db) as con:
        grades = con.execute(
            "SELECT sa.student_id, n.name, c.name, g.auto_score, g.manual_score, g.extra_credit, g.needs_manual_grade "
            "FROM grade g JOIN submitted_notebook sn ON g.notebook_id = sn.id "
            "JOIN submitted_assignment sa ON sn.assignment_id = sa.id JOIN notebook n ON sn.notebook_id = n.id "
            "JOIN base_cell c ON g.cell_id = c.id"
        ).fetchall()
        comments = con.execute(
            "SELECT sa.student_id, n.name, c.name, m.auto_comment, m.manual_comment "
            "FROM comment m JOIN submitted_notebook sn ON m.notebook_id = sn.id "
            "JOIN submitted_assignment sa ON sn.assignment_id = sa.id JOIN notebook n ON sn.notebook_id = n.id "
            "JOIN base_cell c ON m.cell_id = c.id"
        ).fetchall()
        students = con.execute("SELECT id FROM student").fetchall()
    return {"grades": sorted(grades), "comments": sorted(comments), "students": sorted(students)}


def _unrandom(value):
    """A message without the numbers measured on this run's hidden inputs (drawn from a secret per run)."""
    return re.sub(r"\d+\.\d+(e-?\d+)?", "#", value) if isinstance(value, str) else value


def _decisions_kept(out: Path) -> None:
    """The late penalty, the override and the roster's non-submitter, in the merged folder's reports."""
    rows = {r["student_id"]: r for r in csv.DictReader((out / "grades.csv").open()) if r["notebook"] == NB01}
    assert rows["cy"]["late_submission_penalty"] not in ("", "0", "0.0"), rows["cy"]
    assert rows["zed"]["score"] == "", rows["zed"]  # enrolled, nothing submitted: missing, not 0
    ada = next(s for s in json.loads((out / "results.json").read_text())["submissions"] if s["student_id"] == "ada")
    assert [t["score"] for t in ada["tests"] if t["name"] == "test_mask" and t["overridden"]] == [1.0], ada["tests"]
    assert json.loads((out / "overrides.json").read_text())["overrides"][0]["student_id"] == "ada"
    assert (out / "late.toml").read_text() == LATE and (out / "roster.csv").read_text() == ROSTER


def _verdicts(out: Path) -> dict:
    """Per submission: status, scores, flags, errors and every test's verdict (not timings)."""
    data = json.loads((out / "results.json").read_text())
    keep = ("name", "score", "max_score", "status", "message", "hidden", "failed_in", "visible_checks")
    return {
        f"{s['student_id']}/{s['notebook']}": {
            "status": s["status"],
            "score": s["score"],
            "max_score": s["max_score"],
            "flags": s["flags"],
            "errors": s["errors"],
            "tests": [{k: _unrandom(t[k]) for k in keep} for t in s["tests"]],
        }
        for s in data["submissions"]
    }


@pytest.mark.slow
def test_three_shards_in_three_processes_merge_to_one_run(tmp_path):
    repo, subs, results = _checkout(tmp_path / "repo"), tmp_path / "subs", tmp_path / "results"
    _class(subs)
    decided = _decisions(tmp_path)
    unsafe = "--unsafe" if SANDBOX_PROBLEM else ""
    slurm = {
        "WORKBOOK": str(repo),
        "PYTHON": sys.executable,
        "SUBMISSIONS": str(subs),
        "RESULTS": str(results),
        "SLURM_CPUS_PER_TASK": "1",
        "GRADE_ARGS": " ".join(["--quiet", unsafe, *decided]),
    }
    tasks = []
    for task in (1, 2):  # as Slurm starts grade.sbatch for --array=1-3: at once, each on its own
        array = {"SLURM_ARRAY_TASK_ID": str(task), "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "3"}
        array |= {"SLURM_ARRAY_TASK_STEP": "1", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_JOB_ID": "42"}
        tasks.append((["bash", str(repo / "deploy" / "slurm" / "grade.sbatch")], {**slurm, **array}))
    cmd = [sys.executable, "-m", "autograder", "grade", str(subs), "--out", str(results / "shards" / "3")]
    tasks.append((cmd + ["--shard", "3/3", "--jobs", "1", "--quiet", *decided] + ([unsafe] if unsafe else []), {}))
    with ThreadPoolExecutor(len(tasks)) as pool:
        list(pool.map(lambda task: _run(task[0], repo, task[1]), tasks))
    held = {
        k: sorted(
            s["student_id"]
            for s in json.loads((results / "shards" / str(k) / "results.json").read_text())["submissions"]
        )
        for k in (1, 2, 3)
    }
    assert held == {1: ["cy"], 2: ["gil", "hal"], 3: ["ada", "ben", "dee"]}
    _hand_grade(results / "shards" / "1" / ".course" / "gradebook.db")
    mark = [sys.executable, "-m", "autograder", "mark"]
    _run([*mark, str(results / "shards" / "3"), *OVERRIDE], repo)

    merged = _run(["bash", str(repo / "deploy" / "slurm" / "merge.sbatch")], repo, slurm)
    assert "6 row(s) from 3 shard(s)" in merged.stdout
    one = tmp_path / "one"
    again = [sys.executable, "-m", "autograder", "grade", str(subs), "--jobs", "2", "--quiet", *decided]
    again += [unsafe] if unsafe else []
    _run([*again, "--out", str(one)], repo)
    _hand_grade(one / ".course" / "gradebook.db")
    _run([*mark, str(one), *OVERRIDE], repo)

    out = results / "merged"
    assert _verdicts(out) == _verdicts(one)
    assert len(_verdicts(out)) == 6 and {v["score"] for v in _verdicts(out).values()} >= {0, 11}
    for name in ("grades.csv", "lms.csv", "canvas.csv", "moodle.csv"):
        assert (out / name).read_text() == (one / name).read_text(), name
    _decisions_kept(out)
    _run([*again, "--out", str(out)], repo)  # a later run on the merged folder keeps them all
    _decisions_kept(out)
    assert (out / "grades.csv").read_text() == (one / "grades.csv").read_text()
    assert (out / "scores.png").stat().st_size > 1000
    pages = sorted(p.relative_to(out / "feedback") for p in (out / "feedback").rglob("*.html"))
    assert pages == sorted(p.relative_to(one / "feedback") for p in (one / "feedback").rglob("*.html"))
    assert len(pages) == 6
    book = _gradebook(out / ".course" / "gradebook.db")
    assert book == _gradebook(one / ".course" / "gradebook.db")
    assert any(g[0] == "cy" and g[5] == 0.5 for g in book["grades"])  # the hand-given score came along
    assert any(c[0] == "cy" and c[4] == "see me" for c in book["comments"])
    assert len({g[0] for g in book["grades"]}) == 6
    # nbgrader's own API reads it: every learner's total
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{out / '.course' / 'gradebook.db'}", "attention-workbook") as gb:
        totals = {s.student.id: s.score for s in gb.assignment_submissions(NB01)}
    assert set(totals) == {"ada", "ben", "cy", "dee", "gil", "hal"}
