"""Issue 64 item 8: the docs' statement of what the student bundle holds is the zip's listing."""

from __future__ import annotations

import fnmatch
import re
import zipfile

from autograder import paths

PAGE = paths.ROOT / "docs" / "instructor" / "bundle.md"
ROOT_FOLDER = "attention-workbook/"


def _listed() -> list[str]:
    """The paths the page lists between its bundle-contents markers (the first `code` of each item)."""
    text = PAGE.read_text(encoding="utf-8")
    block = text.split("<!-- bundle-contents", 1)[1].split("<!-- end of bundle-contents -->", 1)[0]
    return [m.group(1) for m in re.finditer(r"^- `([^`]+)`", block, flags=re.M)]


def _glob(listed: str) -> str:
    """The page's `NN` (a notebook's number) as a pattern."""
    return listed.replace("NN", "[0-9][0-9]")


def test_the_bundle_holds_exactly_what_the_docs_page_lists(released):
    with zipfile.ZipFile(released / "bundle.zip") as zf:
        names = zf.namelist()
    assert names and all(n.startswith(ROOT_FOLDER) for n in names), names
    inside = sorted(n[len(ROOT_FOLDER) :] for n in names)
    listed = _listed()
    assert len(listed) == len(set(listed)) >= 5, listed
    matched = {pattern: fnmatch.filter(inside, _glob(pattern)) for pattern in listed}
    assert all(matched.values()), (
        f"listed on {PAGE.name} but not in the bundle: {[p for p, m in matched.items() if not m]}"
    )
    unlisted = [n for n in inside if not any(fnmatch.fnmatch(n, _glob(p)) for p in listed)]
    assert not unlisted, f"in the bundle but not on {PAGE.name}: {unlisted}"
    notebooks = sorted(fnmatch.filter(inside, _glob("NN_*.ipynb")))
    assert notebooks == sorted(f"{n}.ipynb" for n in paths.notebook_names())


def test_the_page_is_a_docs_page_with_a_title():
    assert PAGE.read_text(encoding="utf-8").splitlines()[0] == "# The student bundle"
