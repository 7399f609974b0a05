"""gradescope: build a Gradescope autograder zip that grades one submission with this engine.

The zip holds, at its root as Gradescope wants (it unpacks it into /autograder/source),
setup.sh (installs bubblewrap and requirements-grader.txt), run_autograder (calls
`python -m autograder gradescope-run`), this package, the source notebooks and the
course's choices (gradescope.json). Gradescope runs run_autograder as root; the learner's kernel
then runs in the same sandbox as `grade` (its own uid, no network, only its folder), and
only this harness writes /autograder/results/results.json. Where the container forbids
the namespaces bubblewrap needs, the kernel runs in the reduced sandbox Gradescope's own
advice describes: its own uid, no capabilities, process and memory limits, every folder
of the autograder made unreadable to it (network access is then not blocked).

The zip carries the course key (course.key, autograder.checks.coursekey), which learners
never see: Gradescope shows them their results, never the autograder's files. Hidden inputs
are drawn per learner from their Gradescope user id (submission_metadata.json), so a
resubmission of the same notebook gets the same inputs and grade, and `replay` reproduces it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

from autograder import paths
from autograder.checks import coursekey
from autograder.kernel import launchers
from autograder.results import NotebookResult, Status, write_json_atomic
from autograder.run import grade

SETTINGS_FILE = "gradescope.json"  # in the zip: the course's choices (hidden_outcomes)
HIDDEN_OUTCOMES = ("after_published", "visible")  # when learners see what hidden checks found

SETUP_SH = """#!/usr/bin/env bash
# Gradescope image setup (Gradescope runs this once, as root, in /autograder/source).
# Needs Python >= 3.11: choose Gradescope's Ubuntu 24.04 base image (Python 3.12);
# Ubuntu 22.04's Python 3.10 is refused below. Installs bubblewrap and only what grading
# needs (requirements-grader.txt: CPU torch, nbgrader; no JupyterLab, browser or test tools).
# AUTOGRADER_ROOT: where /autograder is (a test's simulated tree); AUTOGRADER_VENV: a venv
# to install into instead of $AUTOGRADER_ROOT/venv; AUTOGRADER_APT=0: skip apt-get;
# AUTOGRADER_TORCH_INDEX: where CPU torch comes from.
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
VENV="${AUTOGRADER_VENV:-$ROOT/venv}"
if [ "${AUTOGRADER_APT:-1}" != 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap util-linux python3 python3-venv python3-pip
fi
if [ ! -x "$VENV/bin/python" ]; then
    python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
        echo "setup.sh: Python >= 3.11 is needed, this image has $(python3 -V 2>&1): choose Ubuntu 24.04" >&2
        exit 1
    }
    python3 -m venv "$VENV"
fi
"$VENV/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'
REQUIREMENTS="$ROOT/source/requirements-grader.txt"
# torch first, CPU build, from PyTorch's CPU index (PyPI's Linux wheels are CUDA builds, GBs more);
# AUTOGRADER_TORCH_INDEX: another index holding it (a mirror, a local one)
"$VENV/bin/pip" install -q --index-url "${AUTOGRADER_TORCH_INDEX:-https://download.pytorch.org/whl/cpu}" \\
    -r <(grep '^torch' "$REQUIREMENTS")
"$VENV/bin/pip" install -q -r <(grep -v -e '^torch' -e '^nbgrader' "$REQUIREMENTS")
"$VENV/bin/pip" install -q --no-deps -r <(grep '^nbgrader' "$REQUIREMENTS")
# the course folder, once, so that a submission pays only for itself
cd "$ROOT/source" && "$VENV/bin/python" -m autograder gradescope-run --root "$ROOT" --prepare
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope entry point: grade /autograder/submission, write /autograder/results/results.json.
ROOT="${AUTOGRADER_ROOT:-/autograder}"
cd "$ROOT/source"
PYTHON="${AUTOGRADER_PYTHON:-${AUTOGRADER_VENV:-$ROOT/venv}/bin/python}"
exec "$PYTHON" -m autograder gradescope-run --root "$ROOT"
"""


KEY_IN_ZIP = "course.key"  # at the zip's root: /autograder/source/course.key once unpacked


def build_zip(out: Path, hidden_outcomes: str = "after_published", key: bytes | None = None) -> Path:
    """Write the autograder zip as Gradescope unpacks it into /autograder/source: setup.sh, run_autograder at its root."""
    if hidden_outcomes not in HIDDEN_OUTCOMES:
        raise ValueError(f"hidden_outcomes must be one of {HIDDEN_OUTCOMES}, not {hidden_outcomes!r}")
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        if key is not None:
            info = zipfile.ZipInfo(KEY_IN_ZIP)
            info.external_attr = 0o600 << 16
            zf.writestr(info, key.hex() + "\n")
        for name, text in (("setup.sh", SETUP_SH), ("run_autograder", RUN_AUTOGRADER)):
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o755 << 16
            zf.writestr(info, text)
        zf.writestr(SETTINGS_FILE, json.dumps({"hidden_outcomes": hidden_outcomes}))
        for path in sorted(paths.ROOT.glob("autograder/**/*.py")):
            zf.write(path, str(path.relative_to(paths.ROOT)))
        for path in sorted(paths.SOLUTIONS.glob("[0-9][0-9]_*.ipynb")):
            zf.write(path, f"solutions/{path.name}")
        for name in ("requirements-grader.txt", "pyproject.toml"):
            zf.write(paths.ROOT / name, name)
    return out


def settings() -> dict:
    """The course's Gradescope choices, from the zip (defaults where absent)."""
    try:
        data = json.loads((paths.ROOT / SETTINGS_FILE).read_text())
    except (OSError, ValueError):
        data = {}
    hidden = data.get("hidden_outcomes") if isinstance(data, dict) else None
    return {"hidden_outcomes": hidden if hidden in HIDDEN_OUTCOMES else "after_published"}


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>&~])")


