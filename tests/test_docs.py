"""The documentation site: built offline with warnings as errors, every setting in its table, the book
free of solutions (a planted marker), and, in Chromium, every page loading, formulas and links."""

from __future__ import annotations

import functools
import http.server
import inspect
import re
import shutil
import sys
import threading
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from conftest import NAMES

from autograder import paths
from autograder.commands import cli, docs
from autograder.gradebook import release

sys.path.insert(0, str(paths.ROOT / "docs" / "_ext"))
import workbook_docs  # noqa: E402  # the site's Sphinx extension (docs/_ext)

SETTINGS = paths.ROOT / "docs" / "reference" / "settings.md"
VARIABLE = re.compile(r"\b(?:AUTOGRADER|WORKBOOK)_[A-Z0-9_]*[A-Z0-9]\b")
MARKER = "PLANTED_SOLUTION_MARKER_7f3a"  # planted in a solution, a hidden test and a model answer
NB01 = NAMES[0]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _variables_in(files: list[Path]) -> set[str]:
    return {name for path in files for name in VARIABLE.findall(path.read_text(errors="replace"))}


def test_the_settings_table_lists_every_environment_variable():
    """Every AUTOGRADER_*/WORKBOOK_* variable the package, the notebooks, CI and deploy files read is in the table."""
    root = paths.ROOT
    files = [*root.glob("autograder/**/*.py"), *root.glob("solutions/*.ipynb"), *root.glob("deploy/**/*")]
    files += [*root.glob(".ci/*"), root / "conftest.py", root / "tests" / "conftest.py", *root.glob("tests/test_*.py")]
    used = _variables_in([f for f in files if f.is_file()])
    table = set(re.findall(r"`((?:AUTOGRADER|WORKBOOK)_[A-Z0-9_]+)`", SETTINGS.read_text()))
    assert len(used) >= 18, sorted(used)  # the issue counted 18: the search itself must find them
    assert used - table == set(), "add these to docs/reference/settings.md"
    assert table - used == set(), "these are in the table but nothing reads them"


def test_ci_builds_the_site_with_warnings_as_errors():
    assert "\n.venv/bin/python -m autograder docs --fresh\n" in (paths.ROOT / ".ci" / "run").read_text()
    assert "-W" in inspect.getsource(docs.build)  # the command CI runs fails on any warning


@pytest.mark.slow  # imports every command's module (seconds): left out of the quick run
def test_the_cli_reference_is_each_commands_own_argparse_help():
    """The reference is generated: each command's page text is what its parser prints, usage line first."""
    for name in cli.COMMANDS:
        text = workbook_docs.command_help(name)
        assert text.startswith("usage: "), (name, text[:200])
        assert "options:" in text or "optional arguments:" in text, name


def test_the_book_refuses_a_notebook_holding_solutions(tmp_path):
    with pytest.raises(ValueError, match="solution-only"):
        workbook_docs.book_notebook(paths.source_notebook(NB01))
    page = workbook_docs.book_notebook(paths.NOTEBOOKS / f"{NB01}.ipynb")
    assert "colab.research.google.com" in "".join(page["cells"][0]["source"])


