"""gradescope: build a Gradescope autograder zip that grades one submission with this engine.

The zip holds setup.sh (installs bubblewrap and the Python requirements), run_autograder
(calls `python -m autograder gradescope-run`) and source/ (this package, the source
notebooks, requirements). Gradescope runs run_autograder as root; the learner's kernel
then runs in the same sandbox as `grade` (its own uid, no network, only its folder), and
only this harness writes /autograder/results/results.json. Where the container forbids
the namespaces bubblewrap needs, the kernel runs in the reduced sandbox Gradescope's own
advice describes: its own uid, no capabilities, process and memory limits, every folder
of the autograder made unreadable to it (network access is then not blocked).
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from autograder import grade, launchers, paths
from autograder.results import NotebookResult, write_json_atomic

SETUP_SH = """#!/usr/bin/env bash
# Gradescope image setup: the sandbox, Python and the requirements (CPU torch).
set -euo pipefail
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap python3 python3-venv python3-pip
python3 -m venv /autograder/venv
/autograder/venv/bin/pip install -q --index-url https://download.pytorch.org/whl/cpu "torch>=2.2"
/autograder/venv/bin/pip install -q -r /autograder/source/requirements.txt
# the course folder, once, so that a submission pays only for itself
cd /autograder/source && /autograder/venv/bin/python -m autograder gradescope-run --prepare
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope entry point: grade /autograder/submission, write /autograder/results/results.json.
cd /autograder/source
PYTHON="${AUTOGRADER_PYTHON:-/autograder/venv/bin/python}"
exec "$PYTHON" -m autograder gradescope-run --root "${AUTOGRADER_ROOT:-/autograder}"
"""


def build_zip(out: Path) -> Path:
    """Write the autograder zip Gradescope asks for (setup.sh and run_autograder at its root)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, text in (("setup.sh", SETUP_SH), ("run_autograder", RUN_AUTOGRADER)):
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o755 << 16
            zf.writestr(info, text)
        for path in sorted(paths.ROOT.glob("autograder/**/*.py")):
            zf.write(path, f"source/{path.relative_to(paths.ROOT)}")
        for path in sorted(paths.SOLUTIONS.glob("[0-9][0-9]_*.ipynb")):
            zf.write(path, f"source/solutions/{path.name}")
        for name in ("requirements.txt", "pyproject.toml"):
            zf.write(paths.ROOT / name, f"source/{name}")
    return out


def to_gradescope(results: list[NotebookResult]) -> dict:
    """Gradescope's results.json: total score, one entry per test, hidden tests after publishing."""
    tests: list[dict[str, Any]] = []
    output: list[str] = []
    for result in sorted(results, key=lambda r: r.notebook):
        if result.status != "graded":
            output.append(f"{result.notebook}: not graded: {'; '.join(result.errors)}")
            tests.append(
                {
                    "name": f"{result.notebook}",
                    "score": 0.0,
                    "max_score": result.max_score,
                    "status": "failed",
                    "output": "; ".join(result.errors),
                    "visibility": "visible",
                }
            )
            continue
        for flag in result.flags:
            output.append(f"{result.notebook}: {flag}")
        for t in result.tests:
            if t.manual:  # Gradescope's tests are automatic: a written answer is one of its manual questions
                output.append(
                    f"{result.notebook} · {t.name}: written answer ({t.max_score:g} points), graded by a person"
                )
                continue
            tests.append(
                {
                    "name": f"{result.notebook} · {t.name}",
                    "score": t.score,
                    "max_score": t.max_score,
                    "status": t.status,
                    "output": "\n".join(x for x in (t.parts(), t.message) if x) or t.status,
                    "visibility": "after_published" if t.hidden else "visible",
                }
            )
    return {
        "score": round(sum(t["score"] for t in tests), 6),
        "tests": tests,
        "output": "\n".join(output) or "Graded by the attention-workbook autograder.",
        "visibility": "visible",
        "stdout_visibility": "hidden",
    }


def _choose_sandbox(opts: grade.Options, root: Path) -> None:
    """The full sandbox where bubblewrap works, else the reduced one, else none (launchers.choose decides)."""
    how = launchers.choose(container=True)
    opts.mode, opts.unsafe = how.mode, not how.sandboxed
    if how.mode == "user-only":
        opts.work_root = _lock_down(root)


def _lock_down(root: Path) -> Path:
    """Reduced sandbox: only the harness can read root's folders; kernels run in a new /tmp folder."""
    for name in ("source", "submission", "results", "work"):
        if (root / name).exists():
            os.chmod(root / name, 0o700)
    work_root = Path(tempfile.mkdtemp(prefix="agw-"))
    os.chmod(work_root, 0o711)  # the kernel can reach its own folder by name, and list nothing
    return work_root


def run(root: Path, prepare_only: bool = False) -> dict:
    """Grade root/submission (the learner's files) and write root/results/results.json."""
    opts = grade.Options(
        root / "work" / "submissions", root / "work" / "results", jobs=grade.default_jobs(), quiet=True
    )
    if prepare_only:  # at image build: no learner code runs, so no sandbox to choose
        grade.prepare(opts, paths.notebook_names())
        return {}
    _choose_sandbox(opts, root)
    shutil.rmtree(opts.submissions, ignore_errors=True)
    (opts.submissions / "submission").mkdir(parents=True)
    for path in (root / "submission").rglob("*.ipynb"):
        if ".ipynb_checkpoints" not in path.parts:
            shutil.copyfile(path, opts.submissions / "submission" / path.name)
    try:
        data = to_gradescope(grade.grade(opts))
    finally:
        if opts.work_root is not None:
            shutil.rmtree(opts.work_root, ignore_errors=True)
    write_json_atomic(root / "results" / "results.json", data)
    return data


def main(argv: list[str] | None = None) -> int:
    """Build the Gradescope autograder zip (--out autograder.zip)."""
    parser = argparse.ArgumentParser(prog="python -m autograder gradescope", description=main.__doc__)
    parser.add_argument("--out", type=Path, default=paths.BUILD / "autograder.zip")
    args = parser.parse_args(argv)
    print(f"wrote {build_zip(args.out)}: upload it as the assignment's autograder on Gradescope")
    return 0


def run_main(argv: list[str] | None = None) -> int:
    """Gradescope harness: grade the submission under --root (default /autograder)."""
    parser = argparse.ArgumentParser(prog="python -m autograder gradescope-run", description=run_main.__doc__)
    parser.add_argument("--root", type=Path, default=Path(os.environ.get("AUTOGRADER_ROOT", "/autograder")))
    parser.add_argument("--prepare", action="store_true", help="build the course folder only")
    args = parser.parse_args(argv)
    data = run(args.root.resolve(), args.prepare)
    if args.prepare:
        print("course ready")
        return 0
    print(f"score {data['score']:g} over {len(data['tests'])} tests")
    return 0
