"""Cgroups for an ordinary user's jobs: a delegated subtree is found, its limits hold, and nothing is left.

Run as root: it delegates a subtree to an ordinary user as an administrator would (mkdir,
chown), grades as that user (rootless bubblewrap) with AUTOGRADER_CGROUP naming it, and
reads the kernel's own accounting while the jobs run: each group's cgroup.procs, the host's
/proc/PID/cgroup of the kernels in it, pids.max and pids.events, memory.limit_in_bytes and
memory.failcnt. Needs an ordinary user with a Python that can grade (WORKBOOK_TEST_USER,
WORKBOOK_USER_PYTHON; else wbuser or wbci with the Pythons CI and this machine give them).
Also a driver: `python tests/test_cgroups.py SUBS OUT WORK LIMITS_JSON` grades as whoever runs it.
"""

from __future__ import annotations

import functools
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMITS = {"cell_seconds": 60, "notebook_seconds": 180, "memory_bytes": 3 * 2**29, "processes": 128}
PROBE = Path(__file__).parent / "probes" / "cgroup_probe.py"
HOG = Path(__file__).parent / "attacks" / "memory_hog.py"
NB01 = "01_scaled_dot_product_attention"


def _drive(subs: str, out: str, work: str, limits: str) -> None:
    """Grade as this process's user; print the tree used and each learner's result as one RESULT line."""
    sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
    from autograder.kernel import cgroups
    from autograder.kernel.limits import Limits
    from autograder.run import grade

    limits = Limits(**json.loads(limits))
    opts = grade.Options(
        submissions=Path(subs), out=Path(out), jobs=2, limits=limits, quiet=True, work_root=Path(work), new_key=True
    )
    results = grade.grade(opts)
    said = {
        r.student_id: {
            "score": r.score,
            "max": r.auto_max,
            "notes": r.flags + r.errors,
            "lost": sorted(t.name for t in r.tests if not t.manual and t.score < t.max_score),
        }
        for r in results
    }
    print("RESULT" + json.dumps({"tree": repr(cgroups.tree()), "results": said}))


if __name__ == "__main__":
    _drive(*sys.argv[1:5])
    sys.exit(0)

import nbformat  # noqa: E402
import pytest  # noqa: E402
from support import PROBE_RULE_TEST, make_submission  # noqa: E402

from autograder.kernel import cgroups  # noqa: E402

pytestmark = pytest.mark.slow


def _runs(command: list[str], **kwargs) -> bool:
    """The command succeeds."""
    try:
        return subprocess.run(command, capture_output=True, timeout=300, **kwargs).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@functools.cache
def grading_user() -> tuple[str, str] | str:
    """(user, python) that can grade in the rootless sandbox here, or why not."""
    if os.geteuid() != 0:
        return "delegating a cgroup to a user needs root"
    if shutil.which("bwrap") is None or shutil.which("runuser") is None:
        return "needs bubblewrap and runuser"
    users = os.environ.get("WORKBOOK_TEST_USER", "wbuser wbci").split()
    pythons = [os.environ.get("WORKBOOK_USER_PYTHON", ""), "/opt/wbvenv/bin/python", sys.executable]
    pythons.append("/home/wbci/workbook/.venv-user/bin/python")
    for user in users:
        try:
            pwd.getpwnam(user)
        except KeyError:
            continue
        as_user = ["runuser", "-u", user, "--"]
        if not _runs([*as_user, "bwrap", "--unshare-all", "--unshare-user", "--ro-bind", "/", "/", "true"]):
            continue
        for python in filter(None, pythons):
            if _runs([*as_user, python, "-c", "import torch, nbgrader, autograder.run.grade"], cwd=ROOT):
                return user, python
    return "no ordinary user with a Python that can grade here (set WORKBOOK_TEST_USER, WORKBOOK_USER_PYTHON)"


def _user() -> tuple[str, str]:
    """The grading user and its Python, or skip saying why there is none."""
    found = grading_user()
    if isinstance(found, str):
        pytest.skip(found)
    return found


def _owned_dir(user: str, prefix: str) -> Path:
    """A fresh folder the user owns, outside root's private temporary folders."""
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir="/var/tmp"))
    shutil.chown(folder, user, user)
    return folder


def _delegate(folder: Path, user: str) -> Path:
    """Make the cgroup folder and give it to the user, as an administrator delegates one."""
    folder.mkdir()
    subprocess.run(["chown", "-R", f"{user}:", str(folder)], check=True)
    return folder