def _plant(solutions: Path) -> None:
    """The marker in 01's first solution region, its first hidden tests and its model answer."""
    path = solutions / f"{NB01}.ipynb"
    text = path.read_text()
    for region in ("### BEGIN SOLUTION", "### BEGIN HIDDEN TESTS", "**Model answer.**"):
        assert region in text, region
        text = text.replace(region, f"{region} {MARKER}", 1)
    path.write_text(text)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site built as CI builds it, its book from a release of solutions with the marker planted."""
    tmp = tmp_path_factory.mktemp("docs")
    shutil.copytree(paths.SOLUTIONS, tmp / "solutions")  # the helpers' links followed
    _plant(tmp / "solutions")
    release.release_notebooks(tmp / "notebooks", solutions=tmp / "solutions")
    assert MARKER not in (tmp / "notebooks" / f"{NB01}.ipynb").read_text()  # nbgrader's release stripped it
    shutil.copytree(paths.ROOT / "docs", tmp / "src" / "docs", ignore=shutil.ignore_patterns("notebooks", "_build"))
    for name in ("CONTRIBUTING.md", "CHANGELOG.md"):  # the pages that include them
        shutil.copy(paths.ROOT / name, tmp / "src" / name)
    out = tmp / "html"
    assert docs.build(out, fresh=True, book_notebooks=tmp / "notebooks", source=tmp / "src" / "docs") == 0
    return out


@pytest.mark.slow
def test_the_site_builds_with_every_guide_and_the_book(site):
    pages = {p.relative_to(site).as_posix() for p in site.rglob("*.html")}
    for page in ("index.html", "start.html", "learner/index.html", "instructor/index.html", "maintainer/index.html"):
        assert page in pages
    assert {f"book/notebooks/{name}.html" for name in NAMES} <= pages
    assert {"reference/cli.html", "reference/settings.html", "maintainer/contributing.html"} <= pages
    cli_page = (site / "reference" / "cli.html").read_text()
    assert all(f"usage: python -m autograder {name}" in cli_page for name in ("grade", "release", "docs"))
    book01 = (site / "book" / "notebooks" / f"{NB01}.html").read_text()
    assert "YOUR CODE HERE" in book01 and "colab-badge.svg" in book01 and "<math" in book01
    assert re.search(r"<script[^>]*(mathjax|katex)", book01, re.I) is None  # formulas are MathML: nothing to fetch


@pytest.mark.slow
def test_no_planted_solution_text_reaches_the_site(site):
    assert (paths.SOLUTIONS / f"{NB01}.ipynb").read_text().count(MARKER) == 0  # the checkout is untouched
    leaks = [p for p in site.rglob("*") if p.is_file() and MARKER in p.read_text(errors="replace")]
    assert leaks == []


@pytest.fixture(scope="module")
def served(site):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *args: None  # type: ignore[method-assign]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)  # port 0: no collision
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install chromium)")
def test_in_chromium_every_page_loads_formulas_render_and_links_resolve(site, served):
    sync_api = pytest.importorskip("playwright.sync_api")
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html"))
    ids, links, errors = {}, [], []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        for name in pages:
            response = page.goto(served + name)
            assert response is not None and response.ok, name
            assert page.title(), name
            ids[name] = set(page.eval_on_selector_all("[id]", "els => els.map(e => e.id)"))
            links += [(name, href) for href in page.eval_on_selector_all("a[href]", "els => els.map(a => a.href)")]
        _formulas_render(page, served + f"book/notebooks/{NB01}.html")
        _screenshots(page, served)
        browser.close()
    assert errors == []
    broken = [(src, href) for src, href in links if not _resolves(href, served, ids)]
    assert broken == []
    assert len(links) > 100


def _formulas_render(page, url: str) -> None:
    """The notebook's TeX is laid out as math: MathML elements with a size, no TeX source left as text."""
    page.goto(url)
    boxes = page.eval_on_selector_all("math", "els => els.map(e => e.getBoundingClientRect().height)")
    assert len(boxes) > 10 and all(height > 0 for height in boxes)
    text = page.inner_text("body")
    assert "\\sqrt" not in text and "\\frac" not in text and "\\operatorname" not in text


def _resolves(href: str, served: str, ids: dict[str, set[str]]) -> bool:
    """An internal link's page exists and so does its anchor; external links are not followed (offline)."""
    if not href.startswith(served):
        return True
    parsed = urlparse(href)
    target = unquote(parsed.path[len(urlparse(served).path) :]) or "index.html"
    if target.endswith("/"):
        target += "index.html"
    if target not in ids:  # not a page: a file the site serves (a source, a static asset)
        return _exists(served, target)
    return not parsed.fragment or parsed.fragment in ids[target]


def _exists(served: str, target: str) -> bool:
    import urllib.request

    try:
        with urllib.request.urlopen(served + target) as response:
            return response.status == 200
    except OSError:
        return False


def _screenshots(page, served: str) -> None:
    """The rendered notebook page and the instructor guide, for people to look at (build/, not committed)."""
    folder = paths.BUILD / "docs-screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    for name, url in (("notebook-01", f"book/notebooks/{NB01}.html"), ("instructor-guide", "instructor/index.html")):
        page.goto(served + url)
        page.screenshot(path=str(folder / f"{name}.png"), full_page=False)
