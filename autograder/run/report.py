"""Reports: grades.csv, results.json and the grade table printed at the end of a run."""

from __future__ import annotations

import csv
import io
import os
import sys
import unicodedata
from pathlib import Path

from autograder import paths
from autograder.material import answers
from autograder.results import AUTHORING, NotebookResult, Problem, Status, clip, problems, write_json_atomic
from autograder.results_folder import ResultsFolder
from autograder.run import assignments, exports
from autograder.run.sheet import Columns, csv_text
from autograder.submissions import ids
from autograder.submissions import roster as rosters

MISSING = "missing"  # an enrolled learner who handed this notebook in not at all (score blank)


def every_notebook() -> Columns:
    """Every course notebook, under its own name: the columns without --assignment."""
    return [(n, n) for n in paths.notebook_names()]


# grades.csv's four fixed columns first (CONTRIBUTING.md, Design), then the rest of `nbgrader
# export`'s columns (one assignment per notebook, so nbgrader's rows are ours), then our own.
GRADES_COLUMNS = [
    "student_id",
    "notebook",
    "score",
    "max_score",
    "assignment",
    "duedate",
    "timestamp",
    "last_name",
    "first_name",
    "email",
    "raw_score",
    "late_submission_penalty",
    "status",
    "flags",
    "reason",
    "needs_manual_grading",  # written answers no person has scored yet
    "overridden",  # tests whose score an instructor set (autograder.run.overrides)
]


def grades_csv(
    results: list[NotebookResult], roster: rosters.Roster | None = None, columns: Columns | None = None
) -> str:
    """One row per student per notebook; with a roster, names and emails, and a 'missing' row for work not handed in.

    A row not graded (rejected, an error) has its score blank, as in lms.csv: no grade, the
    reason beside it. `assignment` is the LMS's name for the notebook (columns).
    """
    columns = every_notebook() if columns is None else columns
    label = dict(columns)
    rows: list[list[object]] = [list(GRADES_COLUMNS)]
    for r in sorted(results, key=lambda r: (r.student_id, r.notebook)):
        graded = r.status == Status.GRADED
        score = f"{r.score:g}" if graded else ""
        learner = roster.get(r.student_id) if roster is not None else None
        first, last = learner.first_last if learner else ("", "")
        rows.append(
            [
                r.student_id,
                r.notebook,
                score,
                f"{r.max_score:g}",
                label.get(r.notebook, r.notebook),
                r.duedate,
                r.timestamp,
                last,
                first,
                learner.email if learner else "",
                f"{r.score + r.penalty:g}" if graded else "",
                f"{r.penalty:g}" if graded else "",
                r.status,
                "; ".join(r.flags)[:1000],
                clip("; ".join(r.errors), 1000),  # the end kept: an exception's own type and message
                " ".join(t.name for t in r.tests if t.pending),
                " ".join(t.name for t in r.tests if t.overridden),
            ]
        )
    rows += _missing_rows(results, roster, columns)
    return csv_text(rows)


def _missing_rows(results: list[NotebookResult], roster: rosters.Roster | None, columns: Columns) -> list[list[object]]:
    """A row per enrolled learner and reported notebook with no row at all: status 'missing', score blank."""
    if roster is None:
        return []
    have = {(r.student_id, r.notebook) for r in results}
    top = {name: f"{answers.notebook_points(name):g}" for name, _ in columns}  # graded in this run or not
    rows: list[list[object]] = []
    for learner in sorted(roster.learners.values(), key=lambda x: x.id):
        first, last = learner.first_last
        for name, label in columns:
            if (learner.id, name) not in have:
                blank = [""] * (len(GRADES_COLUMNS) - 13)
                rows.append(
                    [
                        learner.id,
                        name,
                        "",
                        top.get(name, ""),
                        label,
                        "",
                        "",
                        last,
                        first,
                        learner.email,
                        "",
                        "",
                        MISSING,
                        *blank,
                    ]
                )
    return rows


