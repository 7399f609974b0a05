"""Cgroups for grading jobs: where they may be made, and each job's groups (made, limited, killed, removed).

Where (found once per process, in this order):

    root                the v1 hierarchies' roots, where writable (AUTOGRADER_CGROUP is ignored)
    AUTOGRADER_CGROUP   v1: a name under each controller's hierarchy (workbook-alice means
                        /sys/fs/cgroup/{pids,memory,cpu}/workbook-alice); v2: the absolute
                        path of a delegated cgroup2 directory the grader runs inside
    the v1 hierarchies  where their roots are writable
    a v2 delegation     the parent of the grader's own cgroup2 folder, where it is delegated
                        to the user and offers controllers (systemd's user delegation)

else none: the jobs get rlimits only. A delegated directory is one whose folder and
cgroup.procs (v2: and cgroup.subtree_control) an administrator or systemd gave to the user.
Job groups are made inside it, so an ordinary user never writes outside what it was given.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from autograder.kernel.limits import Limits

CGROUP_ROOT = Path("/sys/fs/cgroup")
SETTING = "AUTOGRADER_CGROUP"
KINDS = ("pids", "memory", "cpu")


@dataclass(frozen=True)
class Groups:
    """One job's cgroups: the folders made (the job joins each) and the one whose memory limit is set."""

    paths: tuple[Path, ...] = ()
    memory: Path | None = None  # None: no memory limit in a cgroup (RLIMIT_AS instead)


def _writable(path: Path, *files: str) -> bool:
    """The folder, and these files in it, are writable by this process."""
    return path.is_dir() and os.access(path, os.W_OK) and all(os.access(path / f, os.W_OK) for f in files)


def _write_existing(group: Path, settings: dict[str, str]) -> set[str]:
    """Write each setting whose file exists in the group; the names written."""
    written = set()
    for key, value in settings.items():
        with contextlib.suppress(OSError):
            if (group / key).exists():
                (group / key).write_text(value)
                written.add(key)
    return written


def _kill_and_remove(group: Path) -> None:
    """Kill every process in the group (v2: cgroup.kill where the kernel has it), then remove it."""
    for _ in range(50):
        if not group.is_dir():
            return
        try:
            if (group / "cgroup.kill").exists():
                (group / "cgroup.kill").write_text("1")
            for pid in (group / "cgroup.procs").read_text().split():
                os.kill(int(pid), 9)
            group.rmdir()
            return
        except (OSError, ValueError):
            time.sleep(0.1)


@dataclass(frozen=True)
class V1Tree:
    """cgroup v1: one folder per controller hierarchy, in which each job gets a group per controller."""

    bases: tuple[tuple[str, Path], ...]  # (controller, folder job groups are made in)

    def base(self, kind: str) -> Path | None:
        """The folder this controller's job groups go in (None: not here)."""
        return dict(self.bases).get(kind)

    def paths(self, name: str) -> list[Path]:
        """Where the job of this name has (or had) its groups."""
        return [base / name for _, base in self.bases]

    def make(self, name: str, limits: Limits) -> Groups:
        """The job's groups, each with its limit written."""
        quota = {"cpu.cfs_period_us": "100000", "cpu.cfs_quota_us": str(int(limits.cpus * 100000))}
        settings = {
            "pids": {"pids.max": str(limits.processes)},
            "memory": {"memory.limit_in_bytes": str(limits.memory_bytes)},
            "cpu": quota,
        }
        made, memory = [], None
        for kind, base in self.bases:
            group = base / name
            try:
                group.mkdir(exist_ok=True)
            except OSError:
                continue
            made.append(group)
            if "memory.limit_in_bytes" in _write_existing(group, settings[kind]):
                memory = group
        return Groups(tuple(made), memory)

    def memory_hit(self, name: str) -> bool:
        """The job's memory group recorded an allocation over its limit."""
        base = self.base("memory")
        try:
            return base is not None and int((base / name / "memory.failcnt").read_text()) > 0
        except (OSError, ValueError):
            return False


@dataclass(frozen=True)
class V2Tree:
    """cgroup v2: a delegated folder in which each job gets one group, with the controllers it enables."""

    base_dir: Path

    def enabled(self) -> set[str]:
        """The controllers job groups get (those enabled in the folder's subtree_control)."""
        try:
            return set((self.base_dir / "cgroup.subtree_control").read_text().split())
        except OSError:
            return set()

    def base(self, kind: str) -> Path | None:
        """The folder this controller's job groups go in (None: not enabled here)."""
        return self.base_dir if kind in self.enabled() else None

    def paths(self, name: str) -> list[Path]:
        """Where the job of this name has (or had) its group."""
        return [self.base_dir / name]

    def make(self, name: str, limits: Limits) -> Groups:
        """The job's group with the limits its enabled controllers offer (those missing are skipped)."""
        group = self.base_dir / name
        try:
            group.mkdir(exist_ok=True)
        except OSError:
            return Groups()
        settings = {
            "pids.max": str(limits.processes),
            "memory.max": str(limits.memory_bytes),
            "cpu.max": f"{int(limits.cpus * 100000)} 100000",
        }
        written = _write_existing(group, settings)
        return Groups((group,), group if "memory.max" in written else None)

    def memory_hit(self, name: str) -> bool:
        """The job's group reached its memory limit (memory.events: max or oom_kill)."""
        try:
            lines = (self.base_dir / name / "memory.events").read_text().splitlines()
            events = {key: int(value) for key, value in (line.split() for line in lines)}
        except (OSError, ValueError):
            return False
        return events.get("max", 0) > 0 or events.get("oom_kill", 0) > 0

    def enable_controllers(self) -> None:
        """Offer pids, memory and cpu to job groups where the folder has them (refused ones are skipped)."""
        try:
            offered = set((self.base_dir / "cgroup.controllers").read_text().split())
        except OSError:
            return
        for kind in sorted(offered & set(KINDS) - self.enabled()):
            with contextlib.suppress(OSError):  # EBUSY where the folder itself holds processes
                (self.base_dir / "cgroup.subtree_control").write_text(f"+{kind}")


