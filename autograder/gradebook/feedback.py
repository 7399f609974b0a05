"""Feedback: nbgrader generate_feedback on notebooks stripped of every hidden-test source.

The page is safe to open: a learner's outputs are reduced to inert text and images before
nbgrader renders them, text from the grader's notes is escaped for markdown and HTML, and
the page carries a Content-Security-Policy that lets no script run and nothing load.
"""

from __future__ import annotations

import html
import os
import re
from pathlib import Path

import nbformat

from autograder.gradebook.course_folder import AUTOGRADED, FEEDBACK, CourseFolder
from autograder.gradebook.mathml import render_math
from autograder.material import answers
from autograder.material.markup import strip_hidden
from autograder.results import NotebookResult, Outcome, clean_text
from autograder.results_folder import ResultsFolder


def _verdict_output(test) -> nbformat.NotebookNode:
    mark = "✓ passed" if test.status == Outcome.PASSED else "✗ failed"
    if test.overridden:
        mark = f"✎ score set by your instructor (the checks: {mark})"
    text = f"{mark} ({test.score:g}/{test.max_score:g} points)"
    if test.message:
        text += f"\n{test.message}"
    return nbformat.v4.new_output("stream", name="stdout", text=text + "\n")


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()!|~$+-])")  # not & # ; (html.escape's entities)


def md_text(text: str) -> str:
    """Text for a markdown cell shown as it is: no HTML, no link, image, emphasis or math from it.

    A colon is a character reference, so the renderer's autolinking of bare URLs
    (`https://...`) finds no URL: a learner's message never becomes a link in the page.
    """
    return _MD_SPECIAL.sub(r"\\\1", html.escape(text, quote=True)).replace(":", "&#58;")


def summary_cell(result: NotebookResult) -> nbformat.NotebookNode:
    """A markdown table: every test with its points, pass/fail and message; then flags."""
    rows = ["| test | points | result | checks | message |", "|---|---|---|---|---|"]
    for t in result.tests:
        mark = {Outcome.PASSED: "✓", Outcome.FAILED: "✗"}.get(
            t.status, md_text(t.status)
        )  # written: by hand, or pending
        mark += " ✎ overridden" if t.overridden else ""
        message = md_text(t.message.replace("\n", " ")[:400])
        name = f"`{t.name}`{' (hidden)' if t.hidden else ''}"
        rows.append(f"| {name} | {t.score:g}/{t.max_score:g} | {mark} | {md_text(t.parts())} | {message} |")
    text = f"## Grade: {result.score:g} / {result.max_score:g}\n\n"
    if result.late_note:
        text += f"**Late:** {md_text(result.late_note)}: {result.penalty:g} point(s) taken.\n\n"
    text += "\n".join(rows)
    if result.flags or result.errors:
        text += "\n\n**Notes from the grader**\n\n" + "\n".join(
            f"- {md_text(x.replace(chr(10), ' ')[:1000])}" for x in result.errors + result.flags
        )
    return nbformat.v4.new_markdown_cell(text, metadata={"workbook_summary": True})


# What a learner's output may show in the feedback page. Every other type (text/html,
# image/svg+xml, text/markdown, text/latex, application/javascript, widget views, ...)
# can carry markup or script: it is shown as escaped text/plain instead, or dropped.
SAFE_IMAGES = ("image/png", "image/jpeg")
_BASE64 = re.compile(r"[A-Za-z0-9+/=\s]*")
MAX_SHOWN_CHARS = 20_000
_TEXTUAL = ("text/html", "text/markdown", "text/latex", "image/svg+xml", "application/javascript")