def md(text: str) -> str:
    """Text shown as itself in Gradescope's Markdown: every Markdown and HTML character escaped, lines kept."""
    return "  \n".join(_MD_SPECIAL.sub(r"\\\1", line) for line in text.splitlines())


def _entry(name: str, score: float, max_score: float, output: str, visibility: str, status: str | None) -> dict:
    entry = {"name": name, "score": score, "max_score": max_score, "output": md(output), "output_format": "md"}
    entry["visibility"] = visibility
    if status is not None:
        entry["status"] = status
    return entry


def _test_entries(notebook: str, t, hidden_outcomes: str) -> list[dict]:
    """A test's entries: its points, shown after publishing when hidden checks decide them (or at once)."""
    name = f"{notebook} · {t.name}"
    if t.manual:  # Gradescope's tests are automatic: its points are a manual question's (README)
        said = f"written answer ({t.max_score:g} points): graded by a person, not by the autograder"
        return [_entry(f"{name} (written answer)", 0.0, 0.0, said, "visible", None)]
    full = "\n".join(x for x in (t.parts(), t.message) if x) or t.status
    held = hidden_outcomes != "visible" and (t.hidden or t.hidden_checks > 0)
    if not held:
        return [_entry(name, t.score, t.max_score, full, "visible", t.status)]
    entries = []
    if t.visible_checks:  # what the visible checks found, at once (as the notebook itself shows)
        failed = t.failed_in == "visible"
        said = t.message if failed else f"{t.visible_checks} visible check{'s' if t.visible_checks != 1 else ''} passed"
        entries.append(_entry(f"{name} (visible checks)", 0.0, 0.0, said, "visible", "failed" if failed else "passed"))
    entries.append(_entry(name, t.score, t.max_score, full, hidden_outcomes, t.status))
    return entries


def to_gradescope(results: list[NotebookResult], hidden_outcomes: str = "after_published") -> dict:
    """Gradescope's results.json: total score, one entry per test, hidden outcomes as the course chose."""
    tests, output = [], []
    for result in sorted(results, key=lambda r: r.notebook):
        if result.status != Status.GRADED:
            output.append(f"{result.notebook}: not graded: {'; '.join(result.errors)}")
            tests.append(_entry(result.notebook, 0.0, result.max_score, "; ".join(result.errors), "visible", "failed"))
            continue
        for flag in result.flags:
            output.append(f"{result.notebook}: {flag}")
        for t in result.tests:
            tests.extend(_test_entries(result.notebook, t, hidden_outcomes))
    return {
        "score": round(sum(t["score"] for t in tests), 6),
        "tests": tests,
        "output": md("\n".join(output) or "Graded by the attention-workbook autograder."),
        "output_format": "md",
        "visibility": "visible",
        "stdout_visibility": "hidden",
    }


def _key_file(root: Path) -> Path | None:
    """The key the zip carries (made private to root); refuses a zip without one unless $AUTOGRADER_KEY_FILE names it."""
    path = root / "source" / KEY_IN_ZIP
    if not path.exists():
        if coursekey.named():
            return None  # a test's or a mirror's own key file: the run looks it up there
        raise coursekey.CourseKeyError(
            f"{path}: the autograder zip carries no course key; build it with python -m autograder gradescope"
        )
    os.chmod(path, 0o600)  # Gradescope unzips without modes: only the harness reads it
    return path


