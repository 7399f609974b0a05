"""Peak memory of the grader (every process it starts, kernels excluded) while it grades the attacks.

    python benchmarks/grader_memory.py [--jobs 2] [--only NAME ...]

Grades every attack of tests/attacks/ plus an honest learner with `python -m autograder
grade`, and samples the whole process tree every 50 ms: the grader's own processes (the
command, its workers and relays) apart from the learners' kernels and the fork server
they are forked from. Prints the peak of the grader's summed memory, as PSS (what the grader's processes hold
between them: a page shared by two workers counts half in each) and as RSS (which counts
torch's shared libraries once per process), per role, the fork server's, and how long
the run took. Target (issue 28): the grader at most 600 MB.
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


def _pss(pid: str) -> int:
    """Proportional set size: resident pages, shared ones divided among the processes mapping them."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _tree() -> dict[int, tuple[int, str, int, int]]:
    """Every process: pid -> (parent pid, command line, resident bytes, proportional bytes)."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmd = fh.read().replace(b"\0", b" ").decode(errors="replace")
            rss = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
            out[int(entry)] = (int(fields[1]), cmd, rss, _pss(entry))
        except (OSError, IndexError, ValueError):
            continue
    return out


def _role(cmd: str, root: bool) -> str:
    """Which part of the grader a process is."""
    if root:
        return "command"
    if "channel_relay" in cmd:
        return "relays"
    return "workers"


def _split(root: int, tree: dict) -> dict[str, list[int]]:
    """Resident and proportional bytes per role among root's descendants; kernels are left out."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, *_) in tree.items():
        children.setdefault(ppid, []).append(pid)
    sums: dict[str, list[int]] = {}
    todo = [root]
    while todo:
        pid = todo.pop()
        _, cmd, rss, pss = tree.get(pid, (0, "", 0, 0))
        if "forkserver.py" in cmd:
            sums.setdefault("fork server", [0, 0])[0] += rss  # its children are the kernels
            continue
        if "ipykernel" in cmd:
            continue
        if not cmd.startswith(("bwrap", "/usr/bin/bwrap")):  # (a sandbox's outer process: its child counts)
            for key in ("grader", _role(cmd, pid == root)):
                entry = sums.setdefault(key, [0, 0])
                entry[0], entry[1] = entry[0] + rss, entry[1] + pss
        todo += children.get(pid, [])
    return sums


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
        start, peaks = time.perf_counter(), {}
        cmd += ["--jobs", str(args.jobs), "--cell-timeout", args.cell_timeout]
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while proc.poll() is None:
            for key, (rss, pss) in _split(proc.pid, _tree()).items():
                old = peaks.get(key, (0, 0))
                peaks[key] = (max(old[0], rss), max(old[1], pss))
            time.sleep(0.05)
        seconds = time.perf_counter() - start
    mb = 2**20
    rss, pss = peaks.get("grader", (0, 0))
    print(f"{count} submissions at --jobs {args.jobs}: exit {proc.returncode}, {seconds:.0f} s")
    print(f"grader peak, summed over command + workers + relays: PSS {pss / mb:.0f} MB (target <= 600 MB),")
    print(f"  RSS {rss / mb:.0f} MB (counts the pages they share, torch's libraries, once per process)")
    for key in ("command", "workers", "relays", "fork server"):
        r, p = peaks.get(key, (0, 0))
        print(f"  {key:<12} peak RSS {r / mb:5.0f} MB" + (f"  PSS {p / mb:5.0f} MB" if p else ""))
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
