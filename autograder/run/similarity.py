"""similarity: which submissions share their answers with the reference, each other, or earlier years.

    python -m autograder similarity RESULTS [--earlier DIR] [--threshold X]

Every graded submission's answer cells (RESULTS/.state) are compared, per answer cell and
per notebook, with the course's reference answers (solutions/), with every other submission
of the run and with the submissions of an optional folder of earlier years
(`DIR/<student>/<NN_topic>.ipynb`). Code is compared by the shapes of its syntax trees
(autograder/run/codeshape.py): every name a learner chooses or the contract dictates becomes
one placeholder, docstrings, comments, annotations and layout are gone, and two answers share
a subtree of MIN_NODES nodes or more wherever it sits, so renaming, reformatting, reordered
statements and operands, dead code and code moved into helpers change little. The student version's own
code (signatures, given lines, and the code of its other cells: demonstrations, helpers,
visible tests) is the contract's or the lesson's: it never counts.

A pair's notebook score is the share of the smaller side's own code found in the other
(syntax nodes, summed over the cells both answered). A pair whose shared cells hold less than
SHORT of the reference's own code is "short": listed with its score, never flagged, since short
correct answers to a tightly specified function converge (09's DecoderBlock, written apart, is
the reference's line for line). Any other pair at or over the threshold is flagged. The
threshold is calibrated by benchmarks/similarity.py: the midpoint of the gap between the
highest score of an independent pair and the lowest of a disguised copy.
Only the candidates of an inverted index of the answers' shapes are compared in full
(autograder/run/simindex.py: any other pair provably scores under the threshold), so a class
of 5,000 costs about linear time; `pairs` compares every pair, as the tests' yardstick. What
the index needs of each answer cell (its print) is kept in RESULTS/.shapes by the cell's code
(autograder/run/simcache.py): a shard's report keeps its learners', merge copies them, and the
merged folder's report shapes only what no shard kept.
Writes RESULTS/similarity.html (every pair at or over the threshold ranked, the first DETAILS
side by side, shared code highlighted), RESULTS/similarity.csv (those pairs and each
learner's TOP highest under it), and a `similarity` entry per submission in results.json
(`max_score`: the highest score among the pairs compared in full). `write` returns a Report. All of
it is for the instructor: none of it reaches a learner's feedback. A high score is a
reason to look, not proof (see README, "What the similarity report can prove").
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import heapq
import html
import itertools
import json
import multiprocessing
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from autograder import paths
from autograder.material import answers, markup
from autograder.results import NotebookResult, Status, write_json_atomic
from autograder.results_folder import ResultsFolder
from autograder.run import codeshape, simcache, simindex
from autograder.run.sheet import csv_text

THRESHOLD = 0.86  # default notebook score from which a pair is flagged (the gap's midpoint: benchmarks/similarity.py)
DETAILS = 200  # pairs whose code the page shows side by side (the rest: one row each, and the CSV)
SHORT = 0.25  # a pair whose shared cells hold less than this share of the reference's own code: short, never flagged
REFERENCE = "reference"
MAX_NOTEBOOK_BYTES = 20 * 2**20
NAMES_NOBODY_CHOOSES = {"torch": "torch", "nn": "torch.nn", "F": "torch.nn.functional", "np": "numpy",
                        "numpy": "numpy", "math": "math", "random": "random", "workbook": "workbook", "self": "self",
                        "cls": "cls"}  # fmt: skip


Spans = tuple[list[int], list[int]]  # starts, ends of shared code in a cell's source


@dataclass
class Doc:
    """One notebook's answers by one author: the reference, a learner of this run, or of an earlier year."""

    owner: str  # "reference", "run:<student id>" or "earlier:<student id>"
    notebook: str
    cells: dict[str, str]  # answer grade_id -> code
    prints: dict[str, codeshape.Shape] = field(default_factory=dict)  # grade_id -> shape (answered cells only)


@dataclass(kw_only=True)
class Pair:
    """Two documents of one notebook and how much code they share."""

    a: Doc
    b: Doc
    score: float
    nodes: int  # the smaller side's own code (syntax nodes) over the shared cells
    cells: dict[str, tuple[float, Spans, Spans]]  # grade_id -> (score, shared spans in a, in b)
    short: bool = False  # less code than SHORT of the reference's: listed, never flagged

    @property
    def flagged_at(self) -> float:
        """The score that decides whether the pair is flagged: 0 for a short pair (too little code to judge)."""
        return 0.0 if self.short else self.score


