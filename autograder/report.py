"""Reports: grades.csv, results.json and the grade table printed at the end of a run."""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

from autograder.results import NotebookResult, write_json_atomic

GRADES_COLUMNS = ["student_id", "notebook", "score", "max_score", "status", "flags", "reason"]


def grades_csv(results: list[NotebookResult]) -> str:
    """One row per student per notebook."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(GRADES_COLUMNS)
    for r in sorted(results, key=lambda r: (r.student_id, r.notebook)):
        writer.writerow([r.student_id, r.notebook, f"{r.score:g}", f"{r.max_score:g}", r.status,
                         len(r.flags), "; ".join(r.errors)[:500]])
    return buf.getvalue()


def write_reports(out: Path, results: list[NotebookResult]) -> None:
    """grades.csv and results.json, each written atomically."""
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / f".grades.csv.{os.getpid()}.tmp"
    tmp.write_text(grades_csv(results))
    os.replace(tmp, out / "grades.csv")
    ordered = sorted(results, key=lambda r: (r.student_id, r.notebook))
    write_json_atomic(out / "results.json", {"submissions": [r.to_dict() for r in ordered]})


def table(results: list[NotebookResult]) -> str:
    """A text table: one line per student and notebook, with status and flags."""
    lines = [f"{'student':<20} {'notebook':<34} {'score':>11}  status"]
    for r in sorted(results, key=lambda r: (r.student_id, r.notebook)):
        status = r.status if r.status == "graded" else f"{r.status}: {'; '.join(r.errors)[:60]}"
        flags = f"  [{len(r.flags)} flag(s)]" if r.flags else ""
        lines.append(f"{r.student_id:<20} {r.notebook:<34} {r.score:>5g} / {r.max_score:<3g}  {status}{flags}")
    return "\n".join(lines)
