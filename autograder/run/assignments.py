"""Which notebooks a results folder reports, and the LMS's name for each (`grade --assignment`).

An LMS download is one assignment. `grade --assignment 01` (a course notebook's name, or
its number) grades only that notebook of the download, and `--assignment 01="Lab 1:
attention"` also names its column as the LMS does, so the import matches the LMS's own
assignment. Each run adds its assignments to RESULTS/assignments.json, so one results folder
can take a course's downloads one by one; `export`, `mark` and `merge` use the file too.
Without it, every course notebook is a column under its own name. A file of another notebook
found in the download is reported (a rejected row saying so, and a warning), never graded,
until a run names its notebook too.
"""

from __future__ import annotations

import difflib
import json

from autograder import paths
from autograder.results import NotebookResult, write_json_atomic
from autograder.results_folder import ResultsFolder
from autograder.submissions import intake


class AssignmentError(ValueError):
    """An --assignment that names no course notebook, or a file of assignments that cannot be read."""


def parse(values: list[str], known: list[str] | None = None) -> dict[str, str]:
    """{notebook: LMS name} from `NOTEBOOK` or `NOTEBOOK=NAME` values; a notebook may be given by its number."""
    known = paths.notebook_names() if known is None else known
    chosen: dict[str, str] = {}
    for value in values:
        name, _, label = value.partition("=")
        notebook = _notebook(name.strip(), known)
        chosen[notebook] = label.strip() or notebook
    return chosen


def _notebook(name: str, known: list[str]) -> str:
    if name in known:
        return name
    numbered = [n for n in known if n.split("_", 1)[0] == name]
    if len(numbered) == 1:
        return numbered[0]
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else f" (known: {', '.join(known)})"
    raise AssignmentError(f"--assignment {name!r} is no notebook of this course{hint}")


def load(folder: ResultsFolder) -> dict[str, str] | None:
    """The assignments this results folder reports ({notebook: LMS name}), or None: every notebook."""
    path = folder.assignments
    try:
        held = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except ValueError as exc:
        raise AssignmentError(f"{path} cannot be read ({exc}): mend or remove it") from None
    if not isinstance(held, dict) or not all(isinstance(v, str) for v in held.values()):
        raise AssignmentError(f"{path} is not a map of notebook to LMS name: mend or remove it")
    return {n: held[n] for n in paths.notebook_names() if n in held}


def remember(folder: ResultsFolder, chosen: dict[str, str]) -> dict[str, str]:
    """Add this run's assignments to the folder's (a new LMS name replaces an old one); all of them."""
    held = {**(load(folder) or {}), **chosen}
    folder.root.mkdir(parents=True, exist_ok=True)
    write_json_atomic(folder.assignments, held)
    return {n: held[n] for n in paths.notebook_names() if n in held}


def columns(folder: ResultsFolder) -> list[tuple[str, str]]:
    """(notebook, column name) of each reported notebook, in course order."""
    held = load(folder)
    return [(n, n) for n in paths.notebook_names()] if held is None else list(held.items())


def set_aside(items: list, chosen: dict[str, str], held: set[str]) -> tuple[list, list[str]]:
    """(the items to grade, a line per file set aside): a submission of a notebook not chosen is not graded.

    It becomes a rejected row that says so, unless the folder already holds that learner's
    notebook (`held`: saved keys), whose grade is left as it is.
    """
    kept, said = [], []
    for item in items:
        if isinstance(item, NotebookResult) or item.notebook in chosen:
            kept.append(item)
            continue
        number = item.notebook.split("_", 1)[0]
        reason = f"{item.notebook} was handed in with the download for {', '.join(chosen)}: not graded"
        said.append(f"{item.source or item.key}: {reason} (grade it with --assignment {number})")
        if item.key not in held:
            kept.append(intake.rejected(item.student_id, item.notebook, f"{reason} (ask your instructor)"))
    return kept, said