def _as_text(value: object) -> str:
    if isinstance(value, list) and all(isinstance(x, str) for x in value):
        return "".join(value)
    return value if isinstance(value, str) else str(value)[:MAX_SHOWN_CHARS]


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def safe_output(out) -> nbformat.NotebookNode | None:
    """A learner's output rebuilt from scratch with only inert content, or None to drop it.

    The page renders text/plain, streams and errors escaped (nbconvert's ansi2html), and
    PNG/JPEG as data: URLs: those are kept, images only when their data is plain base64
    and with no metadata (width, height, alt and filenames are written into attributes).
    """
    if not isinstance(out, dict):
        return None
    kind = out.get("output_type")
    if kind == "stream":
        name = out.get("name") if out.get("name") in ("stdout", "stderr") else "stdout"
        return nbformat.v4.new_output("stream", name=name, text=_as_text(out.get("text", ""))[:MAX_SHOWN_CHARS])
    if kind == "error":
        ename, evalue = _as_text(out.get("ename", "Error"))[:200], _as_text(out.get("evalue", ""))[:MAX_SHOWN_CHARS]
        return nbformat.v4.new_output("error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])
    if kind not in ("display_data", "execute_result"):
        return None
    data = d if isinstance(d := out.get("data"), dict) else {}
    safe: dict[str, str] = {}
    for mime in SAFE_IMAGES:
        value = data.get(mime)
        if isinstance(value, str) and _BASE64.fullmatch(value):
            safe[mime] = value
    if "text/plain" in data:
        safe["text/plain"] = _as_text(data["text/plain"])[:MAX_SHOWN_CHARS]
    else:
        active = sorted((m for m in data if m not in SAFE_IMAGES), key=lambda m: m not in _TEXTUAL)
        if active:
            shown = _as_text(data[active[0]])[:MAX_SHOWN_CHARS]
            safe["text/plain"] = f"[{str(active[0])[:80]} output, shown as text]\n{shown}"
    if not safe:
        return None
    if kind == "execute_result":
        return nbformat.v4.new_output(kind, data=safe, execution_count=_count(out.get("execution_count")))
    return nbformat.v4.new_output(kind, data=safe)


def make_inert(nb) -> None:
    """Every output inert and every written answer plain text, in place, before any copy is kept.

    The executed notebook goes into nbgrader's course folder (which formgrader renders) and
    into the results' saved states: no failure between grading and feedback may leave live
    learner markup there.
    """
    for cell in nb.cells:
        if cell.cell_type == "code":
            outputs = cell.get("outputs") if isinstance(cell.get("outputs"), list) else []
            cell.outputs = [o for o in map(safe_output, outputs) if o is not None]
        elif answers.is_written(cell) and not cell.metadata.get("workbook_inert"):
            cell.source = md_text(cell.source)
            cell.metadata["workbook_inert"] = True  # escaped once: sanitize leaves it as it is


def sanitize(nb, result: NotebookResult) -> nbformat.NotebookNode:
    """Hide hidden tests (source and output), put each test's verdict in its output."""
    by_name = {t.name: t for t in result.tests}
    for cell in nb.cells:
        if answers.is_test(cell):
            cell.source = strip_hidden(cell.source)
            test = by_name.get(answers.nbgrader_id(cell))
            cell.outputs = [_verdict_output(test)] if test else []
        elif answers.is_written(cell):  # shown as text, never markup
            if not cell.metadata.get("workbook_inert"):
                cell.source = md_text(cell.source)
        elif cell.cell_type == "markdown":  # the course's own text: its math pre-rendered
            cell.source = render_math(cell.source)
        elif cell.cell_type == "code":
            outputs = cell.get("outputs") if isinstance(cell.get("outputs"), list) else []
            cell.outputs = [o for o in map(safe_output, outputs) if o is not None]
        if cell.cell_type == "code":
            cell.execution_count = _count(cell.get("execution_count"))
    # the page reads a title, widget state and the code's language from here (and a kernel
    # reports its own language_info): the course's fixed values only
    nb.metadata = nbformat.from_dict(
        {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python", "pygments_lexer": "ipython3"},
        }
    )
    nb.cells = [c for c in nb.cells if not c.metadata.get("workbook_summary")]  # feedback written again
    nb.cells.insert(0, summary_cell(result))
    clean_text(nb)
    return nb


# Where the page is opened it may run no script and load nothing: inline styles and data:
# images only. A meta tag is honoured by browsers the same as the header, from where it stands.
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
CSP_META = f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'


def with_csp(page: str, mark: str = "") -> str:
    """The page with the Content-Security-Policy meta tag first in its head (before any script), then its grade mark."""
    tags = CSP_META + (f'\n<meta name="{GRADE_META}" content="{html.escape(mark)}">' if mark else "")
    head = re.search(r"<head\b[^>]*>", page, re.I)
    if head:
        return page[: head.end()] + "\n" + tags + page[head.end() :]
    doctype = re.match(r"\s*<!doctype[^>]*>", page, re.I)
    at = doctype.end() if doctype else 0
    return page[:at] + f"<head>{tags}</head>" + page[at:]


GRADE_META = "autograder-grade"  # the grade a page was written for, at the top of its head (grade_mark)
_MARK = re.compile(rf'<meta name="{GRADE_META}" content="([^"]*)">')


def grade_mark(result: NotebookResult) -> str:
    """Everything of a learner's grade a page shows, in one line: the score, the penalty, each test's points."""
    tests = ",".join(f"{t.name}={t.score:g}/{t.max_score:g}" for t in result.tests)
    return f"{result.score:g}/{result.max_score:g} penalty {result.penalty:g}; {tests}"


def page_mark(path: Path) -> str | None:
    """The grade mark a feedback page was written with (read from its first bytes), or None."""
    try:
        with path.open("rb") as fh:
            head = fh.read(16384).decode("utf-8", "replace")
    except OSError:
        return None
    found = _MARK.search(head)
    return html.unescape(found.group(1)) if found else None


def stale(folder: ResultsFolder, result: NotebookResult) -> bool:
    """Whether a graded result's feedback page is missing or shows another grade than `result` has now."""
    return page_mark(folder.feedback_page(result.student_id, result.notebook)) != grade_mark(result)


def generate(course: CourseFolder, session, result: NotebookResult, folder: ResultsFolder) -> Path:
    """Write RESULTS/feedback/<student>/<notebook>.html for one graded result (nbgrader generate_feedback)."""
    name, student = result.notebook, result.student_id
    path = course.format_path(AUTOGRADED, name, student, name)
    clean = path.with_name(f".{path.name}.tmp")  # nbgrader leaves the file read-only: replace it
    nbformat.write(sanitize(nbformat.read(path, as_version=4), result), clean)
    os.replace(clean, path)
    session.generate_feedback(name, student)
    dest = folder.feedback_page(student, name)
    dest.parent.mkdir(parents=True, exist_ok=True)
    page = course.format_path(FEEDBACK, name, student, name).read_text(encoding="utf-8")
    tmp = dest.with_name(f".{dest.name}.tmp")
    tmp.write_text(with_csp(page, grade_mark(result)), encoding="utf-8")
    os.replace(tmp, dest)
    return dest


_NOTICE = """<!DOCTYPE html>
<html lang="en"><head>{csp}<meta charset="utf-8"><title>{title}</title></head>
<body style="font-family: sans-serif; max-width: 46em; margin: 2em auto">
<h1>{title}</h1>
<p>Your submission could not be graded, so it has no grade yet. What was wrong:</p>
<ul>{reasons}</ul>
<p>Hand it in again with this fixed, or ask your instructor.</p>
</body></html>
"""


def notice(result: NotebookResult, folder: ResultsFolder, notebooks: list[str]) -> Path:
    """RESULTS/feedback/<student>/<notebook>.html for a submission intake refused: the reason, no grade.

    Named for the course notebook it was for (`notebooks`), else submission.html.
    """
    name = next((n for n in notebooks if result.notebook.startswith(n)), "submission")
    title = html.escape(f"{name}: not graded")
    reasons = "".join(f"<li>{html.escape(reason[:1000])}</li>" for reason in result.errors) or "<li>(none given)</li>"
    dest = folder.feedback_page(result.student_id, name)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.tmp")
    tmp.write_text(_NOTICE.format(csp=CSP_META, title=title, reasons=reasons), encoding="utf-8")
    os.replace(tmp, dest)
    return dest