def _undelegate(folder: Path) -> None:
    """Remove a delegated folder: any job group a failed test left (killing its processes), then the folder."""
    for group in sorted(folder.glob("**/"), key=lambda p: len(p.parts), reverse=True):
        cgroups._kill_and_remove(group)


class Watch(threading.Thread):
    """Reads the kernel's accounting of every job group in the delegated folders while the jobs run."""

    FILES = (
        "pids.max",
        "pids.events",
        "memory.limit_in_bytes",
        "memory.failcnt",
        "memory.max",
        "cpu.cfs_quota_us",
        "cpu.max",
    )

    def __init__(self, folders: list[Path]) -> None:
        super().__init__(daemon=True)
        self.folders, self.seen, self.done = folders, {}, threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            for folder in self.folders:
                for group in folder.glob("autograder-*"):
                    self._read(group)
            time.sleep(0.05)

    def _read(self, group: Path) -> None:
        seen = self.seen.setdefault(str(group), {"files": {}, "kernels": {}, "pids_refused": 0, "failcnt": 0})
        try:
            for name in self.FILES:
                if (group / name).exists():
                    seen["files"][name] = (group / name).read_text().strip()
            for pid in (group / "cgroup.procs").read_text().split():
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
                if "ipykernel" in cmdline:
                    lines = Path(f"/proc/{pid}/cgroup").read_text().split()
                    if _alive(pid):  # an exiting task is moved to the root group first (v1): its lines say "/"
                        seen["kernels"][pid] = lines
        except OSError:
            return  # the group or the process went away meanwhile
        events = dict(line.split() for line in seen["files"].get("pids.events", "").splitlines())
        seen["pids_refused"] = max(seen["pids_refused"], int(events.get("max", 0)))
        seen["failcnt"] = max(seen["failcnt"], int(seen["files"].get("memory.failcnt", 0)))


def _alive(pid: str) -> bool:
    """Whether the process had not begun to exit (PF_EXITING 0x4 unset, not a zombie) when this was read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] not in ("Z", "X") and not int(fields[6]) & 0x4


def _in_full_but_the_rule(said: dict) -> bool:
    """The probe's grade: every point but the forbidden-built-in rule's (it imports os and leaves a copy of the kernel running), flagged."""
    flagged = any(note.startswith("forbidden:") for note in said["notes"])
    return said["max"] > 0 and said["lost"] == [PROBE_RULE_TEST] and flagged


def _grade_as(user: str, python: str, learners: dict[str, Path], env: dict[str, str], wrap=()) -> tuple[dict, Path]:
    """Grade these learners' answer files as the user (the driver above); (its RESULT, the work folder)."""
    base = _owned_dir(user, "cgtest-")
    subs, out, work, home = base / "subs", base / "out", base / "work", base / "home"
    for learner, answers in learners.items():
        (subs / learner).mkdir(parents=True)
        nbformat.write(make_submission(NB01, answers), subs / learner / f"{NB01}.ipynb")
    home.mkdir()
    subprocess.run(["chown", "-R", f"{user}:", str(base)], check=True)
    clean = {"PATH": os.environ["PATH"], "HOME": str(home), "LANG": "C.UTF-8", "AUTOGRADER_CACHE": str(home / "cache")}
    clean["AUTOGRADER_KEY_FILE"] = str(home / "course.key")  # the checkout's build/ is root's
    command = ["runuser", "-u", user, "--", "env", "-i", *(f"{k}={v}" for k, v in {**clean, **env}.items())]
    command += [python, str(Path(__file__)), str(subs), str(out), str(work), json.dumps(LIMITS)]
    run = subprocess.run([*wrap, *command], capture_output=True, text=True, timeout=900, cwd=ROOT)
    line = next((x for x in run.stdout.splitlines() if x.startswith("RESULT")), "")
    assert line, f"the grading run as {user} failed ({run.returncode}): {run.stderr[-3000:]}"
    probes = []
    for path in (out / ".state").glob(f"*/{NB01}.ipynb"):
        cells = nbformat.read(path, as_version=4).cells
        texts = [o.get("text", "") for c in cells if c.cell_type == "code" for o in c.get("outputs", [])]
        probes += [json.loads(t.removeprefix("CGPROBE")) for t in texts if t.startswith("CGPROBE")]
    shutil.rmtree(base, ignore_errors=True)
    return {**json.loads(line.removeprefix("RESULT")), "probes": probes}, work


