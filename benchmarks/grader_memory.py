"""Peak memory of the grader (every process it starts, kernels excluded) while it grades the attacks.

    python benchmarks/grader_memory.py [--jobs 2] [--only NAME ...]

Grades every attack of tests/attacks/ plus an honest learner with `python -m autograder
grade`, and samples the whole process tree every 50 ms: the grader's own processes (the
command, its workers and relays) apart from the learners' kernels and the fork server
they are forked from. Prints the peak of the grader's summed resident memory, the fork
server's, and how long the run took. Target (issue 28): the grader at most 600 MB.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from attack_support import NB01, ZERO_ANSWERS, attack_files, header, tamper  # noqa: E402
from support import make_submission  # noqa: E402


def _tree() -> dict[int, tuple[int, str, int]]:
    """Every process: pid -> (parent pid, command line, resident bytes)."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmd = fh.read().replace(b"\0", b" ").decode(errors="replace")
            out[int(entry)] = (int(fields[1]), cmd, int(fields[21]) * os.sysconf("SC_PAGE_SIZE"))
        except (OSError, IndexError, ValueError):
            continue
    return out


def _split(root: int, tree: dict) -> tuple[int, int]:
    """(grader's resident bytes, fork server's) among root's descendants; kernels are left out."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in tree.items():
        children.setdefault(ppid, []).append(pid)
    grader = server = 0
    todo = [root]
    while todo:
        pid = todo.pop()
        _, cmd, rss = tree.get(pid, (0, "", 0))
        if "forkserver.py" in cmd:
            server += rss  # its children are the kernels: not walked
            continue
        if "ipykernel" in cmd:
            continue
        if not cmd.startswith(("bwrap", "/usr/bin/bwrap")):  # (a sandbox's outer process: its child counts)
            grader += rss
        todo += children.get(pid, [])
    return grader, server


def _submissions(folder: Path, only: list[str]) -> int:
    for path in attack_files():
        if only and path.stem not in only:
            continue
        nb = make_submission(NB01, path, defaults=ZERO_ANSWERS)
        how = header(path, "tamper")
        (folder / path.stem.replace("_", "-")).mkdir(parents=True)
        nbformat.write(tamper(nb, how) if how else nb, folder / path.stem.replace("_", "-") / f"{NB01}.ipynb")
    (folder / "honest").mkdir(parents=True)
    nbformat.write(make_submission(NB01, None), folder / "honest" / f"{NB01}.ipynb")
    return len(list(folder.iterdir()))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", nargs="*", default=[], help="attack names (default: all)")
    parser.add_argument("--cell-timeout", default="10", help="seconds per cell (the attack tests' limit)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        subs = Path(tmp) / "subs"
        count = _submissions(subs, args.only)
        cmd = [sys.executable, "-m", "autograder", "grade", str(subs), "--out", str(Path(tmp) / "out")]
        start, peak, server_peak = time.perf_counter(), 0, 0
        cmd += ["--jobs", str(args.jobs), "--cell-timeout", args.cell_timeout]
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while proc.poll() is None:
            grader, server = _split(proc.pid, _tree())
            peak, server_peak = max(peak, grader), max(server_peak, server)
            time.sleep(0.05)
        seconds = time.perf_counter() - start
    print(f"{count} submissions at --jobs {args.jobs}: exit {proc.returncode}, {seconds:.0f} s")
    print(f"grader peak RSS (command + workers + relays, summed): {peak / 2**20:.0f} MB (target <= 600 MB)")
    print(f"fork server peak RSS (the kernels' parent, in the sandbox): {server_peak / 2**20:.0f} MB")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
