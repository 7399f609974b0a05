"""Gradescope's image, simulated in full: the zip unpacked into ROOT/source, setup.sh run, one learner graded.

    python benchmarks/gradescope_image.py [--root DIR] [--venv DIR] [--cpus 0] [--memory 2G]

What Gradescope does, in a folder standing for /autograder (AUTOGRADER_ROOT): unpack the
zip into ROOT/source, copy run_autograder to ROOT, run setup.sh (apt-get skipped:
AUTOGRADER_APT=0; pip installs requirements-grader.txt into a NEW venv, ROOT/venv, from
the package index, torch's CPU build from --torch-index), put a learner's notebooks
(data/submissions/ada, all nine) in ROOT/submission, run run_autograder pinned to the CPUs
given (taskset; default one CPU), sample the memory of every process it starts, and validate
results.json against Gradescope's specification (tests/test_gradescope.validate_results).

As root on a machine with cgroup v1 hierarchies, the run is also held to --memory as a
container is: run_autograder starts in a memory cgroup of its own with that limit, and the
grader puts every kernel's group inside it (AUTOGRADER_CGROUP), so the limit holds the whole
tree, kernels included; its peak (memory.max_usage_in_bytes) and how often the limit was
hit (memory.failcnt) are printed.
Prints the setup time, the venv's size, the grading time and the peak memory.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from test_gradescope import validate_results  # noqa: E402

from autograder.scale.gradescope import build_zip  # noqa: E402


def _descendants(pid: int) -> list[int]:
    """pid and every process below it."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    parent = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo.extend(children.get(p, []))
    return found


def _pss(pid: int) -> int:
    """Proportional set size (shared pages split between their users) in bytes, 0 if gone."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _sample(pid: int, peak: list[int], stop: threading.Event) -> None:
    while not stop.is_set():
        peak[0] = max(peak[0], sum(_pss(p) for p in _descendants(pid)))
        time.sleep(0.1)


CGROUPS = Path("/sys/fs/cgroup")


def _container(memory: int) -> tuple[str, list[Path]] | None:
    """A v1 pids/memory/cpu group standing for the container, memory limited; (its name, folders)."""
    if os.geteuid() != 0 or not (CGROUPS / "memory" / "cgroup.procs").exists():
        return None
    name = f"gradescope-bench-{os.getpid()}"
    folders = [CGROUPS / kind / name for kind in ("pids", "memory", "cpu") if (CGROUPS / kind).is_dir()]
    for folder in folders:
        folder.mkdir()
    (CGROUPS / "memory" / name / "memory.limit_in_bytes").write_text(str(memory))
    return name, folders


def _join(folders: list[Path]) -> None:
    for folder in folders:
        (folder / "cgroup.procs").write_text(str(os.getpid()))


def _memory_record(name: str) -> tuple[int, int]:
    """The container's peak memory (bytes, kernels included) and how often its limit was hit."""
    base = CGROUPS / "memory" / name
    return int((base / "memory.max_usage_in_bytes").read_text()), int((base / "memory.failcnt").read_text())


def _empty_and_remove(folder: Path) -> None:
    """Move what is left to the hierarchy's root, then remove the container's group."""
    for sub in sorted(folder.glob("**/"), key=lambda p: len(p.parts), reverse=True):
        for pid in (sub / "cgroup.procs").read_text().split():
            try:
                (folder.parent / "cgroup.procs").write_text(pid)
            except OSError:
                pass
        sub.rmdir()


def _du(path: Path) -> int:
    return int(subprocess.run(["du", "-sb", str(path)], capture_output=True, text=True).stdout.split()[0])


def _build_image(root: Path, env: dict) -> float:
    """Unpack the zip into root/source, copy run_autograder beside it, run setup.sh; its seconds."""
    with zipfile.ZipFile(build_zip(root.parent / f"{root.name}.zip")) as zf:
        zf.extractall(root / "source")
    for name in ("setup.sh", "run_autograder"):
        os.chmod(root / "source" / name, 0o755)
    shutil.copy(root / "source" / "run_autograder", root / "run_autograder")
    t0 = time.perf_counter()
    subprocess.run(["bash", str(root / "source" / "setup.sh")], env=env, check=True, cwd=root / "source")
    return time.perf_counter() - t0


