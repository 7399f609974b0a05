"""Where one grading job's time goes: the reference submission of a notebook, graded N times.

    python benchmarks/job_profile.py 07 [--repeat 3] [--calls 12]

Grades the reference answers of the named notebook(s) N times in one run (one results
folder, the course set up beforehand, jobs run in this process so that they can be
timed from inside), then prints, with the machine's load beside each figure: the mean
seconds of each phase of the job, the floor (benchmarks/bench.py's: a fresh Python
importing torch and running the notebook's code), the ratio job/floor, the seconds of
each test cell's trusted checks, and the costliest calls into the learner's kernel (by
test cell, op and the line of the check that made them). The timing wrappers live in
this script only: nothing graded or saved changes.
"""

from __future__ import annotations

import argparse
import collections
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat

os.environ.setdefault("OMP_NUM_THREADS", "1")  # as the grader sets it for kernels and checks (reference.py)
ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

import torch  # noqa: E402
from bench import floor_seconds  # noqa: E402
from support import make_submission  # noqa: E402

from autograder import paths  # noqa: E402
from autograder.checks import harness, link  # noqa: E402
from autograder.kernel import launchers, membudget  # noqa: E402
from autograder.kernel.limits import Limits  # noqa: E402
from autograder.material import answers  # noqa: E402
from autograder.results_folder import ResultsFolder  # noqa: E402
from autograder.run import grade, worker  # noqa: E402


class Timers:
    """Seconds per test cell and per call into the kernel, gathered by wrapping the harness and the link."""

    def __init__(self) -> None:
        self.tests: dict[str, float] = collections.defaultdict(float)
        self.calls: dict[tuple[str, str, str], list[float]] = collections.defaultdict(lambda: [0, 0.0])
        self.current = ""
        self.cpu: list[tuple[float, float]] = []  # per job: (grader CPU s, kernel CPU s)

    def install(self):
        """Wrap Harness.run_test, KernelLink.request and the job (this process only); returns what undoes it."""
        run_test, request, timers = harness.Harness.run_test, link.KernelLink.request, self
        trusted, run_job = worker._trusted_checks, worker.run_job
        kernel_cpu = [0.0]

        def timed_trusted(*args):
            checks = trusted(*args)

            def run(client, deadline):
                try:
                    return checks(client, deadline)  # what the checks found: the verdicts
                finally:
                    kernel_cpu[0] = _kernel_cpu(client.km)

            return run

        def timed_job(*args, **kwargs):
            kernel_cpu[0], t0 = 0.0, time.process_time()
            try:
                return run_job(*args, **kwargs)
            finally:
                timers.cpu.append((time.process_time() - t0, kernel_cpu[0]))

        def timed_test(self, cell):
            timers.current = answers.nbgrader_id(cell)
            t0 = time.perf_counter()
            try:
                return run_test(self, cell)
            finally:
                timers.tests[timers.current] += time.perf_counter() - t0
                timers.current = ""

        def timed_request(self, req, arrays):
            t0 = time.perf_counter()
            try:
                return request(self, req, arrays)
            finally:
                entry = timers.calls[(timers.current or "(set-up)", str(req.get("op")), _check_line())]
                entry[0] += 1
                entry[1] += time.perf_counter() - t0

        harness.Harness.run_test, link.KernelLink.request = timed_test, timed_request
        worker._trusted_checks, worker.run_job = timed_trusted, timed_job

        def undo() -> None:
            harness.Harness.run_test, link.KernelLink.request = run_test, request
            worker._trusted_checks, worker.run_job = trusted, run_job

        return undo


def _kernel_cpu(km) -> float:
    """CPU seconds the job's kernel processes have used so far (read from /proc, as membudget finds them)."""
    found = membudget.for_kernel(km).__closure__
    processes = next(c.cell_contents for c in found or () if isinstance(c.cell_contents, membudget.KernelProcesses))
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in processes.pids():
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        total += sum(int(f) for f in fields[11:15]) / ticks  # utime, stime, cutime, cstime
    return total


def floor_cpu(name: str) -> tuple[float, float]:
    """The floor's wall seconds and CPU seconds (its process and children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = floor_seconds(name)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def _check_line() -> str:
    """The innermost line of a check's own code (a test cell, a helper) on the stack."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith("<") and not name.startswith("<frozen"):
            return f"{name}:{frame.f_lineno} {frame.f_code.co_name}"
        frame = frame.f_back
    return "?"