@dataclass(frozen=True)
class Starter:
    """What a notebook's student version gives: per answer cell the subtrees it never counts, and its imports."""

    cells: dict[str, frozenset[bytes]]
    imported: dict[str, str]  # name -> the module it names


def boilerplate(notebook: str) -> Starter:
    """The student version's code, never counted as shared, and its imported names.

    Per answer cell: the stub's own subtrees (STARTER_NODES or more: signatures, given lines), and
    every subtree of MIN_NODES or more of the notebook's given code cells (demonstrations, helpers,
    visible tests), since a learner is taught to write what the notebook shows. Shaped once per
    version of the student notebook (shared: read it, never change it).
    """
    path = paths.NOTEBOOKS / f"{notebook}.ipynb"
    version = path.stat()
    return _boilerplate(path, version.st_mtime_ns, version.st_size)


@functools.lru_cache(maxsize=16)
def _boilerplate(path: Path, _mtime_ns: int, _size: int) -> Starter:
    student = nbformat.read(path, as_version=4)
    imported = dict(NAMES_NOBODY_CHOOSES)
    for c in student.cells:
        if c.cell_type == "code":
            imported |= codeshape.imported_names(markup.strip_markers(c.source))
    given: set[bytes] = set()
    for c in student.cells:
        if c.cell_type == "code" and not answers.is_answer(c):
            given |= codeshape.starter_hashes(markup.strip_markers(c.source), imported, codeshape.MIN_NODES)
    cells = {
        answers.nbgrader_id(c): frozenset(codeshape.starter_hashes(markup.strip_markers(c.source), imported) | given)
        for c in student.cells
        if answers.is_answer(c)
    }
    return Starter(cells, imported)


CUT = 200_000  # characters of a cell's code that are shaped


def shaped_cells(doc: Doc, stubs: Starter) -> dict[str, str]:
    """The answer cells of `doc` that are shaped (cells of the notebook's answers), as their code is shaped."""
    return {cell: markup.strip_markers(code)[:CUT] for cell, code in doc.cells.items()
            if cell in stubs.cells and isinstance(code, str)}  # fmt: skip


def fingerprint(doc: Doc, stubs: Starter) -> Doc:
    """Shape the cells of `doc` that hold code of the learner's own (beyond the starter code)."""
    for cell, code in shaped_cells(doc, stubs).items():
        shaped = codeshape.shape(code, stubs.cells[cell], stubs.imported)
        if shaped and shaped.counted:
            doc.prints[cell] = shaped
    return doc


def own_code(doc: Doc) -> int:
    """How much code of its own a fingerprinted document holds (syntax nodes)."""
    return sum(s.counted for s in doc.prints.values())


def compare(a: Doc, b: Doc, short_below: int = 0) -> Pair:
    """How much of the smaller side's code, cell by cell, the other holds."""
    shared, total, cells = 0, 0, {}
    for cell in sorted(set(a.prints) & set(b.prints)):
        sa, sb = a.prints[cell], b.prints[cell]
        in_a, spans_a = codeshape.covered(sa, sb.big())
        in_b, spans_b = codeshape.covered(sb, sa.big())
        mine, theirs = (in_a, sa.counted) if sa.counted <= sb.counted else (in_b, sb.counted)
        cells[cell] = (mine / theirs, _spans(spans_a), _spans(spans_b))
        shared += mine
        total += theirs
    return Pair(a=a, b=b, score=shared / total if total else 0.0, nodes=total, cells=cells, short=total < short_below)


def _spans(spans: list[tuple[int, int]]) -> Spans:
    return [s for s, _ in spans], [e for _, e in spans]


def reference_doc(notebook: str) -> Doc:
    """The course's own answers to a notebook."""
    return Doc(REFERENCE, notebook, answers.reference_answers(nbformat.read(paths.source_notebook(notebook), 4)))


def notebook_doc(owner: str, notebook: str, path: Path) -> Doc | None:
    """A learner's answers read from a notebook file (None when it cannot be read as one).

    A version 4 notebook is read as JSON, its cells as they are (nbformat's validation costs
    about 20 ms an executed notebook: minutes at 50,000); any other version through nbformat.
    """
    try:
        if path.is_symlink() or path.stat().st_size > MAX_NOTEBOOK_BYTES:
            return None
        data = json.loads(path.read_bytes())
        nb = data if data.get("nbformat") == 4 else nbformat.read(path, as_version=4)
        cells = {answers.grade_id(c): _source(c.get("source")) for c in nb["cells"] if answers.is_answer(c)}
    except Exception:  # noqa: BLE001 - learner files: one unreadable notebook is skipped, never fatal
        return None
    return Doc(owner, notebook, {k: v for k, v in cells.items() if isinstance(k, str) and isinstance(v, str)})


