"""What the similarity report finds, measured on the project's own answers, per notebook.

    python benchmarks/similarity.py [--threshold X] [--learners 40] [--verbose]

- detection: fourteen disguised copies of the reference answers per notebook
  (benchmarks/disguise.py: renamed locals, reordered statements, new comments, dead code,
  extracted helpers, and combinations), each compared with the reference as a submission
  would be: flagged or not.
- independent notebooks: every tests/catalogue/NN/right_independent_learner.py (a whole
  notebook written from the student version alone) against the reference, as the report does.
- independent cells: every pair of independent correct answers of the same cell (the
  reference, the catalogue's right_* entries and the sample submissions' cells that differ
  from the reference), each compared as a notebook holding that one cell: flagged, and of
  those how many are marked short.
- cost: a class of --learners submissions of every notebook, all pairs plus the reference, timed.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import nbformat  # noqa: E402

from autograder import paths  # noqa: E402
from autograder.material import answers, markup  # noqa: E402
from autograder.run import codeshape, similarity  # noqa: E402
from benchmarks.disguise import VARIANTS, disguise  # noqa: E402

CATALOGUE = ROOT / "tests" / "catalogue"


def independent_answers(notebook: str) -> dict[str, list[tuple[str, str]]]:
    """Per answer cell: (author, code) of every distinct correct answer known to be written apart."""
    reference = answers.reference_answers(nbformat.read(paths.source_notebook(notebook), 4))
    found = {cell: [("reference", code)] for cell, code in reference.items()}
    for path in sorted((CATALOGUE / notebook).glob("right_*.py")):
        for cell, code in answers.load_answer_file(path, reference).items():
            if cell in found and "# __reference answer__" not in code:
                found[cell].append((path.stem, code))
    for path in sorted((paths.DATA / "submissions").glob(f"*/{notebook}.ipynb")):
        doc = similarity.notebook_doc(f"sample:{path.parent.name}", notebook, path)
        for cell, code in (doc.cells if doc else {}).items():
            norm = markup.strip_markers(code)
            if cell in found and norm != reference.get(cell) and "NotImplementedError" not in norm:
                found[cell].append((f"sample:{path.parent.name}", norm))
    return found


def detection(notebook: str, threshold: float) -> list[float]:
    """The scores of the disguised copies of the reference."""
    stubs = similarity.boilerplate(notebook)
    ref = similarity.fingerprint(similarity.reference_doc(notebook), stubs)
    scores = []
    for i, steps in enumerate(VARIANTS):
        cells = {c: disguise(code, steps, seed=i) for c, code in ref.cells.items()}
        pair = similarity.compare(ref, similarity.fingerprint(similarity.Doc("run:copy", notebook, cells), stubs))
        scores.append(round(float(pair.score), 3))
    return scores


def independent_notebook(notebook: str) -> float | None:
    """The score of the whole-notebook independent answer against the reference (None: there is none)."""
    path = CATALOGUE / notebook / "right_independent_learner.py"
    if not path.exists():
        return None
    stubs = similarity.boilerplate(notebook)
    ref = similarity.fingerprint(similarity.reference_doc(notebook), stubs)
    own = similarity.fingerprint(similarity.Doc("run:own", notebook, answers.load_answer_file(path)), stubs)
    return round(similarity.compare(ref, own).score, 3)


def false_positives(notebook: str, threshold: float) -> tuple[int, int, int, list[str]]:
    """Pairs of independent correct answers of one cell flagged (and of those, short), out of all such pairs."""
    stubs = similarity.boilerplate(notebook)
    short_below = int(similarity.SHORT * similarity.own_code(similarity.fingerprint(
        similarity.reference_doc(notebook), stubs)))  # fmt: skip
    flagged, short, total, which = 0, 0, 0, []
    for cell, authored in independent_answers(notebook).items():
        docs = [similarity.fingerprint(similarity.Doc(a, notebook, {cell: code}), stubs) for a, code in authored]
        for a, b in itertools.combinations(docs, 2):
            total += 1
            pair = similarity.compare(a, b, short_below)
            if pair.flagged_at >= threshold:
                flagged, short = flagged + 1, short + pair.short
                which.append(f"{cell}: {a.owner}~{b.owner} {pair.score:.2f}{' short' if pair.short else ''}")
    return flagged, short, total, which


def cost(learners: int) -> tuple[float, int]:
    """Seconds to compare a class of `learners`, every notebook, all pairs and the reference."""
    docs = []
    for notebook in paths.notebook_names():
        ref = similarity.reference_doc(notebook)
        for n in range(learners):
            steps = VARIANTS[n % len(VARIANTS)]
            cells = {c: disguise(code, steps, seed=n) for c, code in ref.cells.items()}
            docs.append(similarity.Doc(f"run:s{n:03d}", notebook, cells))
    t0 = time.perf_counter()
    found = similarity.pairs(docs)
    return time.perf_counter() - t0, len(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threshold", type=float, default=similarity.THRESHOLD)
    parser.add_argument("--learners", type=int, default=40)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    t = args.threshold
    print(
        f"threshold {t}, subtrees of {codeshape.MIN_NODES}+ nodes, short below {similarity.SHORT:.0%} of the reference"
    )
    print(f"{'notebook':<34} {'copies':>8} {'min':>6} {'own nb':>7} {'cell pairs flagged (short)':>27}")
    hits = copies = fp = fp_short = cell_pairs = own_flagged = own_total = 0
    for notebook in paths.notebook_names():
        scores = detection(notebook, t)
        own = independent_notebook(notebook)
        f, sh, n, which = false_positives(notebook, t)
        hits, copies = hits + sum(s >= t for s in scores), copies + len(scores)
        fp, fp_short, cell_pairs = fp + f, fp_short + sh, cell_pairs + n
        own_total, own_flagged = own_total + (own is not None), own_flagged + (own is not None and own >= t)
        own_text = "-" if own is None else f"{own:.3f}"
        hit = sum(s >= t for s in scores)
        print(f"{notebook:<34} {hit:>4}/{len(scores):<3} {min(scores):>6.3f} {own_text:>7} {f:>10}/{n} ({sh})")
        for line in which if args.verbose else []:
            print(f"    independent pair flagged: {line}")
    print(f"detection: {hits}/{copies} disguised copies flagged ({hits / copies:.1%})")
    print(f"false positives: {own_flagged}/{own_total} independent whole notebooks flagged; "
          f"{fp}/{cell_pairs} independent cell pairs ({fp / max(cell_pairs, 1):.1%}), {fp_short} of them marked short")  # fmt: skip
    seconds, compared = cost(args.learners)
    print(
        f"cost: {args.learners} learners x {len(paths.notebook_names())} notebooks, {compared} pairs in {seconds:.1f} s"
    )


if __name__ == "__main__":
    main()