def _grade(root: Path, env: dict, cpus: str, folders: list[Path]) -> tuple[int, float, int]:
    """Submit ada's notebooks and run run_autograder on `cpus` (in `folders`): exit code, seconds, peak bytes."""
    (root / "submission").mkdir(exist_ok=True)
    (root / "results").mkdir(exist_ok=True)
    for nb in sorted((ROOT / "data" / "submissions" / "ada").glob("*.ipynb")):
        shutil.copy(nb, root / "submission")
    peak, stop = [0], threading.Event()
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        ["taskset", "-c", cpus, str(root / "run_autograder")], env=env, cwd=root, preexec_fn=lambda: _join(folders)
    )
    sampler = threading.Thread(target=_sample, args=(proc.pid, peak, stop), daemon=True)
    sampler.start()
    code = proc.wait()
    seconds = time.perf_counter() - t0
    stop.set()
    sampler.join()
    return code, seconds, peak[0]


def main() -> int:
    """Simulate, measure, validate."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, help="the folder standing for /autograder (default: a new temp one)")
    parser.add_argument("--venv", type=Path, help="install into this venv instead of a new ROOT/venv")
    parser.add_argument("--cpus", default="0", help="taskset CPU list for run_autograder (default: one CPU)")
    parser.add_argument("--torch-index", help="AUTOGRADER_TORCH_INDEX for setup.sh (default: PyTorch's CPU index)")
    parser.add_argument("--memory", default="2G", help="the container's memory limit (as root with cgroup v1)")
    args = parser.parse_args()
    units = {"K": 2**10, "M": 2**20, "G": 2**30}
    memory = int(float(args.memory.rstrip("KMG")) * units.get(args.memory[-1:], 1))
    root = (args.root or Path(tempfile.mkdtemp(prefix="gradescope-"))).resolve()
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_APT": "0", "OMP_NUM_THREADS": "1"}
    env |= {"AUTOGRADER_VENV": str(args.venv)} if args.venv else {}
    env |= {"AUTOGRADER_TORCH_INDEX": args.torch_index} if args.torch_index else {}
    setup_s = _build_image(root, env)
    container = _container(memory)
    if container:
        env["AUTOGRADER_CGROUP"] = container[0]  # every kernel's group inside the container's
    try:
        code, grade_s, peak = _grade(root, env, args.cpus, container[1] if container else [])
        held = _memory_record(container[0]) if container else None
    finally:
        for folder in container[1] if container else []:
            _empty_and_remove(folder)
    data = json.loads((root / "results" / "results.json").read_text())
    validate_results(data)
    scored = [t for t in data["tests"] if t["max_score"] > 0]
    venv = args.venv or root / "venv"
    print(f"root: {root}")
    print(f"setup.sh: {setup_s:.1f} s; venv {venv}: {_du(venv) / 2**30:.2f} GiB")
    count = len(list((ROOT / "data" / "submissions" / "ada").glob("*.ipynb")))
    print(f"run_autograder (exit {code}, CPUs {args.cpus}): {grade_s:.1f} s for {count} notebooks")
    print(f"peak memory (summed PSS of run_autograder and every process below it): {peak / 2**20:.0f} MiB")
    if held:
        print(
            f"container limit {memory / 2**20:.0f} MiB: peak {held[0] / 2**20:.0f} MiB (kernels included), hit {held[1]} times"
        )
    else:
        print("no container limit (needs root and cgroup v1 here): memory measured, not enforced")
    print(
        f"results.json valid: score {data['score']:g} of {sum(t['max_score'] for t in scored):g}, "
        f"{len(data['tests'])} entries, visibilities {sorted({t['visibility'] for t in data['tests']})}"
    )
    return code


if __name__ == "__main__":
    sys.exit(main())
