"""Where the full suite's CPU goes: its parts run one after another, each alone, with the machine's busy CPU.

    python benchmarks/suite_cpu.py [--parts batch attacks ...]
    python benchmarks/suite_cpu.py --quick      # the quick tier (-m "not slow") against its 90 s
    python benchmarks/suite_cpu.py --whole      # the full suite, one run as README gives it, against its 20 min

The full suite keeps every core busy, so its wall time on a machine is at least its CPU
seconds over the cores: only less work brings it down. This runs the suite's parts
separately (the grading batch, the attacks, the harness isolation runs, nbval over
solutions/, and every other test), each with the suite's own options, reads the whole
machine's busy CPU from /proc/stat around each, and prints per part its wall, its CPU
and its share, then the floor the whole puts on the suite's wall time on 2 cores beside
the README's budget (1,200 s). Run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]  # tests/conftest.py, not the root conftest.py

from conftest import BATCH_MODULES  # noqa: E402

QUICK_BUDGET_SECONDS = 90  # the quick tier, -m "not slow"
BUDGET_SECONDS = 1200  # the full suite: 20 minutes on 2 idle cores (README, "The suite's budget is a rule")
PARTS = {  # part -> the paths pytest is given (None: every other test module)
    "batch": BATCH_MODULES,
    "attacks": ("tests/test_attacks.py",),
    "harness": ("tests/test_harness.py",),
    "nbval": ("solutions",),
    "rest": None,
}


def busy_cpu_seconds() -> float:
    """The machine's busy CPU seconds since boot (all cores; idle and iowait left out)."""
    with open("/proc/stat") as fh:
        fields = [int(x) for x in fh.readline().split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields[:8]
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def named_paths() -> list[str]:
    """The paths the named parts give pytest (every part but the rest)."""
    return [p for paths in PARTS.values() if paths for p in paths]


def rest_modules() -> list[str]:
    """Every test module that no named part runs."""
    named = set(named_paths())
    return sorted(
        str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_*.py") if str(p.relative_to(ROOT)) not in named
    )


def run_part(name: str) -> tuple[float, float, int]:
    """Run one part with the suite's options; its wall seconds, busy CPU seconds and pytest's exit code."""
    paths = PARTS[name] or rest_modules()
    cpu, start = busy_cpu_seconds(), time.perf_counter()
    env = {**os.environ, "OMP_NUM_THREADS": "1"}  # as the suite's workers set it (nbval's kernels inherit it)
    command = [sys.executable, "-m", "pytest", "-q", *paths]
    proc = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    wall, used = time.perf_counter() - start, busy_cpu_seconds() - cpu
    if proc.returncode:
        print(proc.stdout[-3000:], file=sys.stderr)
    return wall, used, proc.returncode


def whole_run(tier: str, args: list[str], budget: int) -> int:
    """Time one run of pytest as README gives it (on every core) against its budget."""
    cpu, start = busy_cpu_seconds(), time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", *args], cwd=ROOT, capture_output=True, text=True)
    wall, used = time.perf_counter() - start, busy_cpu_seconds() - cpu
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    print(f"{tier}: {wall:.0f} s wall, {used:.0f} CPU-s, exit {proc.returncode}; budget {budget} s ({summary})")
    for line in proc.stdout.splitlines():  # what failed, from -ra's summary
        if line.startswith(("FAILED", "ERROR")):
            print(line[:300], file=sys.stderr)
    return proc.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", nargs="*", choices=list(PARTS), default=list(PARTS))
    parser.add_argument("--quick", action="store_true", help="time the quick tier (-m 'not slow') instead")
    parser.add_argument("--whole", action="store_true", help="time the whole suite in one run instead")
    args = parser.parse_args()
    if args.quick:
        return whole_run("quick tier", ["-m", "not slow"], QUICK_BUDGET_SECONDS)
    if args.whole:
        return whole_run("full suite", [], BUDGET_SECONDS)
    rows = {name: run_part(name) for name in args.parts}
    total = sum(cpu for _, cpu, _ in rows.values())
    print(f"{'part':<9}{'wall s':>8}{'CPU s':>8}{'share':>7}  exit")
    for name, (wall, cpu, code) in rows.items():
        print(f"{name:<9}{wall:8.0f}{cpu:8.0f}{cpu / total:7.0%}  {code}")
    print(f"{'all':<9}{sum(w for w, _, _ in rows.values()):8.0f}{total:8.0f}")
    print(
        f"on 2 cores the suite cannot take less than {total / 2:.0f} s (its CPU over the cores); "
        f"the budget is {BUDGET_SECONDS} s, {BUDGET_SECONDS * 2:.0f} CPU-s"
    )
    return max((code for _, _, code in rows.values()), default=0)


if __name__ == "__main__":
    sys.exit(main())