def lms_csv(results: list[NotebookResult], columns: Columns | None = None, roster: rosters.Roster | None = None) -> str:
    """One row per learner, one column per reported notebook, and the total: ready for an LMS import.

    The columns are the course's notebooks, or those `--assignment` named under the LMS's
    names (columns), whatever was handed in: nothing a learner names becomes a column. Rows
    are the learners with a valid id (an entry rejected for its id is in grades.csv only) and
    every enrolled learner; a notebook not graded is blank (missing, not 0), and the total
    sums what was graded.
    """
    columns = every_notebook() if columns is None else columns
    notebooks = [n for n, _ in columns]
    scores: dict[str, dict[str, float]] = {x: {} for x in (roster.learners if roster is not None else {})}
    for r in results:
        if not ids.valid_id(r.student_id):
            continue
        row = scores.setdefault(r.student_id, {})
        if r.notebook in notebooks and r.status == Status.GRADED:
            row[r.notebook] = r.score
    rows: list[list[object]] = [["student_id", *(label for _, label in columns), "total"]]
    for student in sorted(scores):
        got = scores[student]
        cells = [f"{got[n]:g}" if n in got else "" for n in notebooks]
        rows.append([student, *cells, f"{sum(got.values()):g}" if got else ""])  # nothing graded: blank, not 0
    return csv_text(rows)


def write_reports(folder: ResultsFolder, results: list[NotebookResult]) -> None:
    """grades.csv, lms.csv, results.json and, with a roster, canvas.csv and moodle.csv, each written atomically."""
    folder.root.mkdir(parents=True, exist_ok=True)
    roster = rosters.load(folder.roster) if folder.roster.is_file() else None
    columns = assignments.columns(folder)
    texts = {"grades": grades_csv(results, roster, columns), "lms": lms_csv(results, columns, roster)}
    if roster is not None:
        texts["canvas"] = exports.canvas_csv(results, roster, columns)
        texts["moodle"] = exports.moodle_csv(results, roster, columns)
    _not_exported(folder, results, roster)
    reports = folder.reports()
    for kind, text in texts.items():
        tmp = reports[kind].with_name(f".{reports[kind].name}.{os.getpid()}.tmp")
        tmp.write_text(text, encoding="utf-8", errors="backslashreplace")
        os.replace(tmp, reports[kind])
    ordered = sorted(results, key=lambda r: (r.student_id, r.notebook))
    write_json_atomic(folder.results_json, {"submissions": [r.to_dict() for r in ordered]})


