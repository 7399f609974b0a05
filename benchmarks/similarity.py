"""What the similarity report finds, measured on the project's own answers, per notebook.

    python benchmarks/similarity.py [--threshold X] [--min-tokens N] [--learners 40]

- detection: ten disguised copies of the reference answers per notebook (benchmarks/disguise.py:
  renamed locals, reordered statements, new comments, extracted helpers, and combinations),
  each compared with the reference as a submission would be: flagged or not.
- false positives: every pair of independent correct answers of the same cell (the reference
  and the catalogue's right_* entries, tests/catalogue/NN/right_*.py, and the sample
  submissions' cells that differ from the reference), compared as a notebook holding that one
  cell: the share of pairs flagged.
- cost: a class of --learners submissions of every notebook (disguised copies, so every
  pair is compared in full), all pairs plus the reference, timed.
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
from autograder.material import answers  # noqa: E402
from autograder.run import similarity  # noqa: E402
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
            norm = answers.strip_markers(code)
            if cell in found and norm != reference.get(cell) and "NotImplementedError" not in norm:
                found[cell].append((f"sample:{path.parent.name}", norm))
    return found


def detection(notebook: str, threshold: float) -> tuple[int, list[float]]:
    """How many of the ten disguised copies of the reference are flagged, and their scores."""
    ref = similarity.reference_doc(notebook)
    stubs = similarity.boilerplate(notebook)
    ref = similarity.fingerprint(ref, stubs)
    scores, hits = [], 0
    for i, steps in enumerate(VARIANTS):
        cells = {c: disguise(code, steps, seed=i) for c, code in ref.cells.items()}
        pair = similarity.compare(ref, similarity.fingerprint(similarity.Doc("run:copy", notebook, cells), stubs))
        scores.append(round(float(pair.score), 2))
        hits += pair.flagged_at >= threshold
    return hits, scores


def false_positives(notebook: str, threshold: float) -> tuple[int, int, list[str]]:
    """Pairs of independent correct answers of one cell flagged, out of all such pairs."""
    stubs = similarity.boilerplate(notebook)
    flagged, total, which = 0, 0, []
    for cell, authored in independent_answers(notebook).items():
        docs = [similarity.fingerprint(similarity.Doc(a, notebook, {cell: code}), stubs) for a, code in authored]
        for a, b in itertools.combinations(docs, 2):
            total += 1
            pair = similarity.compare(a, b)
            if pair.flagged_at >= threshold:
                flagged += 1
                which.append(f"{cell}: {a.owner}~{b.owner} {pair.score:.2f}")
    return flagged, total, which


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
    parser.add_argument("--min-tokens", type=int, default=similarity.MIN_TOKENS)
    parser.add_argument("--learners", type=int, default=40)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    similarity.MIN_TOKENS = args.min_tokens
    print(f"threshold {args.threshold}, min tokens {args.min_tokens} (copydetect k={similarity.NOISE})")
    print(f"{'notebook':<34} {'detected':>9} {'false pos.':>11}  disguised copies' scores")
    all_hits = all_fp = all_pairs = 0
    for notebook in paths.notebook_names():
        hits, scores = detection(notebook, args.threshold)
        fp, pairs, which = false_positives(notebook, args.threshold)
        all_hits, all_fp, all_pairs = all_hits + hits, all_fp + fp, all_pairs + pairs
        print(f"{notebook:<34} {hits:>6}/10 {fp:>5}/{pairs:<5}  {scores}")
        for line in which if args.verbose else []:
            print(f"    false positive: {line}")
    n = len(paths.notebook_names())
    print(f"{'all':<34} {all_hits:>5}/{10 * n} {all_fp:>5}/{all_pairs:<5}")
    seconds, compared = cost(args.learners)
    print(f"cost: {args.learners} learners x {n} notebooks, {compared} pairs compared in {seconds:.1f} s")


if __name__ == "__main__":
    main()