def learner_id(root: Path) -> str:
    """The learner hidden inputs are drawn for: the Gradescope user id(s) of the submission, else its name."""
    try:
        meta = json.loads((root / "submission_metadata.json").read_text(encoding="utf-8"))
        users = sorted(str(u.get("id") or u.get("email")) for u in meta.get("users", []) if isinstance(u, dict))
    except (OSError, ValueError, AttributeError, TypeError):
        users = []
    return "gradescope:" + "+".join(users) if users else ""


def _choose_sandbox(root: Path) -> tuple[launchers.Launcher, Path | None]:
    """The full sandbox where bubblewrap works, else the reduced one, else none (launchers.choose decides);
    with the reduced one, the kernels' own work root (else None: the default)."""
    how = launchers.choose(container=True)
    return how, (_lock_down(root) if how.mode == "user-only" else None)


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
    # one kernel at a time unless told (AUTOGRADER_JOBS): os.cpu_count() sees the host's cores, not the container's share
    jobs = max(1, int(os.environ.get("AUTOGRADER_JOBS", "1")))
    key_file, seed_id = _key_file(root), learner_id(root)
    # at image build (prepare_only): no learner code runs, so no sandbox to choose
    how, work_root = (None, None) if prepare_only else _choose_sandbox(root)
    opts = grade.Options(
        submissions=root / "work" / "submissions",
        out=root / "work" / "results",
        jobs=jobs,
        quiet=True,
        sandbox=how,
        work_root=work_root,
        key_file=key_file,
        seed_id=seed_id,
    )
    if prepare_only:
        grade.prepare(opts.folder, paths.notebook_names(), opts.limits.cell_seconds)
        return {}
    # a fresh start each run: Gradescope may run a learner's submission in a root that graded
    # another's, whose saved grades, gradebook rows and feedback must not be this one's
    # (the course set-up comes back from the course cache that setup.sh filled)
    shutil.rmtree(opts.out, ignore_errors=True)
    shutil.rmtree(opts.submissions, ignore_errors=True)
    (opts.submissions / "submission").mkdir(parents=True)
    for path in (root / "submission").rglob("*.ipynb"):
        if ".ipynb_checkpoints" not in path.parts:
            shutil.copyfile(path, opts.submissions / "submission" / path.name)
    try:
        data = to_gradescope(grade.grade(opts), settings()["hidden_outcomes"])
    finally:
        if opts.work_root is not None:
            shutil.rmtree(opts.work_root, ignore_errors=True)
    write_json_atomic(root / "results" / "results.json", data)
    return data


def main(argv: list[str] | None = None) -> int:
    """Build the Gradescope autograder zip (--out autograder.zip)."""
    parser = argparse.ArgumentParser(prog="python -m autograder gradescope", description=main.__doc__)
    parser.add_argument("--out", type=Path, default=paths.BUILD / "autograder.zip")
    parser.add_argument(
        "--hidden-outcomes",
        choices=HIDDEN_OUTCOMES,
        default="after_published",
        help="when learners see the points and messages of tests that hidden checks decide: after you publish "
        "the grades (default), or at once",
    )
    parser.add_argument(
        "--key", type=Path, help=f"the course key file (default ${coursekey.KEY_ENV}, else build/course.key, made once)"
    )
    parser.add_argument(
        coursekey.NEW_KEY_FLAG,
        action="store_true",
        help="make the course key at --key FILE (or $AUTOGRADER_KEY_FILE) if there is none: only for a new course",
    )
    args = parser.parse_args(argv)
    key_path = coursekey.locate(args.key)  # the one `grade`, `merge` and `replay` find too
    try:  # the default place is made on a course's first use; a named one only when told (a typo is refused)
        key = coursekey.load(key_path, create=args.new_key or not coursekey.named(args.key))
    except (coursekey.CourseKeyError, OSError) as exc:
        print(f"ERROR: {exc}")
        return 2
    out = build_zip(args.out, args.hidden_outcomes, key)
    print(f"wrote {out} with course key {coursekey.fingerprint(key)} (from {key_path}):")
    print("upload it as the assignment's autograder on Gradescope; keep the key file to replay its grades")
    return 0


def run_main(argv: list[str] | None = None) -> int:
    """Gradescope harness: grade the submission under --root (default /autograder)."""
    parser = argparse.ArgumentParser(prog="python -m autograder gradescope-run", description=run_main.__doc__)
    parser.add_argument("--root", type=Path, default=Path(os.environ.get("AUTOGRADER_ROOT", "/autograder")))
    parser.add_argument("--prepare", action="store_true", help="build the course folder only")
    args = parser.parse_args(argv)
    try:
        data = run(args.root.resolve(), args.prepare)
    except coursekey.CourseKeyError as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 2
    if args.prepare:
        print("course ready")
        return 0
    print(f"score {data['score']:g} over {len(data['tests'])} tests")
    return 0
