"""The kernel fork server: kernels forked from it are isolated from each other and compute as fresh ones do."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import nbformat
import pytest
from support import graded_in_full_but_the_rule, make_submission

from autograder.kernel import preload
from autograder.kernel.limits import Limits
from autograder.kernel.sandbox import SANDBOX_UID
from autograder.run import grade

pytestmark = [
    pytest.mark.slow,
    pytest.mark.sandbox,
    pytest.mark.skipif(
        os.geteuid() != 0, reason="the fork server is a root mode (a uid per job); test_rootless.py covers a user"
    ),
]
ROOT = Path(__file__).resolve().parent.parent
NB01 = "01_scaled_dot_product_attention"
PROBE = Path(__file__).parent / "probes" / "kernel_probe.py"
LEARNERS = ["p1", "p2", "p3"]


def _probe_class(tmp: Path, preload: str, monkeypatch) -> tuple[dict, dict]:
    """Three learners submitting the probe, graded at 2 jobs; (results, probe output per learner).

    The kernels' work root is outside /tmp (the other tests grade under /tmp, which a
    forked kernel's private /tmp hides anyway), so that hiding it is tested here.
    """
    subs, out = tmp / f"subs-{preload}", tmp / f"out-{preload}"
    work_root = Path(tempfile.mkdtemp(prefix="preload-work-", dir="/var/tmp"))
    work_root.chmod(0o755)  # as RESULTS/.work is: listable, so only hiding it keeps others' folders out
    for learner in LEARNERS:
        (subs / learner).mkdir(parents=True)
        nbformat.write(make_submission(NB01, PROBE), subs / learner / f"{NB01}.ipynb")
    monkeypatch.setenv("AUTOGRADER_PRELOAD", preload)
    opts = grade.Options(submissions=subs, out=out, jobs=2, limits=Limits(), quiet=True, work_root=work_root)
    try:
        results = {r.student_id: r for r in grade.grade(opts)}
    finally:
        shutil.rmtree(work_root)
    probes = {}
    for learner in LEARNERS:
        cells = nbformat.read(out / ".state" / learner / f"{NB01}.ipynb", as_version=4).cells
        texts = [o.get("text", "") for c in cells if c.cell_type == "code" for o in c.get("outputs", [])]
        line = next(t for t in texts if t.startswith("PROBE"))
        probes[learner] = json.loads(line.removeprefix("PROBE"))
    return results, probes


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """The same class graded with the fork server and with a bwrap-started kernel per job."""
    tmp = tmp_path_factory.mktemp("preload")
    with pytest.MonkeyPatch.context() as mp:
        return _probe_class(tmp, "1", mp), _probe_class(tmp, "0", mp)


def test_forked_kernels_grade_in_full(both):
    (results, _), _ = both
    for learner in LEARNERS:  # in full but for the forbidden-built-in rule: the probe imports os and subprocess
        assert graded_in_full_but_the_rule(results[learner]), (results[learner].errors, results[learner].flags)


def test_forked_kernels_are_isolated(both):
    (_, probes), _ = both
    uids = {p["uid"] for p in probes.values()}
    assert len(uids) == len(LEARNERS) and min(uids) > SANDBOX_UID, "each job needs its own unprivileged uid"
    for learner, probe in probes.items():
        assert int(probe["cap_eff"], 16) == 0 and int(probe["cap_bnd"], 16) == 0, probe
        assert probe["no_new_privs"] == "1"
        assert probe["work_root"] == [learner], "other learners' folders must be hidden"
        assert probe["learner_folder"] == [NB01, f"{NB01}.export"]
        assert probe["planted"] is False, "/tmp must be private to each job"


def _kinds(fds: dict[str, str]) -> Counter:
    """What a kernel's descriptors are, by kind: socket, pipe, anon_inode:[eventpoll], a file's path."""
    return Counter(target.split(":[")[0] if ":[" in target else target for target in fds.values())


def test_forked_kernels_inherit_no_descriptor_of_the_server(both):
    """A forked kernel holds what a kernel started on its own holds (and the fonts preloaded read-only).

    Before the fork server closed what it held, a forked kernel kept its listener, its epolls
    and every job connection (67 descriptors), and one kernel could stall the server for all.
    """
    (_, forked), (_, started) = both
    plain = _kinds(next(iter(started.values()))["fds"])
    for learner, probe in forked.items():
        extra = _kinds(probe["fds"]) - plain
        # its own: fonts (read-only), /dev/null as stdio, IPython's history in its private /tmp
        own = [kind for kind in extra if kind.endswith((".ttf", ".otf", ".afm")) or kind in ("/dev/null",)]
        own += [kind for kind in extra if kind.startswith("/tmp/")]
        assert set(extra) == set(own), (learner, extra)


def test_no_program_starts_in_a_kernel(both):
    """Both modes: the kernel's own seccomp filter refuses execve, so the probe's `true` never runs."""
    for _, probes in both:
        assert not any(p["program_starts"] for p in probes.values()), probes


def test_no_process_of_a_job_survives(both):
    (_, probes), _ = both
    uids = {str(p["uid"]) for p in probes.values()}
    listing = subprocess.run(["ps", "-eo", "uid=,cmd="], capture_output=True, text=True, check=True).stdout
    left = [line for line in listing.splitlines() if line.split()[0] in uids]
    assert not left, f"processes of graded jobs are still running: {left}"


def test_each_kernel_draws_its_own_random_numbers():
    """Forked children re-seed (as fresh processes are seeded): none repeats the server's or another's draws."""
    code = f"""
import os, random, sys
sys.path.insert(0, {str(ROOT / "autograder" / "shipped")!r})
import numpy, torch, forkserver
def draw():
    return (random.random(), float(numpy.random.rand()), float(torch.rand(1)))
print(draw())
for _ in range(2):
    if os.fork() == 0:
        forkserver.fresh_random_state()
        print(draw(), flush=True)
        os._exit(0)
    os.wait()
"""
    draws = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    draws = [eval(line) for line in draws if line]  # noqa: S307 - our own printed tuples
    assert len(draws) == 3
    for generator in range(3):
        assert len({d[generator] for d in draws}) == 3, f"generator {generator} repeats across kernels: {draws}"


def test_a_server_that_does_not_start_falls_back_to_bwrap(tmp_path, monkeypatch, capsys):
    """A broken fork server costs speed, not the run: each kernel is then started by bubblewrap."""
    broken = tmp_path / "broken_server.py"
    broken.write_text("import sys\nsys.exit('cannot preload: simulated')\n")
    monkeypatch.setattr(preload, "SERVER", broken)
    subs = tmp_path / "subs" / "s1"
    subs.mkdir(parents=True)
    nbformat.write(make_submission(NB01, None), subs / f"{NB01}.ipynb")
    (result,) = grade.grade(
        grade.Options(submissions=subs.parent, out=tmp_path / "out", jobs=1, limits=Limits(), quiet=True)
    )
    assert result.score == result.auto_max > 0, result.errors
    assert "cannot preload: simulated" in capsys.readouterr().err


def test_forked_kernel_computes_as_a_fresh_one(both):
    """Hash seed, thread count and the torch random state are those of a kernel started fresh."""
    (_, forked), (plain_results, fresh) = both
    for learner in LEARNERS:
        assert graded_in_full_but_the_rule(plain_results[learner]), plain_results[learner].errors
        for key in ("hash", "threads", "rand"):
            assert forked[learner][key] == fresh[learner][key], key