def _source(source: object) -> object:
    """A cell's source as one string (a notebook file may hold it as a list of lines)."""
    is_lines = isinstance(source, list) and all(isinstance(line, str) for line in source)
    return "".join(source) if is_lines else source  # type: ignore[arg-type]


def run_docs(folder: ResultsFolder, results: list[NotebookResult]) -> list[Doc]:
    """The answers of every graded submission in the results folder (its saved, graded notebooks)."""
    docs = []
    for r in results:
        if r.status == Status.GRADED and r.notebook in paths.notebook_names():
            path = folder.executed_path(r.student_id, r.notebook)
            doc = notebook_doc(f"run:{r.student_id}", r.notebook, path)
            docs += [doc] if doc else []
    return docs


def earlier_docs(folder: Path) -> list[Doc]:
    """Submissions of earlier years: FOLDER/<student>/<NN_topic>.ipynb."""
    names = set(paths.notebook_names())
    return [
        doc
        for path in sorted(folder.glob("*/*.ipynb"))
        if path.stem in names and (doc := notebook_doc(f"earlier:{path.parent.name}", path.stem, path))
    ]


def pairs(docs: list[Doc]) -> list[Pair]:
    """Every pair worth comparing, per notebook: learners of this run with the reference, each other and earlier."""
    found = []
    by_notebook: dict[str, list[Doc]] = {}
    for doc in docs:
        by_notebook.setdefault(doc.notebook, []).append(doc)
    for notebook, group in sorted(by_notebook.items()):
        stubs = boilerplate(notebook)
        group = [fingerprint(d, stubs) for d in [reference_doc(notebook), *group]]
        short_below = int(SHORT * own_code(group[0]))  # scales with the notebook: its reference's own code
        for a, b in itertools.combinations(group, 2):
            if a.owner.startswith("run:") or b.owner.startswith("run:"):
                found.append(compare(a, b, short_below))
    return sorted(found, key=lambda p: (-p.flagged_at, -p.score, p.a.owner, p.b.owner, p.a.notebook))


TOP = 3  # each learner's highest pairs kept (per notebook), beside every pair at or over the threshold
CHUNK = 1_000  # cells shaped per task of the process pool
POOL_FROM = 10_000  # cells to shape from which a pool shapes them (starting one costs about a second a process)
SHAPED_KEPT = 512  # documents whose full shapes are held at once while candidates are compared


@dataclass
class Report:
    """A similarity report's result: what `grade`'s summary and the command print (a stable public object)."""

    threshold: float
    pairs: list[Pair]  # every pair at or over the threshold (flagged or short) and each learner's TOP highest; ranked
    compared: int  # pairs compared in full (candidates of the index)
    html: Path | None = None  # the report's page, once written
    csv: Path | None = None

    @property
    def flagged(self) -> list[Pair]:
        """The pairs flagged: at or over the threshold, not short."""
        return [p for p in self.pairs if p.flagged_at >= self.threshold]


def _ranked(found: list[Pair]) -> list[Pair]:
    return sorted(found, key=lambda p: (-p.flagged_at, -p.score, p.a.owner, p.b.owner, p.a.notebook))


def compare_all(docs: list[Doc], threshold: float = THRESHOLD, jobs: int = 1, kept: Path | None = None) -> Report:
    """Every pair over the threshold, as pairs() finds them, but only candidates of the index compared in full.

    `jobs`: processes shaping a notebook's answers at once (1, or fewer than POOL_FROM cells to shape: all in
    this process). `kept`: a folder of kept prints (simcache; RESULTS/.shapes): a cell found there is not
    shaped again, and the prints shaped here are added. One notebook at a time.
    """
    by_notebook: dict[str, list[Doc]] = {}
    for doc in docs:
        by_notebook.setdefault(doc.notebook, []).append(doc)
    found: list[Pair] = []
    compared = 0
    with contextlib.ExitStack() as stack:
        pools: list[ProcessPoolExecutor] = []

        def pool() -> ProcessPoolExecutor | None:
            """The pool, started the first time a notebook has POOL_FROM cells to shape (none for one job)."""
            if jobs > 1 and not pools:
                context = multiprocessing.get_context("spawn")  # the caller may hold threads: never fork it
                pools.append(stack.enter_context(ProcessPoolExecutor(jobs, mp_context=context)))
            return pools[0] if pools else None

        for notebook, group in sorted(by_notebook.items()):
            store = _store(kept, notebook)
            pairs_, n = _indexed(notebook, [reference_doc(notebook), *group], threshold, pool, store)
            store.save()
            found += pairs_
            compared += n
    return Report(threshold, _ranked(found), compared)