def load() -> str:
    """The 1-minute load average."""
    return f"{os.getloadavg()[0]:.2f}"


def grade_repeated(name: str, repeat: int, work: Path) -> list:
    """The reference submission graded `repeat` times (as many learners) in one run, in this process."""
    subs, out = work / "class", work / "results"
    for i in range(repeat):
        (subs / f"learner{i:03d}").mkdir(parents=True)
        nbformat.write(make_submission(name, None), subs / f"learner{i:03d}" / f"{name}.ipynb")
    grade.prepare(ResultsFolder(out), [name])
    opts = grade.Options(
        submissions=subs,
        out=out,
        jobs=1,
        sandbox=launchers.choose(trusted=True),
        limits=Limits(),
        quiet=True,
        in_process=True,
    )
    return grade.grade(opts)


def report(name: str, results: list, timers: Timers, floor: float, floor_load: str, top: int) -> None:
    """Print the phases, the ratio, the test cells and the costliest calls of one notebook."""
    graded = [r for r in results if r.status == "graded"]
    n = len(graded)
    job = sum(r.seconds for r in graded) / max(n, 1)
    print(f"\n== {name}: {n} job(s), load {load()} after")
    for key in dict.fromkeys(k for r in graded for k in r.timings):
        print(f"  {key:<24} {sum(r.timings.get(key, 0.0) for r in graded) / n:6.3f} s")
    rest = job - sum(sum(r.timings.values()) for r in graded) / n
    print(f"  {'rebuild+sandbox+io':<24} {rest:6.3f} s")
    print(f"  per job: {', '.join(f'{r.seconds:.2f}' for r in graded)} s")
    print(f"  job {job:.3f} s  floor {floor:.3f} s (load {floor_load})  ratio {job / floor:.2f}")
    scores = sorted({f"{r.score:g}/{r.max_score:g}" for r in graded})
    print(f"  scores {', '.join(scores)}")
    for r in graded:
        for t in r.tests:
            if t.score < t.max_score:
                print(f"  LOST {t.name} {t.score:g}/{t.max_score:g}: {str(getattr(t, 'message', ''))[:200]}")
    print("  checks per test cell (mean s):")
    for test, seconds in sorted(timers.tests.items(), key=lambda kv: -kv[1]):
        print(f"    {test:<36} {seconds / n:6.3f}")
    count = sum(c for c, _ in timers.calls.values()) / n
    spent = sum(s for _, s in timers.calls.values()) / n
    checks = sum(timers.tests.values()) / n
    print(f"  calls into the kernel: {count:.0f} per job, {spent:.3f} s; the checks' own work: {checks - spent:.3f} s")
    print(f"  costliest calls into the kernel (mean per job; {top} shown):")
    ranked = sorted(timers.calls.items(), key=lambda kv: -kv[1][1])[:top]
    for (test, op, line), (count, seconds) in ranked:
        print(f"    {seconds / n:6.3f} s {count / n:5.0f}x {op:<10} {test:<28} {line}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", help="notebook numbers or names (07, 08_efficient_attention)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--calls", type=int, default=12, help="how many of the costliest calls to print")
    args = parser.parse_args()
    torch.set_num_threads(1)  # as a grading worker (pool.init_worker)
    names = [n for want in args.notebooks for n in paths.notebook_names() if n.startswith(want)]
    for name in names:
        floor_load = load()
        floors = [floor_cpu(name) for _ in range(2)]
        floor, floor_cpu_s = min(w for w, _ in floors), min(c for _, c in floors)
        timers = Timers()
        undo = timers.install()
        work = Path(tempfile.mkdtemp(prefix="job-profile-"))
        try:
            print(f"{name}: grading {args.repeat}x, load {load()} before")
            results = grade_repeated(name, args.repeat, work)
        finally:
            undo()
            shutil.rmtree(work, ignore_errors=True)
        report(name, results, timers, floor, floor_load, args.calls)
        cpu = [g + k for g, k in timers.cpu]
        print(
            f"  CPU (load-robust): job {sum(cpu) / len(cpu):.3f} s (grader {sum(g for g, _ in timers.cpu) / len(cpu):.3f}"
            f" + kernel {sum(k for _, k in timers.cpu) / len(cpu):.3f}), floor {floor_cpu_s:.3f} s,"
            f" ratio {sum(cpu) / len(cpu) / floor_cpu_s:.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
