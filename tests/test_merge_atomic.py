"""merge builds next to --out and renames when complete: a merge killed midway leaves no --out, and runs again."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import ROOT
from test_shard import NB01, _fake_shard

from autograder import results_folder as layout
from autograder.run import shard as sharding
from autograder.scale import merge

KILLED_MIDWAY = """
import os, signal, sys
sys.path.insert(0, {root!r})
from autograder.run import grade
from autograder.scale import merge
real = grade.write_reports  # merge ends with grade.finish, which writes the reports
def die(out, results):
    real(out, results)  # some of the results written, then the merge is killed (SIGKILL: no clean-up runs)
    os.kill(os.getpid(), signal.SIGKILL)
grade.write_reports = die
sys.exit(merge.main({argv!r}))
"""


def _shards(tmp_path):
    students = ("cy", "gil", "ada", "ben")
    return [
        _fake_shard(tmp_path / f"s{k}", k, 3, [s for s in students if sharding.shard_of(s, 3) == k]) for k in (1, 2, 3)
    ]


def test_a_merge_killed_midway_leaves_no_results_and_runs_again(tmp_path):
    shards, out = _shards(tmp_path), tmp_path / "results" / "merged"
    argv = [str(s) for s in shards] + ["--out", str(out), "--quiet"]
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_MIDWAY.format(root=str(ROOT), argv=argv)], cwd=ROOT, capture_output=True
    )
    assert killed.returncode == -9, killed.stderr[-2000:]
    assert not out.exists(), "a killed merge left a partial --out"
    left = [p.name for p in out.parent.iterdir()]
    assert ".merged.merging" in left  # its partial build, beside --out, which the next merge replaces
    assert merge.main(argv) == 0
    assert sorted(p.name for p in out.parent.iterdir() if not p.name.endswith(".merge-lock")) == ["merged"]
    rows = json.loads((out / "results.json").read_text())["submissions"]
    assert sorted(r["student_id"] for r in rows) == ["ada", "ben", "cy", "gil"]
    assert all(r["notebook"] == NB01 for r in rows)
    assert json.loads((out / layout.MERGED).read_text())["count"] == 3
    assert str(out / ".course") in (out / ".course" / "nbgrader_config.py").read_text()
    assert merge.main(argv) == 2  # a finished merge is never overwritten


def test_a_shard_with_notebooks_its_host_could_not_grade_is_refused(tmp_path):
    """grade exited 3 on that shard: the merge names it, so that it is run again before the class is merged."""
    shards = _shards(tmp_path)
    state = sorted((shards[2] / ".state").glob("*/*.json"))[0]
    data = json.loads(state.read_text())
    data["result"].update(status="error", errors=["host: the kernel did not start: ... (it will be graded again)"])
    state.write_text(json.dumps(data))
    out = tmp_path / "merged"
    assert merge.main([str(s) for s in shards] + ["--out", str(out), "--quiet"]) == 2
    assert not out.exists()
