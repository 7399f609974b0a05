"""Grading as an ordinary user: bubblewrap's unprivileged user namespace keeps jobs apart and the instructor's files hidden.

Run by a user who is not root (CI does, as an unprivileged user); as root these skip,
and the root modes are proven by tests/test_preload.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT
from support import graded_in_full_but_the_rule, make_submission

from autograder.kernel import cgroups, launchers
from autograder.kernel.limits import Limits
from autograder.run import grade

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() == 0, reason="rootless mode is for an ordinary user; this runs as root"),
    pytest.mark.sandbox,
]
NB01 = "01_scaled_dot_product_attention"
PROBE = Path(__file__).parent / "probes" / "kernel_probe.py"
LEARNERS = ["r1", "r2", "r3"]


@pytest.fixture(scope="module")
def probed(tmp_path_factory):
    """Three learners submitting the probe, graded at 2 jobs as this user; (results, probes, secrets)."""
    tmp = tmp_path_factory.mktemp("rootless")
    subs, out = tmp / "subs", tmp / "out"
    # a file of the instructor's own (a venv under the home folder makes the path to it exist, empty)
    planted = Path.home() / f".workbook-rootless-secret-{os.getpid()}"
    planted.write_text("the instructor's")
    secrets = [str(ROOT / "solutions"), str(out), str(planted), str(subs)]
    probe = tmp / "probe.py"
    text = PROBE.read_text().replace("__SECRETS__", "|".join(secrets)).replace("__GRADER_PID__", str(os.getpid()))
    probe.write_text(text)
    work_root = Path(tempfile.mkdtemp(prefix="rootless-work-", dir="/var/tmp"))
    work_root.chmod(0o755)
    for learner in LEARNERS:
        (subs / learner).mkdir(parents=True)
        nbformat.write(make_submission(NB01, probe), subs / learner / f"{NB01}.ipynb")
    opts = grade.Options(submissions=subs, out=out, jobs=2, limits=Limits(), quiet=True, work_root=work_root)
    try:
        results = {r.student_id: r for r in grade.grade(opts)}
    finally:
        shutil.rmtree(work_root, ignore_errors=True)
        planted.unlink()
    probes = {}
    for learner in LEARNERS:
        cells = nbformat.read(out / ".state" / learner / f"{NB01}.ipynb", as_version=4).cells
        texts = [o.get("text", "") for c in cells if c.cell_type == "code" for o in c.get("outputs", [])]
        probes[learner] = json.loads(next(t for t in texts if t.startswith("PROBE")).removeprefix("PROBE"))
    return results, probes, secrets, work_root


def test_an_ordinary_user_gets_the_rootless_sandbox():
    assert launchers.choose().mode == "rootless"


def test_rootless_kernels_grade_in_full(probed):
    results, _, _, _ = probed
    for learner in LEARNERS:  # in full but for the forbidden-built-in rule: the probe imports os and subprocess
        assert graded_in_full_but_the_rule(results[learner]), (results[learner].errors, results[learner].flags)


def test_rootless_kernel_sees_only_its_own_folders(probed):
    _, probes, secrets, _ = probed
    for learner, probe in probes.items():
        assert probe["work_root"] == [learner], "other learners' folders must be hidden"
        assert probe["learner_folder"] == [NB01, f"{NB01}.export"]
        assert probe["planted"] is False, "/tmp must be private to each job"
        assert probe["seen"] == dict.fromkeys(secrets, False), "the instructor's folders must be invisible"


def test_rootless_kernel_has_no_privilege(probed):
    _, probes, _, _ = probed
    for probe in probes.values():
        assert probe["uid"] == os.getuid() != 0
        assert int(probe["cap_eff"], 16) == 0 and int(probe["cap_bnd"], 16) == 0, probe
        assert probe["no_new_privs"] == "1"
        assert probe["new_userns"] is False, "a nested user namespace would give back every capability"
        assert probe["mount"] is False


def test_rootless_jobs_cannot_see_or_signal_each_other_or_the_grader(probed):
    _, probes, _, _ = probed
    for probe in probes.values():
        assert max(probe["pids_visible"]) < 100, f"the job sees the host's processes: {probe['pids_visible']}"
        assert probe["signal_grader"] in ("ProcessLookupError", "PermissionError"), probe["signal_grader"]


def test_no_process_of_a_rootless_job_survives(probed):
    _, _, _, work_root = probed
    # this user's processes only: a root shell's own `sleep 300` elsewhere on the machine is not a job's
    ps = ["ps", "-u", str(os.getuid()), "-o", "pid=,args="]
    listing = subprocess.run(ps, capture_output=True, text=True, check=True).stdout
    left = [line for line in listing.splitlines() if str(work_root) in line or "sleep 300" in line]
    assert not left, f"processes of graded jobs are still running: {left}"


def test_a_delegated_cgroup_is_used_and_left_empty(probed):
    """Where AUTOGRADER_CGROUP names a delegation (CI gives one), the jobs' groups were made in it and removed.

    Run in one process (.ci/rootless: -n 0): a test grading in the same delegation at the same time has groups there.
    """
    if not os.environ.get(cgroups.SETTING):
        pytest.skip("no cgroup delegated to this user (AUTOGRADER_CGROUP unset): rlimits only")
    tree = cgroups.tree()
    assert tree is not None, f"{cgroups.SETTING}={os.environ[cgroups.SETTING]} was not usable"
    bases = {tree.base(kind) for kind in cgroups.KINDS} - {None}
    assert bases, "the delegation offers none of pids, memory and cpu"
    for base in bases:
        assert not list(base.glob("autograder-*")), f"job groups left in {base}"