def _store(kept: Path | None, notebook: str) -> simcache.Store:
    """The notebook's kept prints at the version its student notebook and this code give."""
    stubs = boilerplate(notebook)
    return simcache.Store(kept / notebook if kept else None, simcache.version(stubs.cells, stubs.imported, CUT))


def default_jobs() -> int:
    """The cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _prints(notebook: str, group: list[Doc], pool: Callable[[], ProcessPoolExecutor | None],
            store: simcache.Store) -> list[dict[str, simindex.CellPrint]]:  # fmt: skip
    """Each document's cells as the index sees them: kept ones read from `store`, the rest shaped (in `pool`)."""
    stubs = boilerplate(notebook)
    keyed = [{cell: (simcache.key(cell, code), code) for cell, code in shaped_cells(d, stubs).items()} for d in group]
    todo = {k: (cell, code) for doc in keyed for cell, (k, code) in doc.items() if store.get(k) is None}
    items = list(todo.items())
    workers = pool() if len(items) >= POOL_FROM else None
    if workers is None:
        done = _shape_cells(notebook, items)
    else:
        chunks = [items[i : i + CHUNK] for i in range(0, len(items), CHUNK)]
        done = [p for part in workers.map(_shape_cells, [notebook] * len(chunks), chunks) for p in part]
    for (k, _), cp in zip(items, done, strict=True):
        store.add(k, cp)
    return [{cell: got for cell, (k, _) in doc.items() if (got := store.get(k)) is not None and got.counted}
            for doc in keyed]  # fmt: skip


def _shape_cells(notebook: str, items: list[tuple[str, tuple[str, str]]]) -> list[simindex.CellPrint]:
    """Each (key, (cell, code))'s print (counted 0: no code of the learner's own); the full shapes let go."""
    stubs, out = boilerplate(notebook), []
    for _, (cell, code) in items:
        shaped = codeshape.shape(code, stubs.cells[cell], stubs.imported)
        out.append(simindex.cell_print(shaped) if shaped and shaped.counted else simindex.CellPrint(0, {}, frozenset()))
    return out


def _indexed(notebook: str, group: list[Doc], threshold: float, pool: Callable[[], ProcessPoolExecutor | None],
             store: simcache.Store) -> tuple[list[Pair], int]:  # fmt: skip
    """One notebook's kept pairs (group[0]: the reference) and how many were compared in full."""
    stubs = boilerplate(notebook)
    prints = _prints(notebook, group, pool, store)
    short_below = int(SHORT * sum(cp.counted for cp in prints[0].values()))
    wanted = [d.owner.startswith("run:") for d in group]
    shaped: dict[int, Doc] = {}  # the documents shaped again for a full comparison, the latest SHAPED_KEPT
    listed, top, compared = [], _Top(), 0
    for i, j in simindex.candidates(prints, wanted, threshold):
        a, b = (_shaped(shaped, group, k, stubs) for k in (i, j))
        pair = compare(a, b, short_below)
        compared += 1
        if pair.score >= threshold:
            listed.append(pair)
        else:
            top.add(pair)
    for doc in group:
        doc.prints = {}
    kept = {id(p): p for p in listed + top.pairs()}  # a pair over the threshold is among a learner's top too
    return list(kept.values()), compared


def _shaped(shaped: dict[int, Doc], group: list[Doc], k: int, stubs: Starter) -> Doc:
    """group[k] with its full shapes, shaped again unless among the latest SHAPED_KEPT."""
    if k in shaped:
        shaped[k] = shaped.pop(k)  # most recently used: last
        return shaped[k]
    if len(shaped) >= SHAPED_KEPT:
        oldest = next(iter(shaped))
        shaped.pop(oldest).prints = {}
    shaped[k] = fingerprint(group[k], stubs)
    return shaped[k]