def _not_exported(folder: ResultsFolder, results: list[NotebookResult], roster: rosters.Roster | None) -> None:
    """Graded learners the roster lacks: named on the console and in not_exported.csv (removed when none is)."""
    rows = exports.not_exported(results, roster) if roster is not None else []
    if not rows:
        folder.not_exported_csv.unlink(missing_ok=True)
        return
    folder.not_exported_csv.write_text(exports.not_exported_csv(rows), encoding="utf-8", errors="backslashreplace")
    names = sorted({r.student_id for r in rows})
    shown = ", ".join(printable(n) for n in names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
    print(
        f"warning: {len(names)} graded learner(s) not on the roster, so in no LMS export (canvas.csv, moodle.csv): "
        f"{shown}; listed in {folder.not_exported_csv}: add them to the roster, then run export",
        file=sys.stderr,
    )


def one_line(text: str) -> str:
    """A message (a traceback's lines, say) on one console line, printable."""
    return printable(" | ".join(line.strip() for line in text.splitlines() if line.strip()))


def printable(text: str) -> str:
    """Text safe to print on a terminal: control and format characters (escape sequences) shown as '?'."""
    return "".join("?" if unicodedata.category(ch)[0] == "C" else ch for ch in text)


def table(results: list[NotebookResult]) -> str:
    """A text table: one line per student and notebook, with status and flags."""
    lines = [f"{'student':<20} {'notebook':<34} {'score':>11}  status"]
    for r in sorted(results, key=lambda r: (r.student_id, r.notebook)):
        graded = r.status == Status.GRADED
        status = r.status if graded else f"{r.status}: {'; '.join(r.errors)[:60]}"
        flags = f"  [{len(r.flags)} flag(s)]" if r.flags else ""
        changed = [t.name for t in r.tests if t.overridden]
        flags += f"  [overridden: {', '.join(changed)}]" if changed else ""
        score = f"{r.score:g}" if graded else ""  # blank, as every file writes a row with no grade
        line = f"{r.student_id:<20} {r.notebook:<34} {score:>5} / {r.max_score:<3g}  {status}{flags}"
        lines.append(printable(line))
    return "\n".join(lines)


FLAG_KINDS = ("forbidden", "edited", "kernel")  # the summary's flag columns (flag_kind)


def flag_kind(flag: str) -> str:
    """A flag's kind: 'forbidden' (the source scan), 'kernel' (what the kernel sent), else 'edited' (the notebook)."""
    head = flag.partition(":")[0]
    return head if head in ("forbidden", "kernel") else "edited"


def summary(results: list[NotebookResult]) -> str:
    """Per notebook: how many graded, mean score, full marks, zeros, rejected, and submissions flagged per kind."""
    kinds = " ".join(f"{k:>9}" for k in FLAG_KINDS)
    lines = [f"{'notebook':<34} {'graded':>6} {'mean %':>7} {'full':>5} {'zero':>5} {'rejected':>8} {kinds}"]
    for name in sorted({r.notebook for r in results}):
        rows = [r for r in results if r.notebook == name]
        graded = [r for r in rows if r.status == Status.GRADED]
        mean = sum(100 * r.score / r.max_score for r in graded if r.max_score) / max(1, len(graded))
        full = sum(_automatic(r) >= r.auto_max > 0 for r in graded)  # every automatic point (README's "full marks")
        counts = " ".join(f"{sum(any(flag_kind(f) == k for f in r.flags) for r in rows):>9}" for k in FLAG_KINDS)
        lines.append(
            f"{name:<34} {len(graded):>6} {mean:>7.1f} {full:>5} "
            f"{sum(r.score == 0 for r in graded):>5} {len(rows) - len(graded):>8} {counts}"
        )
    return "\n".join(lines + authoring_lines(results) + grader_lines(results))


def grader_lines(results: list[NotebookResult]) -> list[str]:
    """One line per notebook with rows the grader or the host failed on: not the learners', and what to do."""
    lines = []
    for name in sorted({r.notebook for r in results}):
        hit = [e for r in results if r.notebook == name and r.retry_next_run for e in r.errors[:1]]
        if hit:
            lines.append(
                f"GRADER-SIDE FAILURE in {name} ({len(hit)} submission(s) not graded, not the learners' doing; the "
                f"next run grades them again): fix what this names, then run grade again: {one_line(clip(hit[0], 600))}"
            )
    return lines


def similarity_lines(folder: ResultsFolder) -> list[str]:
    """The similarity report's flagged pairs, counted by kind per notebook, and where the report is (read back)."""
    try:
        rows = list(csv.DictReader(io.StringIO(folder.similarity_csv.read_text(encoding="utf-8"))))
    except OSError:
        return []
    counts: dict[str, dict[str, int]] = {}
    for row in rows:
        if row.get("flagged") == "True":
            kind = _pair_kind(row.get("a", ""), row.get("b", ""))
            per = counts.setdefault(row.get("notebook", ""), {})
            per[kind] = per.get(kind, 0) + 1
    total = sum(sum(c.values()) for c in counts.values())
    head = f"similarity: {total} flagged pair(s) of {len(rows)} compared; report: {folder.similarity_html}"
    return [head] + [
        printable(f"  {name}: " + ", ".join(f"{n} {kind}" for kind, n in sorted(per.items())))
        for name, per in sorted(counts.items())
    ]


def _pair_kind(a: str, b: str) -> str:
    """Who a flagged pair is between: two learners of this run, one and the reference, one and an earlier year."""
    other = b if a.startswith("run:") else a
    if other.startswith("run:"):
        return "between learners"
    return "with earlier years" if other.startswith("earlier:") else "with the reference"


def authoring_lines(results: list[NotebookResult]) -> list[str]:
    """One line per notebook whose own checks failed as written: the instructor's to fix."""
    lines = []
    for name in sorted({r.notebook for r in results}):
        hit = [e for r in results if r.notebook == name for e in r.errors if Problem.AUTHORING in problems([e])]
        if hit:
            lines.append(
                f"AUTHORING ERROR in {name} ({len(hit)} submission(s) not graded): {hit[0][len(AUTHORING) + 2 :]}"
            )
    return lines


def _automatic(result: NotebookResult) -> float:
    """The points the automatic checks gave (written answers and any late penalty aside)."""
    return round(sum(t.score for t in result.tests if not t.manual), 6)


def pending_points(results: list[NotebookResult]) -> tuple[int, float]:
    """How many written answers await a person, and their points."""
    waiting = [t for r in results for t in r.tests if t.pending]
    return len(waiting), sum(t.max_score for t in waiting)


def histogram(results: list[NotebookResult], path: Path) -> Path | None:
    """A PNG histogram of scores (% of the maximum), one colour per notebook."""
    graded = [r for r in results if r.status == Status.GRADED and r.max_score]
    if not graded:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = sorted({r.notebook for r in graded})
    fig, ax = plt.subplots(figsize=(8, 4))
    data = [[100 * r.score / r.max_score for r in graded if r.notebook == n] for n in names]
    ax.hist(data, bins=range(0, 105, 5), stacked=True, label=[n[:2] for n in names])
    ax.set(
        xlabel="score (% of the notebook's points)",
        ylabel="submissions",
        title=f"Scores of {len(graded)} graded submission(s)",
    )
    ax.legend(title="notebook", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
