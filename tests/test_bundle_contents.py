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


def _passages() -> list[tuple[str, str]]:
    """Every paragraph or list item of README and the docs that speaks of the student bundle, bundle.md's aside."""
    pages = [paths.ROOT / "README.md", *sorted((paths.ROOT / "docs").rglob("*.md"))]
    found = []
    for page in (p for p in pages if p != PAGE):
        for passage in re.split(r"\n\s*\n|\n- ", page.read_text(encoding="utf-8")):
            if "student.zip" in passage or "student bundle" in passage.lower():
                found.append((str(page.relative_to(paths.ROOT)), passage))
    return found


def test_what_readme_and_the_docs_say_the_bundle_holds_is_in_it(released):
    """Issue 64 item 8: README said "the notebooks and workbook.py, nothing else"; the zip holds more."""
    with zipfile.ZipFile(released / "bundle.zip") as zf:
        inside = {n[len(ROOT_FOLDER) :] for n in zf.namelist()}
    held = inside | {n.rsplit("/", 1)[0] + "/" for n in inside if "/" in n}  # its folders too
    passages = _passages()
    assert any("student.zip" in text for _, text in passages)  # the statements exist, so they are read
    for page, text in passages:
        said = " ".join(text.split())
        assert "nothing else" not in said or "bundle.md" in said, f"{page}: {said}"  # the exact list is bundle.md's
        named = [t for t in re.findall(r"`([^`\s]+)`", text) if re.fullmatch(r"[\w./-]+\.(py|txt)|VERSION|\w+/\w+/", t)]
        for name in named:
            if "/" not in name.rstrip("/") or name.endswith("/"):  # a file of the bundle, or one of its folders
                assert name in held, f"{page} says the bundle holds {name}: it does not ({sorted(inside)})"