class _Top:
    """Each learner's TOP highest pairs below the threshold (the rest are dropped: memory stays bounded)."""

    def __init__(self) -> None:
        self.best: dict[str, list[tuple[float, int, Pair]]] = {}
        self.count = 0

    def add(self, pair: Pair) -> None:
        for me in (pair.a, pair.b):
            if me.owner.startswith("run:"):
                self.count += 1  # a tie-breaker: pairs themselves are not ordered
                heap = self.best.setdefault(me.owner, [])
                (heapq.heappush if len(heap) < TOP else heapq.heappushpop)(heap, (pair.score, self.count, pair))

    def pairs(self) -> list[Pair]:
        return [p for heap in self.best.values() for _, _, p in heap]


def flags(found: list[Pair], threshold: float) -> dict[tuple[str, str], dict]:
    """Per (student id, notebook) of this run: its highest score in `found`, with whom, whether over the threshold."""
    out: dict[tuple[str, str], dict] = {}
    for pair in found:
        for me, other in ((pair.a, pair.b), (pair.b, pair.a)):
            if not me.owner.startswith("run:"):
                continue
            key = (me.owner[4:], me.notebook)
            entry = out.setdefault(key, {"max_score": 0.0, "with": [], "flagged": False})
            entry["max_score"] = max(entry["max_score"], round(pair.score, 3))
            if pair.flagged_at >= threshold:
                entry["flagged"] = True
                entry["with"].append(other.owner)
    return out


def write(folder: ResultsFolder, results: list[NotebookResult], earlier: Path | None = None,
          threshold: float = THRESHOLD, jobs: int | None = None) -> Report:  # fmt: skip
    """Compare, then write similarity.html, similarity.csv and each submission's entry in results.json.

    `jobs`: processes shaping answers at once (default: one per core this process may use).
    """
    docs = run_docs(folder, results) + (earlier_docs(earlier) if earlier else [])
    report = compare_all(docs, threshold, default_jobs() if jobs is None else jobs, folder.shapes_dir)
    rows: list[list[object]] = [["notebook", "a", "b", "score", "nodes", "short", "flagged", "cells"]]
    for p in report.pairs:
        cells = " ".join(f"{c}:{s:.2f}" for c, (s, _, _) in p.cells.items())
        rows.append([p.a.notebook, p.a.owner, p.b.owner, f"{p.score:.3f}", p.nodes, p.short,
                     p.flagged_at >= threshold, cells])  # fmt: skip
    folder.similarity_csv.write_text(csv_text(rows), encoding="utf-8")
    folder.similarity_html.write_text(html_report(report.pairs, threshold, compared=report.compared), encoding="utf-8")
    _mark_results(folder, flags(report.pairs, threshold))
    report.html, report.csv = folder.similarity_html, folder.similarity_csv
    return report


def _mark_results(folder: ResultsFolder, marks: dict[tuple[str, str], dict], fill: bool = True) -> None:
    """Each submission's similarity entry in results.json (the instructor's file; never the feedback).

    `fill`: a submission the report has no pair for is marked unflagged (a fresh report); else left unmarked.
    """
    write_json_atomic(folder.similarity_marks, [{"student_id": s, "notebook": n, **m} for (s, n), m in marks.items()])
    path = folder.results_json
    if not path.exists():
        return
    data = json.loads(path.read_text(encoding="utf-8"))
    for sub in data.get("submissions", []):
        entry = marks.get((sub.get("student_id"), sub.get("notebook")))
        if entry or fill:
            sub["similarity"] = entry or {"max_score": 0.0, "with": [], "flagged": False}
    write_json_atomic(path, data)


