"""What the similarity report finds, measured on the project's own answers, per notebook.

    python benchmarks/similarity.py [--threshold X] [--seeds 3] [--learners 40] [--verbose]

- detection: disguised copies of the reference answers (benchmarks/disguise.py: renamed names,
  reordered statements and operands, comment changes, dead code, extracted helpers, and their
  combinations; fourteen disguises, --seeds draws of each), each compared with the reference
  as a submission would be: flagged or not. Also every answer cell copied alone (a notebook
  holding that one disguised cell): flagged, or short (too little code to be judged alone).
- independent cells: every pair of independently written correct answers of the same cell
  (the corpus below), each compared as a notebook holding that one cell: flagged or not.
- independent notebooks: every pair of whole notebooks written apart (the reference,
  tests/catalogue/NN/right_independent_learner.py, the sample submissions' own cells).
- the gap: the highest score an independent pair is judged on (short pairs are listed, never
  flagged) and the lowest score of a disguised whole-notebook copy; the threshold belongs
  between them.
- cost: a class of --learners submissions of every notebook, all pairs plus the reference, timed.

The corpus of independent answers: the reference, every tests/catalogue/NN/right_*.py (the
honest variants of tests/honest_variants.md among them) and every answer cell of a sample
submission (data/submissions) that is neither the reference's nor the untouched stub.
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import nbformat  # noqa: E402

from autograder import paths  # noqa: E402
from autograder.material import answers, markup  # noqa: E402
from autograder.run import codeshape, similarity  # noqa: E402
from benchmarks.disguise import VARIANTS, disguise  # noqa: E402

CATALOGUE = ROOT / "tests" / "catalogue"
HONEST = ROOT / "tests" / "honest_variants.md"
SAMPLES = paths.DATA / "submissions"


def honest_variants() -> set[str]:
    """The answer files tests/honest_variants.md lists (file names)."""
    return set(re.findall(r"`(right_[a-z0-9_]+\.py)`", HONEST.read_text(encoding="utf-8")))


def _reference(notebook: str) -> dict[str, str]:
    return answers.reference_answers(nbformat.read(paths.source_notebook(notebook), 4))


def sample_answers(notebook: str) -> dict[str, dict[str, str]]:
    """Per sample learner: their own answer cells of `notebook` (not the reference's, not the untouched stub)."""
    reference = _reference(notebook)
    out = {}
    for path in sorted(SAMPLES.glob(f"*/{notebook}.ipynb")):
        doc = similarity.notebook_doc(f"sample:{path.parent.name}", notebook, path)
        cells = {
            cell: norm
            for cell, code in (doc.cells if doc else {}).items()
            if cell in reference and (norm := markup.strip_markers(code)) != reference[cell]
            and "NotImplementedError" not in norm
        }  # fmt: skip
        if cells:
            out[f"sample:{path.parent.name}"] = cells
    return out


def independent_answers(notebook: str) -> dict[str, list[tuple[str, str]]]:
    """Per answer cell: (author, code) of every distinct correct answer known to be written apart."""
    reference = _reference(notebook)
    found = {cell: [("reference", code)] for cell, code in reference.items()}
    for path in sorted((CATALOGUE / notebook).glob("right_*.py")):
        for cell, code in answers.load_answer_file(path, reference).items():
            if cell in found:
                found[cell].append((path.stem, code))
    for owner, cells in sample_answers(notebook).items():
        for cell, code in cells.items():
            found[cell].append((owner, code))
    return found


def independent_notebooks(notebook: str) -> list[tuple[str, dict[str, str]]]:
    """Whole notebooks written apart: the reference, the catalogue's independent learner, the samples' own cells."""
    docs = [("reference", _reference(notebook))]
    path = CATALOGUE / notebook / "right_independent_learner.py"
    if path.exists():
        docs.append(("right_independent_learner", answers.load_answer_file(path)))
    return docs + list(sample_answers(notebook).items())


@dataclass
class Measure:
    """One notebook's figures (scores rounded to 3 places)."""

    notebook: str
    copies: list[float] = field(default_factory=list)  # disguised whole-notebook copies
    cell_copies: list[tuple[str, float, bool]] = field(default_factory=list)  # (cell, score, short)
    cell_pairs: list[tuple[str, str, str, float, bool]] = field(default_factory=list)  # cell, a, b, score, short
    notebook_pairs: list[tuple[str, str, float, bool]] = field(default_factory=list)  # a, b, score, short


def measure(notebook: str, seeds: int = 1) -> Measure:
    """Disguised copies and independent pairs of one notebook, scored as the report scores them."""
    stubs = similarity.boilerplate(notebook)
    ref = similarity.fingerprint(similarity.reference_doc(notebook), stubs)
    short_below = int(similarity.SHORT * similarity.own_code(ref))
    out = Measure(notebook)

    def doc(owner: str, cells: dict[str, str]) -> similarity.Doc:
        return similarity.fingerprint(similarity.Doc(owner, notebook, cells), stubs)

    for seed, (i, steps) in itertools.product(range(seeds), enumerate(VARIANTS)):
        cells = {c: disguise(code, steps, seed=i + 100 * seed) for c, code in ref.cells.items()}
        out.copies.append(round(similarity.compare(ref, doc("run:copy", cells), short_below).score, 3))
    for (i, steps), cell in itertools.product(enumerate(VARIANTS), ref.prints):
        pair = similarity.compare(ref, doc("run:copy", {cell: disguise(ref.cells[cell], steps, seed=i)}), short_below)
        out.cell_copies.append((cell, round(pair.score, 3), pair.short))
    for cell, authored in independent_answers(notebook).items():
        for a, b in itertools.combinations([doc(owner, {cell: code}) for owner, code in authored], 2):
            pair = similarity.compare(a, b, short_below)
            if pair.cells:  # both hold code of their own in the cell
                out.cell_pairs.append((cell, a.owner, b.owner, round(pair.score, 3), pair.short))
    whole = [doc(owner, cells) for owner, cells in independent_notebooks(notebook)]
    for a, b in itertools.combinations(whole, 2):
        pair = similarity.compare(a, b, short_below)
        out.notebook_pairs.append((a.owner, b.owner, round(pair.score, 3), pair.short))
    return out


def flagged(score: float, short: bool, threshold: float) -> bool:
    """As the report decides: a short pair is listed, never flagged."""
    return not short and score >= threshold


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
    parser.add_argument("--seeds", type=int, default=3, help="draws of each of the fourteen disguises")
    parser.add_argument("--learners", type=int, default=40)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    t = args.threshold
    print(f"threshold {t}, subtrees of {codeshape.MIN_NODES}+ nodes; a pair holding less than "
          f"{similarity.SHORT:.0%} of the reference's own code is short: listed, never flagged")  # fmt: skip
    corpus = {p.name for p in CATALOGUE.glob("*/right_*.py")}
    honest = honest_variants()
    samples = sorted({o for nb in paths.notebook_names() for o in sample_answers(nb)})
    print(f"independent corpus: the reference, {len(corpus)} catalogue right_* files ({len(honest & corpus)} of the "
          f"{len(honest)} honest variants), samples {', '.join(samples)}")  # fmt: skip
    print(f"{'notebook':<34} {'copies':>8} {'min':>6} {'cells: flagged':>15} {'short':>6} "
          f"{'indep. cells':>13} {'indep. nbs':>11} {'max':>6}")  # fmt: skip
    found = [measure(nb, args.seeds) for nb in paths.notebook_names()]
    for m in found:
        hit = sum(s >= t for s in m.copies)
        judged = [s for _, s, short in m.cell_copies if not short]
        cell_fp = sum(flagged(s, sh, t) for *_, s, sh in m.cell_pairs)
        nb_fp = sum(flagged(s, sh, t) for *_, s, sh in m.notebook_pairs)
        top = max([s for *_, s, sh in m.cell_pairs + m.notebook_pairs if not sh], default=0.0)  # type: ignore[misc]
        print(f"{m.notebook:<34} {hit:>4}/{len(m.copies):<3} {min(m.copies):>6.3f} "
              f"{sum(s >= t for s in judged):>7}/{len(judged):<7} {len(m.cell_copies) - len(judged):>6} "
              f"{cell_fp:>6}/{len(m.cell_pairs):<6} {nb_fp:>4}/{len(m.notebook_pairs):<6} {top:>6.3f}")  # fmt: skip
        if args.verbose:
            pairs = [(s, sh, f"{c}: {a} ~ {b}") for c, a, b, s, sh in m.cell_pairs]
            pairs += [(s, sh, f"whole notebook: {a} ~ {b}") for a, b, s, sh in m.notebook_pairs]
            for s, sh, what in sorted(pairs, reverse=True)[:3]:
                print(f"    independent {s:.3f}{' short (listed, not flagged)' if sh else ''}: {what}")
    copies = [s for m in found for s in m.copies]
    cell_copies = [(s, sh) for m in found for _, s, sh in m.cell_copies]
    judged = [s for s, sh in cell_copies if not sh]
    cell_pairs = [(s, sh) for m in found for *_, s, sh in m.cell_pairs]
    nb_pairs = [(s, sh) for m in found for *_, s, sh in m.notebook_pairs]
    high = max(s for s, sh in cell_pairs + nb_pairs if not sh)
    low = min(copies)
    print(f"detection: {sum(s >= t for s in copies)}/{len(copies)} disguised whole-notebook copies flagged "
          f"(lowest {low:.3f}); single cells copied alone: {sum(s >= t for s in judged)}/{len(judged)} flagged "
          f"(lowest {min(judged):.3f}), {len(cell_copies) - len(judged)} short (listed, not flagged)")  # fmt: skip
    cell_fp = sum(flagged(s, sh, t) for s, sh in cell_pairs)
    nb_fp = sum(flagged(s, sh, t) for s, sh in nb_pairs)
    print(f"false positives: {cell_fp}/{len(cell_pairs)} independent cell pairs ({cell_fp / len(cell_pairs):.1%}), "
          f"{nb_fp}/{len(nb_pairs)} independent notebook pairs ({nb_fp / len(nb_pairs):.1%}); "
          f"{sum(sh and s >= t for s, sh in cell_pairs + nb_pairs)} short pair(s) at or over {t} listed, not flagged")  # fmt: skip
    print(f"gap: highest independent score judged {high:.3f}, lowest disguised copy {low:.3f}, "
          f"midpoint {(high + low) / 2:.3f}; threshold {t} {'inside' if high < t <= low else 'OUTSIDE'} the gap")  # fmt: skip
    seconds, compared = cost(args.learners)
    print(
        f"cost: {args.learners} learners x {len(paths.notebook_names())} notebooks, {compared} pairs in {seconds:.1f} s"
    )


if __name__ == "__main__":
    main()
