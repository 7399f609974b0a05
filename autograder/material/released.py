"""What earlier releases handed out: a learner who kept an older copy of a notebook edited nothing.

An instructor may change a test's points or code after learners have their copies (README
"Change points or tests"). The grader compares each submitted test and locked cell with the
release (autograder.run.rebuild), and a cell that differs is flagged as edited; a learner whose
copy is an earlier release's did not edit it. So `release` keeps, in the source notebook's
metadata (`workbook.released_before`), a fingerprint of each graded cell as every earlier release
handed it out, and the grader accepts a cell that matches one (the source version is graded either
way). A fingerprint is a hash of what learners see of the cell: its type, nbgrader metadata
(without the checksum) and, except in answer cells, its source.
"""

from __future__ import annotations

import hashlib
import json

import nbformat

from autograder.material import answers

KEY = "released_before"


def fingerprint(cell_type: object, source: str, meta: dict, answer: bool) -> str:
    """A graded cell as a learner received it (an answer cell's source is theirs: left out)."""
    meta = {k: v for k, v in meta.items() if k != "checksum"}
    try:
        text = json.dumps([cell_type, "" if answer else source, meta], sort_keys=True, default=str)
    except (RecursionError, ValueError, TypeError):  # a learner's metadata nested past any release's
        return ""
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:20]


def of_notebook(nb: nbformat.NotebookNode) -> dict[str, str]:
    """Each graded cell's fingerprint, by grade id."""
    out = {}
    for cell in nb.cells:
        gid = answers.grade_id(cell)
        if gid:
            answer = answers.is_answer(cell) or answers.is_written(cell)
            meta = dict(cell.metadata.get("nbgrader", {}))
            out[gid] = fingerprint(cell.cell_type, cell.source, meta, answer)
    return out


def earlier(nb: nbformat.NotebookNode) -> dict[str, list[str]]:
    """The fingerprints earlier releases gave each graded cell (kept in the notebook's metadata)."""
    kept = nb.metadata.get("workbook", {}).get(KEY, {})
    return {k: list(v) for k, v in kept.items() if isinstance(v, list)} if isinstance(kept, dict) else {}


def remember(source: nbformat.NotebookNode, previous: nbformat.NotebookNode, new: nbformat.NotebookNode) -> bool:
    """Add to `source` what the `previous` release handed out that the `new` one does not; whether it changed."""
    now = of_notebook(new)
    kept = earlier(previous)
    for gid, fp in of_notebook(previous).items():
        kept.setdefault(gid, []).append(fp)
    history = {gid: sorted(set(fps) - {now.get(gid)}) for gid, fps in sorted(kept.items())}
    history = {gid: fps for gid, fps in history.items() if fps}
    if history == earlier(source):
        return False
    source.metadata.setdefault("workbook", {})[KEY] = history
    return True
