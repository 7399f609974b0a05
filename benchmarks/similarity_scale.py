"""The similarity report at course scale: synthetic classes, indexed report against all pairs.

    python benchmarks/similarity_scale.py [--sizes 100 1000 5000] [--earlier 1000] [--before 100]

Each class is --sizes learners x every notebook (read from solutions/), plus an earlier year of
--earlier learners. A learner's answer to each cell is drawn from the cell's corpus of answers
written apart (the reference, the catalogue's right_* entries, the sample submissions' own
cells: benchmarks/similarity.py), 7 times in 10 disguised as honest learners differ (one of
DISGUISED disguises of it drawn per answer: renamed, reordered, comments changed), and then
varied as people who write their own code vary it: about one expression in six written another
way (`vary`). About 2% of the learners are planted copies: a whole notebook of another learner
of the class or of the earlier year who answered every cell, disguised by any of the fourteen
disguises.

Each class is written once by a process of its own (untimed), then measured by one process per
comparison: `all` (every pair, similarity.pairs: --before sizes only), `cold` (the index, every
answer shaped, its prints kept as a shard's report keeps them in RESULTS/.shapes) and `warm`
(the index, the prints cold kept: the merged folder's report). Each prints a row of the table in
docs/instructor/similarity.md: the pairs compared in full, seconds (the comparison: reading the
notebooks is not in it), peak memory (RSS of that process, the class's answers included, and of
the largest process shaping answers), how many planted copies were flagged or listed as short (a
copy of so little code that the report, by its rule, lists it and never flags it), and the load
average when it ended (the machine's other work inflates the seconds).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import pickle
import random
import resource
import subprocess
import sys
import tempfile
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
        if _varied(node):
            self.seen += 1
            if self.seen in self.chosen:
                wrapped = ast.parse(self.rng.choice(_WRAPS).format(ast.unparse(node)), mode="eval").body
                return ast.copy_location(wrapped, node)
        return node


def _varied(node: ast.AST) -> bool:
    """An expression `vary` may write another way: a call, an operation, an index read (never a target)."""
    return isinstance(node, (ast.Call, ast.BinOp)) or (
        isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)
    )


def vary(code: str, rng: random.Random) -> str:
    """`code` with about one expression in six written another way (code that does not parse: as is)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code
    n = sum(_varied(n) for n in ast.walk(tree))
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


DISGUISED = 24  # disguised versions drawn per answer of the corpus (then varied per learner: the class's diversity)


def _answer(pool: list[str], rng: random.Random, drawn: dict[str, list[str]]) -> str:
    """A learner's own answer: one of the corpus's, disguised 7 times in 10, then varied."""
    code = rng.choice(pool)
    if rng.random() < 0.7:
        if code not in drawn:  # disguising costs more than varying: a few disguises per answer, drawn once
            drawn[code] = [disguise(code, rng.choice(HONEST), seed=rng.randrange(10**6)) for _ in range(DISGUISED)]
        code = rng.choice(drawn[code])
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
    drawn: dict[str, list[str]] = {}
    whole: list[similarity.Doc] = []  # the documents that answer every cell
    for who, count in (("earlier", earlier), ("run", learners)):
        for i in range(count):
            owner = f"{who}:{who[0]}{i:05d}"
            if who == "run" and whole and rng.random() < COPIES:
                source = rng.choice(whole)  # a copy of someone who did the work (of a cell or two: nothing to judge)
                steps = rng.choice(VARIANTS)
                code = {c: disguise(s, steps, seed=rng.randrange(10**6)) for c, s in source.cells.items()}
                planted[(owner, notebook)] = source.owner
            else:
                code = {c: _answer(p, rng, drawn) for c, p in pool.items() if rng.random() < 0.95}
            docs.append(similarity.Doc(owner, notebook, code))
            whole += [docs[-1]] if len(code) == len(pool) else []
    return docs, planted


def _class_file(work: Path, learners: int, earlier: int) -> Path:
    return work / f"class-{learners}-{earlier}.pickle"


def make(work: Path, learners: int, earlier: int) -> None:
    """Write the class once (its own process: what it costs is no part of the figures)."""
    docs, planted = make_class(learners, earlier, jobs=similarity.default_jobs())
    with _class_file(work, learners, earlier).open("wb") as fh:
        pickle.dump((docs, planted), fh, protocol=pickle.HIGHEST_PROTOCOL)


