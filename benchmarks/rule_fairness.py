"""The "write it yourself" rule on honest code and on cheats: points and flags, per answer file.

    python benchmarks/rule_fairness.py --out rule.json [--files-from DIR] [--jobs 2]
    python benchmarks/rule_fairness.py --compare before.json after.json

Grades, one submission each, the reference of every notebook with a rule, every honest variant
listed in tests/honest_variants.md and every catalogue cheat that reaches the built-in (files
taken from DIR's tests/catalogue, by default this checkout's), with this checkout's grader and
this checkout's way of building submissions. Notebook 10 has no rule (all of PyTorch is free there,
nn.TransformerEncoderLayer included), but its reference and honest variants are graded too: they must
lose nothing and raise no flag either. Run from an older checkout (`cd OLD && python
NEW/benchmarks/rule_fairness.py --files-from NEW`) it measures the same files with the old
grader; `--compare` prints both side by side. "lost" is the points lost by tests that are not
written answers; "flagged" is whether any `forbidden` flag was raised.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path.cwd()
sys.path[:0] = [str(HERE), str(HERE / "tests")]

RULE_NOTEBOOKS = [
    "01_scaled_dot_product_attention",
    "03_multi_head_attention",
    "05_encoder_classifier",
    "08_efficient_attention",
    "09_language_model",
]
NO_RULE_NOTEBOOKS = ["10_beyond_text"]  # graded here all the same: a flag or a lost point there is a bug too
# Catalogue cheats that reach the rule's built-in by some route (the and the earlier ones).
CHEATS = re.compile(r"^wrong_.*(builtin|stash|another_cell|prealloc)", re.IGNORECASE)


def answer_files(root: Path) -> list[tuple[str, str, Path | None]]:
    """(kind, notebook, file): references (file None), honest variants, cheats."""
    listed = set(re.findall(r"`(right_[a-z0-9_]+\.py)`", (root / "tests/honest_variants.md").read_text()))
    names = RULE_NOTEBOOKS + NO_RULE_NOTEBOOKS
    rows: list[tuple[str, str, Path | None]] = [("reference", name, None) for name in names]
    for name in names:
        for path in sorted((root / "tests/catalogue" / name).glob("*.py")):
            if path.name in listed:
                rows.append(("honest", name, path))
            elif CHEATS.match(path.name):
                rows.append(("cheat", name, path))
    return rows


def grade_all(rows, jobs: int) -> dict[str, dict]:
    """Each row as its own learner; student id -> its result in results.json."""
    import nbformat
    from support import make_submission

    with tempfile.TemporaryDirectory() as tmp:
        subs, out = Path(tmp) / "subs", Path(tmp) / "out"
        for i, (_kind, name, path) in enumerate(rows):
            folder = subs / f"s{i:03d}"
            folder.mkdir(parents=True)
            nbformat.write(make_submission(name, path), folder / f"{name}.ipynb")
        cmd = [sys.executable, "-m", "autograder", "grade", str(subs), "--out", str(out), "--jobs", str(jobs)]
        subprocess.run([*cmd, "--quiet", "--no-similarity"], cwd=HERE, check=False, stdout=subprocess.DEVNULL)
        data = json.loads((out / "results.json").read_text())
    return {r["student_id"]: r for r in data["submissions"]}


def summarise(rows, results) -> list[dict]:
    table = []
    for i, (kind, name, path) in enumerate(rows):
        r = results.get(f"s{i:03d}", {})
        auto = [t for t in r.get("tests", []) if not t.get("manual")]
        lost = sum(t["max_score"] - t["score"] for t in auto)
        flags = [f for f in r.get("flags", []) if f.startswith("forbidden")]
        table.append(
            {
                "kind": kind,
                "notebook": name[:2],
                "file": path.name if path else "(reference)",
                "status": r.get("status", "missing"),
                "lost": round(lost, 2),
                "max": round(sum(t["max_score"] for t in auto), 2),
                "flagged": bool(flags),
                "flags": flags[:3],
            }
        )
    return table


def show(before: list[dict], after: list[dict] | None = None) -> None:
    """One line per file; with two runs, before -> after."""
    after_by = {(r["notebook"], r["file"]): r for r in after or []}
    cell = lambda r: f"{'-' + str(r['lost']) if r['lost'] else 'full'}{' F' if r['flagged'] else ''}"  # noqa: E731
    for kind in ("reference", "honest", "cheat"):
        rows = [r for r in before if r["kind"] == kind]
        print(f"\n{kind} ({len(rows)})")
        for r in rows:
            a = after_by.get((r["notebook"], r["file"]))
            print(f"  {r['notebook']} {r['file']:<48} {cell(r):>10}" + (f"  ->  {cell(a):>10}" if a else ""))
        for label, runs in (("before", before), ("after", after)):
            if runs is None:
                continue
            mine = [r for r in runs if r["kind"] == kind]
            hit = sum(1 for r in mine if r["lost"] or r["flagged"])
            print(f"  {label}: {hit} of {len(mine)} lost points or were flagged")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path)
    parser.add_argument("--files-from", type=Path, default=HERE)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args(argv)
    if args.compare:
        before, after = (json.loads(p.read_text()) for p in args.compare)
        show(before, after)
        return 0
    rows = answer_files(args.files_from.resolve())
    table = summarise(rows, grade_all(rows, args.jobs))
    if args.out:
        args.out.write_text(json.dumps(table, indent=1))
    show(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