def reapply(folder: ResultsFolder) -> None:
    """Put the last report's marks back into a rewritten results.json (nothing when there was no report)."""
    try:
        saved = json.loads(folder.similarity_marks.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    marks = {(m.pop("student_id", None), m.pop("notebook", None)): m for m in saved if isinstance(m, dict)}
    _mark_results(folder, marks, fill=False)


PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>Similarity report (instructor only)</title>
<style>body{{font-family:sans-serif;margin:1em}} table{{border-collapse:collapse}} td,th{{border:1px solid #ccc;
padding:2px 6px;vertical-align:top}} pre{{margin:0;white-space:pre-wrap;font-size:12px;max-width:48em}}
mark{{background:#ffd27f}} .flag{{color:#b00;font-weight:bold}}</style></head><body>
<h1>Similarity report — instructor only</h1>
<p>{summary}</p>
<p>Scores: the share of the smaller side's code (identifiers, comments and whitespace normalised; starter code
excluded) that the other holds. A high score is a reason to look at the code, not proof of copying: short
correct answers to a tightly specified function converge, so a pair marked short is never flagged.</p>
<table><tr><th>#</th><th>notebook</th><th>a</th><th>b</th><th>score</th><th>code</th></tr>{rows}</table>
{details}</body></html>
"""


def _highlight(code: str, slices: Spans) -> str:
    """Code as escaped HTML, the shared regions in <mark>."""
    out, at = [], 0
    spans = sorted(zip(*slices, strict=True))
    for start, end in spans:
        start, end = max(int(start), at), max(int(end), at)
        out += [html.escape(code[at:start]), "<mark>", html.escape(code[start:end]), "</mark>"]
        at = end
    return "".join(out) + html.escape(code[at:])


def html_report(found: list[Pair], threshold: float, limit: int = DETAILS, compared: int | None = None) -> str:
    """The ranked pairs, and for the first `limit` listed their cells side by side; every learner text escaped.

    Listed: the pairs at or over the threshold, flagged first, then the short ones (never flagged); each
    one a row, and the code of the first `limit` side by side (the page stays small at any class size).
    """
    shown = [p for p in found if p.score >= threshold] or found[:20]
    rows, details = [], []
    for i, p in enumerate(shown, 1):
        cls = ' class="flag"' if p.flagged_at >= threshold else ""
        link = f'<a href="#p{i}">{i}</a>' if i <= limit else str(i)
        rows.append(
            f"<tr><td>{link}</td><td>{html.escape(p.a.notebook)}</td><td>{html.escape(p.a.owner)}"
            f"</td><td>{html.escape(p.b.owner)}</td><td{cls}>{p.score:.2f}</td><td>{p.nodes}{' (short)' if p.short else ''}</td></tr>"
        )
        if i <= limit:
            details.append(_side_by_side(i, p))
    flagged = sum(p.flagged_at >= threshold for p in found)
    short = sum(p.short and p.score >= threshold for p in found)
    done = f"{compared if compared is not None else len(found)} pair(s) compared in full"
    summary = (f"{done}, {flagged} flagged at or over the threshold {threshold:g}, "
               f"{short} short pair(s) over it listed, not flagged; code side by side for the first "
               f"{min(limit, len(shown))} of {len(shown)} listed (every pair kept: similarity.csv)")  # fmt: skip
    return PAGE.format(summary=html.escape(summary), rows="".join(rows), details="".join(details))


def _side_by_side(i: int, p: Pair) -> str:
    """Pair number i's cells, its code and the other's, shared code marked."""
    cells = []
    for cell, (score, sa, sb) in p.cells.items():
        left = _highlight(markup.strip_markers(p.a.cells[cell]), sa)
        right = _highlight(markup.strip_markers(p.b.cells[cell]), sb)
        cells.append(f"<tr><th colspan=2>{html.escape(cell)}: {score:.2f}</th></tr>"
                     f"<tr><td><pre>{left}</pre></td><td><pre>{right}</pre></td></tr>")  # fmt: skip
    return (
        f'<h2 id="p{i}">{i}. {html.escape(p.a.notebook)}: {html.escape(p.a.owner)} — '
        f"{html.escape(p.b.owner)} ({p.score:.2f})</h2><table>{''.join(cells)}</table>"
    )


def main(argv: list[str] | None = None) -> int:
    """Compare RESULTS' submissions with the reference, each other and earlier years; write the report."""
    parser = argparse.ArgumentParser(prog="python -m autograder similarity", description=main.__doc__)
    parser.add_argument("results", type=Path)
    parser.add_argument("--earlier", type=Path, help="earlier years' submissions: DIR/<student>/<NN_topic>.ipynb")
    parser.add_argument(
        "--threshold", type=float, default=THRESHOLD, help=f"notebook score to flag (default {THRESHOLD})"
    )
    parser.add_argument("--jobs", type=int, default=None, help="processes shaping answers (default: one per core)")
    args = parser.parse_args(argv)
    folder = ResultsFolder(args.results)  # the one construction: from the command line's argument
    results = folder.results()
    if not results:
        print(f"ERROR: {args.results} holds no graded results", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    report = write(folder, results, args.earlier, args.threshold, args.jobs)
    print(f"{report.compared} pair(s) compared in full, {len(report.flagged)} flagged ({time.perf_counter() - t0:.1f} s): "
          f"{folder.similarity_html}, similarity.csv")  # fmt: skip
    return 0
