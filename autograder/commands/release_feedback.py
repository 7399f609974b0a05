"""release-feedback: put each learner's feedback pages where the learner can fetch them.

    python -m autograder release-feedback RESULTS --exchange ROOT --course ID --submissions SUBMITTED
    python -m autograder release-feedback RESULTS --moodle OUT.zip
    python -m autograder release-feedback RESULTS --canvas OUT.zip

`--exchange`: nbgrader's exchange on a JupyterHub. Learners handed in with `nbgrader submit`
and the instructor ran `nbgrader collect`, then graded SUBMITTED (the course's `submitted/`
folder, nbgrader's layout). Each page goes to ROOT/ID/feedback/<hash>.html, the hash nbgrader
makes from the submission's secret (`submission_secret.txt`), so the learner's own
`nbgrader fetch_feedback NOTEBOOK` finds it. A page of a notebook handed in again since it was
graded is held back (grade again first), as is one with no secret to match.

`--moodle`: a zip for Moodle's "Upload multiple feedback files in a zip": a folder per learner
named as Moodle's download names it, `Full Name_<participant>_assignsubmission_file_/<page>`
(the roster's `name` and `moodle_id`). `--canvas`: a zip for Canvas's "Re-Upload Submissions"
(attached to each learner's submission as a comment file), each page named
`<sortablename>_<canvas_id>_feedback_<page>` as Canvas's download names files. Learners without
the platform's id on the roster are listed, not guessed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from autograder.gradebook import feedback
from autograder.gradebook.course_folder import exchange_feedback
from autograder.results import NotebookResult, Status
from autograder.results_folder import ResultsFolder
from autograder.submissions import roster as rosters
from autograder.submissions.intake import _read_regular

FORMATS = """formats written (give exactly one):
  --exchange ROOT  nbgrader's exchange: ROOT/COURSE/feedback/<hash>.html, fetched by the learner's own
                   `nbgrader fetch_feedback NOTEBOOK` (needs --course and --submissions)
  --canvas OUT.zip a zip for Canvas's "Re-Upload Submissions": <sortablename>_<canvas_id>_feedback_<page>
                   (the roster's canvas_id column)
  --moodle OUT.zip a zip for Moodle's "Upload multiple feedback files in a zip":
                   <Full Name>_<moodle_id>_assignsubmission_file_/<page> (the roster's moodle_id column)
Exit 0 when some page was released; 1 when none was (every page held back, or none to release)."""


class _Raw(argparse.RawDescriptionHelpFormatter):
    """Keeps the epilog's table as written."""


def _handed(path: Path) -> bytes:
    """A file of nbgrader's collected folder, read as intake reads a submission (bounded, no link, no FIFO)."""
    return _read_regular(path, path.lstat().st_size, str(path))


@dataclass
class Released:
    """What a release did: pages placed, and each page held back with the reason."""

    placed: list[str] = field(default_factory=list)
    held: list[str] = field(default_factory=list)


def _current(folder: ResultsFolder) -> dict[str, NotebookResult]:
    """Each learner's current grade, as results.json has it (people's decisions and penalties applied)."""
    data = json.loads(folder.results_json.read_text(encoding="utf-8"))
    rows = (NotebookResult.from_dict(d) for d in data.get("submissions", []) if isinstance(d, dict))
    return {r.key: r for r in rows}


def _pages(folder: ResultsFolder, held: list[str]):
    """(result, page) for every saved result whose feedback page exists and shows its current grade.

    A page written for another grade than results.json's (a changed policy or score not yet exported)
    is held back, with the reason, into `held`.
    """
    current = _current(folder)
    for state in folder.states().values():
        result = state.result
        page = folder.feedback_page(result.student_id, result.notebook)
        if result.status not in (Status.GRADED, Status.REJECTED) or not page.is_file():
            continue
        now = current.get(result.key)
        if result.status == Status.GRADED and (now is None or feedback.page_mark(page) != feedback.grade_mark(now)):
            shown, grade = feedback.page_mark(page) or "no grade", feedback.grade_mark(now) if now else "none"
            held.append(
                f"{result.key}: its page is older than the current grade (the page: {shown.rstrip('; ')}; "
                f"now: {grade.rstrip('; ')}); run python -m autograder export {folder.root}, then release again"
            )
            continue
        yield result, page


def to_exchange(folder: ResultsFolder, root: Path, course: str, submitted: Path) -> Released:
    """Each page into nbgrader's exchange, under the hash fetch_feedback looks for."""
    from nbgrader.utils import notebook_hash

    done, dest = Released(), exchange_feedback(root, course)
    dest.mkdir(parents=True, exist_ok=True)
    for result, page in _pages(folder, done.held):
        handed = submitted / result.student_id / result.notebook
        name = f"{result.student_id}/{result.notebook}"
        try:  # what a learner handed in: regular files only, sizes bounded, no link followed, no FIFO waited on
            secret = _handed(handed / "submission_secret.txt").decode("utf-8")
            data = _handed(handed / f"{result.notebook}.ipynb")
        except FileNotFoundError as exc:
            done.held.append(
                f"{name}: not handed in through the exchange (no {Path(exc.filename or handed).name} in {handed}); "
                "give --submissions the folder nbgrader collect filled, or deliver this page another way"
            )
            continue
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            done.held.append(f"{name}: not handed in through the exchange ({handed}: {exc})")
            continue
        if result.content_hash and hashlib.sha256(data).hexdigest()[:16] != result.content_hash:
            done.held.append(f"{name}: handed in again since it was graded; grade again, then release")
            continue
        target = dest / f"{notebook_hash(secret=secret, notebook_id=result.notebook)}.html"
        # a fresh temporary file (O_EXCL): a link planted in the learner-writable exchange is never written through
        fd, tmp = tempfile.mkstemp(dir=dest, prefix=".release-", suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(page.read_bytes())
        os.chmod(tmp, 0o644)  # learners read it through the exchange
        os.replace(tmp, target)  # replaces a planted link itself, never its target
        done.placed.append(name)
    return done


def _sortable(learner: rosters.Learner) -> str:
    """Canvas's file-name form of a learner's sortable name: "Family, Given" lower case, word characters only."""
    first, last = learner.first_last
    return re.sub(r"[\W_]+", "", f"{last}{first}".casefold()) or "learner"


def _lms_name(platform: str, learner: rosters.Learner, page: Path) -> str | None:
    """Where a page goes in the platform's upload zip, or None when the roster lacks the learner's LMS id."""
    if platform == "canvas":
        # Canvas's "Re-Upload Submissions" reads the user id after the first underscore of each name
        return f"{_sortable(learner)}_{learner.canvas_id}_feedback_{page.name}" if learner.canvas_id else None
    if not learner.moodle_id:
        return None
    # Moodle's "Upload multiple feedback files in a zip": a folder per learner, named as its download names it
    full = " ".join(learner.first_last).strip().replace("_", " ") or learner.id
    return f"{full}_{learner.moodle_id}_assignsubmission_file_/{page.name}"


def to_lms_zip(folder: ResultsFolder, zip_path: Path, platform: str) -> Released:
    """A zip for Canvas's or Moodle's bulk feedback upload, named from the roster's LMS ids."""
    done = Released()
    if not folder.roster.is_file():
        raise SystemExit(f"ERROR: {folder} has no roster (grade --roster): the LMS ids are in it")
    learners = rosters.load(folder.roster).learners
    column = "canvas_id" if platform == "canvas" else "moodle_id"
    tmp = zip_path.with_name(f".{zip_path.name}.tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        for result, page in sorted(_pages(folder, done.held), key=lambda x: x[1]):
            learner = learners.get(result.student_id)
            name = _lms_name(platform, learner, page) if learner else None
            if name is None:
                done.held.append(f"{result.student_id}/{result.notebook}: no {column} on the roster")
                continue
            zf.write(page, name)
            done.placed.append(f"{result.student_id}/{result.notebook}")
    if done.placed:
        os.replace(tmp, zip_path)
    else:  # an empty upload zip would look like a release: none is written
        tmp.unlink()
    return done


def main(argv: list[str] | None = None) -> int:
    """Release RESULTS' feedback pages: into nbgrader's exchange, a Canvas zip or a Moodle zip."""
    parser = argparse.ArgumentParser(
        prog="python -m autograder release-feedback", description=main.__doc__, epilog=FORMATS, formatter_class=_Raw
    )
    parser.add_argument("results", type=Path)
    parser.add_argument("--exchange", type=Path, help="nbgrader's exchange root (c.Exchange.root)")
    parser.add_argument("--course", help="the exchange's course id (c.CourseDirectory.course_id)")
    parser.add_argument("--submissions", type=Path, help="the folder graded: nbgrader collect's submitted/")
    parser.add_argument("--moodle", type=Path, help="write a zip for Moodle's feedback-files upload here")
    parser.add_argument("--canvas", type=Path, help="write a zip for Canvas's Re-Upload Submissions here")
    args = parser.parse_args(argv)
    folder = ResultsFolder(args.results)
    if not folder.results_json.is_file():
        print(f"ERROR: {args.results} is not a graded results folder (no results.json)", file=sys.stderr)
        return 2
    if sum(bool(x) for x in (args.exchange, args.moodle, args.canvas)) != 1:
        print(
            "ERROR: give one of --exchange ROOT (with --course, --submissions), --moodle OUT.zip or --canvas OUT.zip",
            file=sys.stderr,
        )
        return 2
    if args.exchange and not (args.course and args.submissions and args.submissions.is_dir()):
        print("ERROR: --exchange needs --course ID and --submissions FOLDER (the folder graded)", file=sys.stderr)
        return 2
    if args.exchange:
        done = to_exchange(folder, args.exchange, args.course, args.submissions)
    else:
        platform = "moodle" if args.moodle else "canvas"
        done = to_lms_zip(folder, args.moodle or args.canvas, platform)
    print(f"released {len(done.placed)} page(s); held back {len(done.held)}")
    for line in done.held:
        print(f"  held back: {line}")
    return _nothing_released(done, args)


def _nothing_released(done: Released, args: argparse.Namespace) -> int:
    """0 when some page went out; else 1, with the reason and what to do."""
    if done.placed:
        return 0
    if not done.held:
        print(f"ERROR: nothing released: {args.results} holds no feedback page (grade it first)", file=sys.stderr)
    elif args.exchange or not all(" on the roster" in line for line in done.held):
        print(
            "ERROR: nothing released"
            + ("" if args.exchange else " and no zip written")
            + ": every page was held back (above); do what each line says (export, or grade again what was "
            "handed in again; with --exchange, check --submissions is the folder graded), then release again",
            file=sys.stderr,
        )
    else:
        column = "moodle_id" if args.moodle else "canvas_id"
        print(
            f"ERROR: nothing released and no zip written: no graded learner has a {column} on the roster; add "
            f"the {column} column to the roster (from the LMS's participants export) and grade again with --roster",
            file=sys.stderr,
        )
    return 1
