"""grade's console summary (issue 64 item 5): flags split by kind, the similarity report's pairs, rejected rows blank."""

from __future__ import annotations

from autograder.results import NotebookResult, Status
from autograder.results_folder import ResultsFolder
from autograder.run import report, similarity
from autograder.run.sheet import csv_text

NB = "01_scaled_dot_product_attention"


def _row(student: str, status: Status = Status.GRADED, flags=(), score=5.0) -> NotebookResult:
    return NotebookResult(student_id=student, notebook=NB, status=status, score=score, max_score=21, flags=list(flags))


def test_the_flagged_column_is_split_by_kind():
    results = [
        _row("ann", flags=["forbidden: calls torch.softmax in cell sdpa"]),
        _row("bo", flags=["answer cell 'sdpa' edited; source version used", "forbidden: imports os"]),
        _row("cy", flags=["kernel: sent 3 malformed message(s), which the grader ignored"]),
        _row("di"),
    ]
    header, line = report.summary(results).splitlines()[:2]
    assert header.split()[-3:] == ["forbidden", "edited", "kernel"] and "flagged" not in header
    assert line.split()[-3:] == ["2", "1", "1"]  # submissions with a flag of each kind (bo counts in two)


def test_a_rejected_row_prints_as_the_files_write_it():
    text = report.table([_row("ann", Status.REJECTED, score=0), _row("bo", score=0)])
    ann, bo = text.splitlines()[1:]
    assert "    / 21" in ann and " 0 / 21" not in ann and "rejected" in ann
    assert "    0 / 21" in bo  # a graded zero stays a zero


def _report(folder: ResultsFolder, flagged: list[tuple[str, str]], unflagged: int) -> None:
    """similarity.csv as similarity.write leaves it: a row per pair compared, `flagged` True or False."""
    rows: list[list[object]] = [["notebook", "a", "b", "score", "nodes", "short", "flagged", "cells"]]
    rows += [[NB, a, b, "0.950", 40, False, True, "sdpa:0.95"] for a, b in flagged]
    rows += [[NB, "run:x", f"run:y{i}", "0.100", 40, False, False, ""] for i in range(unflagged)]
    folder.root.mkdir(parents=True, exist_ok=True)
    folder.similarity_csv.write_text(csv_text(rows), encoding="utf-8")


def test_the_similarity_reports_flagged_pairs_are_counted_with_its_path(tmp_path):
    folder = ResultsFolder(tmp_path)
    assert report.similarity_lines(folder) == []  # no report: nothing said
    pairs = [("run:ann", "run:bo"), (similarity.REFERENCE, "run:cy"), ("run:di", "earlier:alum"), ("run:ed", "run:fa")]
    _report(folder, pairs, unflagged=3)
    head, per = report.similarity_lines(folder)
    assert head == f"similarity: 4 flagged pair(s) of 7 compared; report: {folder.similarity_html}"
    assert per == f"  {NB}: 2 between learners, 1 with earlier years, 1 with the reference"
    _report(folder, [], unflagged=2)
    assert report.similarity_lines(folder) == [
        f"similarity: 0 flagged pair(s) of 2 compared; report: {folder.similarity_html}"
    ]
