"""docs: build the documentation site (Sphinx + MyST-NB, offline) with warnings as errors."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from autograder import paths

SOURCE = paths.ROOT / "docs"


def build(out: Path, fresh: bool = False, book_notebooks: Path | None = None, source: Path = SOURCE) -> int:
    """Build the HTML site from `source` (docs/) into `out`; Sphinx's exit status (non-zero on any warning)."""
    from sphinx.cmd.build import build_main  # only this command needs Sphinx (requirements-dev.txt)

    args = ["-b", "html", "-W", "--keep-going", "-q", "-d", str(out.parent / "doctrees")]
    if fresh:
        args.append("-E")  # re-read every page: what CI and the tests build
    if book_notebooks is not None:
        args += ["-D", f"book_notebooks={book_notebooks}"]
    return build_main([*args, str(source), str(out)])


def main(argv: list[str] | None = None) -> int:
    """Build the documentation site into build/docs/html (warnings are errors, as in CI)."""
    parser = argparse.ArgumentParser(prog="python -m autograder docs", description=main.__doc__)
    parser.add_argument("--out", type=Path, default=paths.BUILD / "docs" / "html", help="the HTML folder to write")
    parser.add_argument("--fresh", action="store_true", help="re-read every page (ignore the previous build)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    status = build(args.out.resolve(), args.fresh)
    pages = sum(1 for _ in args.out.rglob("*.html"))
    if status == 0:
        print(
            f"built {pages} pages into {args.out} in {time.perf_counter() - start:.1f} s; open {args.out / 'index.html'}"
        )
    return status