def _evidence(seen: dict) -> str:
    """What the kernel said of each job group: its limits, the refusals counted, one kernel's cgroups."""
    lines = []
    for group, record in sorted(seen.items()):
        kernel = next(iter(record["kernels"].values()), [])
        wanted = [x for x in kernel if x.split(":")[1] in ("pids", "memory", "cpu", "")]
        lines.append(f"  {group}: {record['files']} pids refused {record['pids_refused']}, failcnt {record['failcnt']}")
        lines.append(f"    a kernel in it ({len(record['kernels'])} seen): {wanted}")
    return "\n".join(lines)


def _nothing_left(folders: list[Path], work: Path) -> None:
    """No job group is left in the delegated folders, and no process of the jobs runs."""
    for folder in folders:
        assert not list(folder.glob("autograder-*")), f"job groups left in {folder}"
        assert (folder / "cgroup.procs").read_text().split() == [], f"processes left in {folder}"
    listing = subprocess.run(["ps", "-eo", "pid=,args="], capture_output=True, text=True, check=True).stdout
    left = [line for line in listing.splitlines() if "sleep 317" in line or str(work) in line]
    assert not left, f"processes of graded jobs are still running: {left}"


def test_a_user_gets_no_cgroup_unless_one_is_delegated_and_root_uses_a_setting_that_exists():
    user, python = _user()
    ask = [python, "-c", "from autograder.kernel import cgroups; print(repr(cgroups.tree()))"]
    plain = subprocess.run(["runuser", "-u", user, "--", *ask], capture_output=True, text=True, cwd=ROOT)
    assert plain.stdout.strip() == "None", plain.stdout + plain.stderr  # this machine: no delegation by default
    named = subprocess.run(
        ["runuser", "-u", user, "--", "env", "AUTOGRADER_CGROUP=not-delegated", *ask],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert named.stdout.strip() == "None" and "rlimits only" in named.stderr
    as_root = subprocess.run([sys.executable, *ask[1:]], capture_output=True, text=True, cwd=ROOT,
                             env={**os.environ, "AUTOGRADER_CGROUP": "anything"})  # fmt: skip
    assert as_root.stdout.startswith("V1Tree") or as_root.stdout.strip() == "None"
    assert "anything" not in as_root.stdout and "roots instead" in as_root.stderr  # a wrong name: the roots
    name = f"workbook-root-{uuid.uuid4().hex[:8]}"  # a folder that exists: root's job groups go inside it
    made = [cgroups.CGROUP_ROOT / kind / name for kind in cgroups.KINDS if (cgroups.CGROUP_ROOT / kind).is_dir()]
    for folder in made:
        folder.mkdir()
    try:
        inside = subprocess.run([sys.executable, *ask[1:]], capture_output=True, text=True, cwd=ROOT,
                                env={**os.environ, "AUTOGRADER_CGROUP": name})  # fmt: skip
    finally:
        for folder in made:
            folder.rmdir()
    assert not made or all(str(f) in inside.stdout for f in made), inside.stdout + inside.stderr


def test_a_delegated_v1_subtree_holds_the_jobs_limits_them_and_is_left_empty():
    user, python = _user()
    name = f"workbook-test-{uuid.uuid4().hex[:8]}"
    hierarchies = [cgroups.CGROUP_ROOT / kind for kind in cgroups.KINDS]
    if not all((h / "cgroup.procs").exists() for h in hierarchies):
        pytest.skip("no cgroup v1 pids, memory and cpu hierarchies here")
    folders = [_delegate(h / name, user) for h in hierarchies]
    watch = Watch(folders)
    watch.start()
    try:
        said, work = _grade_as(user, python, {"probe": PROBE, "hog": HOG}, {"AUTOGRADER_CGROUP": name})
        watch.done.set()
        watch.join()
        _nothing_left(folders, work)
    finally:
        watch.done.set()
        for folder in folders:
            _undelegate(folder)
    print(f"\nv1 delegated {name}: tree {said['tree']}\n{_evidence(watch.seen)}")
    print(f"  probes: {said['probes']}\n  results: {said['results']}")
    assert said["tree"].startswith("V1Tree") and all(str(f) in said["tree"] for f in folders)
    probe, hog = said["results"]["probe"], said["results"]["hog"]
    assert _in_full_but_the_rule(probe), probe
    assert any("memory limit" in note for note in hog["notes"]), hog  # memory.failcnt, read at release
    groups = {Path(g).name for g in watch.seen}
    assert len(groups) == 2, f"one group per job in each hierarchy: {groups}"
    kernels = {pid: lines for seen in watch.seen.values() for pid, lines in seen["kernels"].items()}
    assert kernels, "no kernel was seen in a job group"
    for lines in kernels.values():  # the host kernel puts the learner's kernel in its job group in each hierarchy
        for kind in cgroups.KINDS:
            line = next(x for x in lines if kind in x.split(":")[1].split(","))
            assert line.split(":", 2)[2].startswith(f"/{name}/autograder-"), lines
    for path, seen in watch.seen.items():
        files = seen["files"]
        if "/pids/" in path:
            assert files["pids.max"] == str(LIMITS["processes"])
        if "/memory/" in path:
            assert files["memory.limit_in_bytes"] == str(LIMITS["memory_bytes"])
        if "/cpu/" in path:
            assert files["cpu.cfs_quota_us"] == "100000"
    assert max(s["pids_refused"] for s in watch.seen.values()) > 0, "pids.max did not refuse a fork"
    assert max(s["failcnt"] for s in watch.seen.values()) > 0, "memory.failcnt never counted"
    (inside,) = said["probes"]
    assert inside["stopped"] == "BlockingIOError" and inside["forked"] < LIMITS["processes"], inside
    # its cgroup namespace is rooted at its job group: it sees itself at / in each hierarchy
    assert all(line.endswith(":/") for line in inside["cgroup"] if line.split(":")[1] in cgroups.KINDS), inside


def test_a_delegated_v2_folder_holds_the_jobs_and_is_left_empty():
    user, python = _user()
    mount = cgroups._v2_mount()
    if mount is None or not (mount / "cgroup.subtree_control").exists():
        pytest.skip("no cgroup2 hierarchy here")
    delegated = _delegate(mount / f"workbook-test-{uuid.uuid4().hex[:8]}", user)
    leaf = _delegate(delegated / "grader", user)  # the grader runs inside what it was given, as systemd does it
    offered = set((delegated / "cgroup.controllers").read_text().split())
    watch = Watch([delegated])
    watch.start()
    try:
        wrap = ["sh", "-c", f'echo $$ > {leaf}/cgroup.procs && exec "$@"', "into-delegated"]
        said, work = _grade_as(user, python, {"probe": PROBE}, {"AUTOGRADER_CGROUP": str(delegated)}, wrap)
        watch.done.set()
        watch.join()
        _nothing_left([delegated], work)
    finally:
        watch.done.set()
        _undelegate(delegated)
    print(f"\nv2 delegated {delegated} (offers {sorted(offered)}): tree {said['tree']}")
    print(f"{_evidence(watch.seen)}\n  probes: {said['probes']}\n  results: {said['results']}")
    assert said["tree"] == f"V2Tree(base_dir={delegated!r})"
    probe = said["results"]["probe"]
    assert _in_full_but_the_rule(probe), probe
    kernels = {pid: lines for seen in watch.seen.values() for pid, lines in seen["kernels"].items()}
    assert kernels, "no kernel was seen in a job group"
    for lines in kernels.values():
        v2 = next(x for x in lines if x.startswith("0::"))
        assert v2.startswith(f"0::/{delegated.relative_to(mount)}/autograder-"), lines
    for seen in watch.seen.values():  # a limit is written where its controller is offered, skipped where not
        assert ("pids.max" in seen["files"]) == ("pids" in offered), seen["files"]
        assert ("memory.max" in seen["files"]) == ("memory" in offered), seen["files"]
        if "pids" in offered:
            assert seen["files"]["pids.max"] == str(LIMITS["processes"])


def test_release_kills_what_a_job_group_holds_and_removes_it():
    if os.geteuid() != 0:
        pytest.skip("moving a process into a new cgroup here needs root")
    mount = cgroups._v2_mount()
    folders = [cgroups.CGROUP_ROOT / kind for kind in cgroups.KINDS if (cgroups.CGROUP_ROOT / kind).is_dir()]
    folders += [mount] if mount is not None else []
    for folder in folders:
        group = folder / f"workbook-test-{uuid.uuid4().hex[:8]}"
        group.mkdir()
        held = subprocess.Popen(["sh", "-c", f"echo $$ > {group}/cgroup.procs && exec sleep 300"])
        try:
            deadline = time.monotonic() + 10
            while str(held.pid) not in (group / "cgroup.procs").read_text().split() and time.monotonic() < deadline:
                time.sleep(0.05)
            uses_kill = (group / "cgroup.kill").exists()  # v2: one write kills the group; v1: each pid in it
            cgroups._kill_and_remove(group)
            assert held.wait(10) == -9, f"{group}: the process was not killed"
            assert not group.exists(), f"{group} was not removed"
            print(f"\n{group}: killed ({'cgroup.kill' if uses_kill else 'each pid'}) and removed")
        finally:
            held.kill()
            if group.exists():
                group.rmdir()