Tree = V1Tree | V2Tree


def _v2_mount() -> Path | None:
    """Where the cgroup2 hierarchy is mounted (/sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid system)."""
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split(" - ")
        if len(fields) == 2 and fields[1].split()[0] == "cgroup2":
            return Path(fields[0].split()[4])
    return None


def own_v2_cgroup() -> Path | None:
    """This process's cgroup2 folder, from /proc/self/cgroup's 0:: line."""
    mount = _v2_mount()
    try:
        line = next(x for x in Path("/proc/self/cgroup").read_text().splitlines() if x.startswith("0::"))
    except (OSError, StopIteration):
        return None
    return None if mount is None else mount / line[3:].lstrip("/")


def _v1(name: str) -> V1Tree | None:
    """The v1 hierarchies' folders called name ("": their roots) this process may make groups in."""
    bases = tuple((kind, CGROUP_ROOT / kind / name) for kind in KINDS)
    found = tuple((kind, base) for kind, base in bases if _writable(base, "cgroup.procs"))
    return V1Tree(found) if found else None


def _v2(folder: Path) -> V2Tree | None:
    """A delegated cgroup2 folder this process may make and join groups in, with controllers offered."""
    if not _writable(folder, "cgroup.procs", "cgroup.subtree_control"):
        return None
    own = own_v2_cgroup()
    if os.geteuid() != 0 and (own is None or not own.is_relative_to(folder)):
        # moving a process needs write access to the common ancestor of its old and new group
        print(f"NOTE: {folder}: the grader must run inside it to move jobs there (it runs in {own})", file=sys.stderr)
        return None
    tree = V2Tree(folder)
    tree.enable_controllers()
    return tree


def _explicit(setting: str, quiet: bool = False) -> Tree | None:
    """The tree AUTOGRADER_CGROUP names (an absolute cgroup2 folder, or a name under the v1 hierarchies)."""
    folder = Path(setting)
    tree: Tree | None
    if folder.is_absolute():
        tree = _v2(folder) if (folder / "cgroup.controllers").exists() else None
    else:
        tree = None if ".." in folder.parts else _v1(setting)
    if tree is None:
        also = "the hierarchies' roots instead" if quiet else "rlimits only"
        print(f"NOTE: {SETTING}={setting} is not a cgroup this user may make groups in; {also}", file=sys.stderr)
    return tree


def _delegated_v2() -> V2Tree | None:
    """For an ordinary user: the parent of its own cgroup2 folder, where delegated to it and offering controllers."""
    own = own_v2_cgroup()
    mount = _v2_mount()
    if own is None or mount is None or own == mount or own.parent == mount:
        return None
    parent = own.parent
    try:
        offered = (parent / "cgroup.controllers").read_text().split()
    except OSError:
        return None
    if not offered or not _writable(parent, "cgroup.procs", "cgroup.subtree_control"):
        return None
    return _v2(parent)


@functools.cache
def _found(setting: str, euid: int) -> Tree | None:
    """The tree job groups go in, for this setting and user."""
    if euid == 0:  # root needs no delegation; the fork server hides exactly these hierarchies from kernels
        # a setting puts the job groups inside the folder it names, so that a limit on that
        # folder (a container's, a benchmark's) holds every kernel too; else the roots
        return (_explicit(setting, quiet=True) if setting else None) or _v1("")
    if setting:
        return _explicit(setting)
    return _v1("") or _delegated_v2()


def tree() -> Tree | None:
    """Where this process makes job groups (None: nowhere, rlimits only)."""
    return _found(os.environ.get(SETTING, ""), os.geteuid())


def make(name: str, limits: Limits) -> Groups:
    """The job's groups with its limits (empty where no tree is found)."""
    found = tree()
    return found.make(name, limits) if found else Groups()


def release(name: str) -> bool:
    """Kill what is left in the job's groups and remove them; True when its memory limit was reached."""
    found = tree()
    if found is None:
        return False
    hit = found.memory_hit(name)
    for group in found.paths(name):
        _kill_and_remove(group)
    return hit
