"""The similarity report at course scale: synthetic classes, indexed report against all pairs.

    python benchmarks/similarity_scale.py [--sizes 100 1000 5000] [--earlier 1000] [--before 100 200]

Each class is --sizes learners x every notebook (read from solutions/), plus an earlier year of
--earlier learners. A learner's answer to each cell is drawn from the cell's corpus of answers
written apart (the reference, the catalogue's right_* entries, the sample submissions' own
cells: benchmarks/similarity.py), disguised by one of the fourteen disguises (or not), and then
varied as people who write their own code vary it: a few of its expressions written another
way (`vary`). About 2% of the learners are planted copies: a whole notebook of another learner
of the class or of the earlier year, disguised. Each size runs in a process of its own and
prints seconds (the comparison: the class's answers are written first, untimed), peak memory
(RSS of that process, the class's answers included, and of the largest process shaping
answers), the pairs compared in full, and how many planted copies were flagged or listed as
short (a copy of so little code that the report, by its rule, lists it and never flags it). --before: the same classes
through the all-pairs comparison (similarity.pairs), at the sizes it can handle.
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import resource
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from autograder import paths  # noqa: E402
from autograder.run import similarity  # noqa: E402
from benchmarks import similarity as calibration  # noqa: E402
from benchmarks.disguise import VARIANTS, disguise  # noqa: E402

COPIES = 0.02  # share of planted copies in a class
_WRAPS = ("({}).contiguous()", "({}).clone()", "torch.as_tensor({})", "({}) * 1.0", "({}).float()")


class _Vary(ast.NodeTransformer):
    """A few expressions written another way (as an honest learner might), each a change of shape."""

    def __init__(self, rng: random.Random, chosen: set[int]) -> None:
        self.rng, self.chosen, self.seen = rng, chosen, 0

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        if isinstance(node, (ast.Call, ast.BinOp, ast.Subscript)):
            self.seen += 1
            if self.seen in self.chosen:
                wrapped = ast.parse(self.rng.choice(_WRAPS).format(ast.unparse(node)), mode="eval").body
                return ast.copy_location(wrapped, node)
        return node


def vary(code: str, rng: random.Random) -> str:
    """`code` with about one expression in six written another way (code that does not parse: as is)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code
    n = sum(isinstance(n, (ast.Call, ast.BinOp, ast.Subscript)) for n in ast.walk(tree))
    chosen = set(rng.sample(range(1, n + 1), k=max(1, n // 6))) if n else set()
    return ast.unparse(_Vary(rng, chosen).visit(tree))


HONEST = [v for v in VARIANTS if "dead" not in v and "helpers" not in v]  # what people who write their own do


def pools(notebooks: list[str]) -> dict[str, dict[str, list[str]]]:
    """Per notebook, per answer cell: the distinct answers written apart."""
    out = {}
    for notebook in notebooks:
        found = calibration.independent_answers(notebook)
        out[notebook] = {cell: sorted({code for _, code in authored}) for cell, authored in found.items()}
    return out


def _answer(pool: list[str], rng: random.Random) -> str:
    code = rng.choice(pool)
    if rng.random() < 0.7:
        code = disguise(code, rng.choice(HONEST), seed=rng.randrange(10**6))
    return vary(code, rng)


def make_class(learners: int, earlier: int, seed: int = 0, notebooks: list[str] | None = None, jobs: int = 1):
    """(docs, planted): each notebook's answers of a class and an earlier year; planted copy -> its source.

    `notebooks`: every notebook of solutions/ unless named; `jobs`: processes writing notebooks at once."""
    names = notebooks or paths.notebook_names()
    args = [(nb, learners, earlier, seed * 1000 + k) for k, nb in enumerate(names)]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            made = list(pool.map(_notebook_class, *zip(*args, strict=True)))
    else:
        made = [_notebook_class(*a) for a in args]
    docs = [d for group, _ in made for d in group]
    planted = {k: v for _, p in made for k, v in p.items()}
    return sorted(docs, key=lambda d: (d.owner.startswith("run:"), d.notebook)), planted


def _notebook_class(notebook: str, learners: int, earlier: int, seed: int):
    """One notebook's answers: the earlier year's, then the class's (planted copies among them)."""
    rng = random.Random(seed)
    pool = pools([notebook])[notebook]
    docs: list[similarity.Doc] = []
    planted: dict[tuple[str, str], str] = {}  # (copier, notebook) -> source owner
    for who, count in (("earlier", earlier), ("run", learners)):
        for i in range(count):
            owner = f"{who}:{who[0]}{i:05d}"
            if who == "run" and docs and rng.random() < COPIES:
                source = rng.choice(docs)
                steps = rng.choice(VARIANTS)
                code = {c: disguise(s, steps, seed=rng.randrange(10**6)) for c, s in source.cells.items()}
                planted[(owner, notebook)] = source.owner
            else:
                code = {c: _answer(p, rng) for c, p in pool.items() if rng.random() < 0.95}
            docs.append(similarity.Doc(owner, notebook, code))
    return docs, planted


def measure(learners: int, earlier: int, mode: str) -> dict:
    """One class through the report's comparison (`mode`: indexed or all), measured in this process."""
    docs, planted = make_class(learners, earlier, jobs=similarity.default_jobs())
    t0 = time.perf_counter()
    if mode == "all":
        found = similarity.pairs(docs)
        compared = len(found)
    else:
        report = similarity.compare_all(docs, jobs=similarity.default_jobs())
        found, compared = report.pairs, report.compared
    seconds = time.perf_counter() - t0
    t = similarity.THRESHOLD
    flagged = {(p.a.notebook, *sorted((p.a.owner, p.b.owner))) for p in found if p.flagged_at >= t}
    short = {(p.a.notebook, *sorted((p.a.owner, p.b.owner))) for p in found if p.short and p.score >= t}
    hit = sum((nb, *sorted((copier, source))) in flagged for (copier, nb), source in planted.items())
    hit_short = sum((nb, *sorted((copier, source))) in short for (copier, nb), source in planted.items())
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # the largest notebook process
    return {"learners": learners, "earlier": earlier, "mode": mode, "docs": len(docs), "compared": compared,
            "seconds": round(seconds, 1), "peak_mb": round(rss), "child_mb": round(child), "planted": len(planted), "planted_flagged": hit, "planted_short": hit_short,
            "flagged": len(flagged)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[100, 1000, 5000])
    parser.add_argument("--earlier", type=int, default=1000)
    parser.add_argument("--before", type=int, nargs="*", default=[100, 200], help="sizes for the all-pairs code")
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)  # LEARNERS EARLIER MODE: this process measures
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(int(args.one[0]), int(args.one[1]), args.one[2])))
        return
    print(f"{'mode':<8} {'learners':>8} {'earlier':>8} {'docs':>7} {'compared':>10} {'seconds':>8} {'peak MB':>8} "
          f"{'child MB':>8} {'planted flagged':>16} {'short':>6} {'flagged':>8}", flush=True)  # fmt: skip
    before = [(n, min(n, args.earlier) if n <= 100 else 0) for n in args.before]  # all pairs: what it can handle
    runs = [(n, e, "all") for n, e in before] + [(n, e, "indexed") for n, e in before]
    runs += [(n, args.earlier, "indexed") for n in args.sizes if (n, args.earlier) not in before]
    for n, earlier, mode in runs:
        cmd = [sys.executable, __file__, "--one", str(n), str(earlier), mode]
        r = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        print(f"{mode:<8} {n:>8} {r['earlier']:>8} {r['docs']:>7} {r['compared']:>10} {r['seconds']:>8} "
              f"{r['peak_mb']:>8} {r['child_mb']:>8} {r['planted_flagged']:>8}/{r['planted']:<7} "
              f"{r['planted_short']:>6} {r['flagged']:>8}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