def measure(work: Path, learners: int, earlier: int, mode: str) -> dict:
    """One class through the report's comparison, measured in this process.

    `mode`: all (every pair, similarity.pairs), cold (the index, every answer shaped, the prints kept
    in WORK as a shard's report keeps them) or warm (the index, the prints cold kept: merge's report)."""
    with _class_file(work, learners, earlier).open("rb") as fh:
        docs, planted = pickle.load(fh)  # noqa: S301 - this benchmark's own file, written by make()
    kept = work / f"shapes-{learners}-{earlier}"
    t0 = time.perf_counter()
    if mode == "all":
        found = similarity.pairs(docs)
        compared = len(found)
    else:
        report = similarity.compare_all(docs, jobs=similarity.default_jobs(), kept=kept)
        found, compared = report.pairs, report.compared
    seconds = time.perf_counter() - t0
    t = similarity.THRESHOLD
    flagged = {(p.a.notebook, *sorted((p.a.owner, p.b.owner))) for p in found if p.flagged_at >= t}
    short = {(p.a.notebook, *sorted((p.a.owner, p.b.owner))) for p in found if p.short and p.score >= t}
    hit = sum((nb, *sorted((copier, source))) in flagged for (copier, nb), source in planted.items())
    hit_short = sum((nb, *sorted((copier, source))) in short for (copier, nb), source in planted.items())
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    child = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # the largest process shaping answers
    kept_mb = sum(f.stat().st_size for f in kept.rglob("*.json")) / 2**20 if kept.is_dir() else 0
    return {"learners": learners, "earlier": earlier, "mode": mode, "docs": len(docs), "compared": compared,
            "seconds": round(seconds, 1), "peak_mb": round(rss), "child_mb": round(child), "planted": len(planted),
            "planted_flagged": hit, "planted_short": hit_short, "flagged": len(flagged), "kept_mb": round(kept_mb, 1),
            "load": os.getloadavg()[0]}  # fmt: skip


HEAD = ("| comparison | learners | earlier year | answers (notebooks) | pairs compared in full | seconds | "
        "peak MB (largest child) | planted copies flagged (short) | pairs flagged | load average |\n"
        "|---|---|---|---|---|---|---|---|---|---|")  # fmt: skip
NAMES = {"all": "every pair (before)", "cold": "index, every answer shaped", "warm": "index, prints kept"}


def row(r: dict) -> str:
    """The result as a row of the table in docs/instructor/similarity.md."""
    return (f"| {NAMES[r['mode']]} | {r['learners']:,} | {r['earlier']:,} | {r['docs']:,} | {r['compared']:,} | "
            f"{r['seconds']} | {r['peak_mb']:,} ({r['child_mb']:,}) | {r['planted_flagged']}/{r['planted']} "
            f"({r['planted_short']}) | {r['flagged']} | {r['load']:.1f} |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[100, 1000, 5000])
    parser.add_argument("--earlier", type=int, default=1000)
    parser.add_argument("--before", type=int, nargs="*", default=[100], help="sizes for the all-pairs code")
    parser.add_argument("--one", nargs=4, help=argparse.SUPPRESS)  # WORK LEARNERS EARLIER MODE: this process
    args = parser.parse_args()
    if args.one:
        work, n, e, mode = Path(args.one[0]), int(args.one[1]), int(args.one[2]), args.one[3]
        make(work, n, e) if mode == "make" else print(json.dumps(measure(work, n, e, mode)))
        return
    print(f"{os.cpu_count()} cores; load average at the start {os.getloadavg()}; {time.strftime('%Y-%m-%d %H:%M %Z')}")
    print(HEAD, flush=True)
    before = [(n, min(n, args.earlier)) for n in args.before]  # all pairs: what it can handle
    runs = [(n, e, "all") for n, e in before] + [(n, args.earlier, m) for n in args.sizes for m in ("cold", "warm")]
    with tempfile.TemporaryDirectory(prefix="similarity-scale-") as work:
        made = set()
        for n, earlier, mode in runs:
            if (n, earlier) not in made:
                subprocess.run([sys.executable, __file__, "--one", work, str(n), str(earlier), "make"], check=True)
                made.add((n, earlier))
            cmd = [sys.executable, __file__, "--one", work, str(n), str(earlier), mode]
            r = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
            print(row(r), f"<!-- kept prints {r['kept_mb']} MB -->", flush=True)


if __name__ == "__main__":
    main()
