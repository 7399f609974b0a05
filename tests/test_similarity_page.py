"""The similarity report's page at course scale (5,000 learners) opens in Chromium: size and load time."""

from __future__ import annotations

import dataclasses
import shutil
import time

import pytest

from autograder.run import similarity
from benchmarks.disguise import VARIANTS, disguise

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install chromium)"),
]
playwright = pytest.importorskip("playwright.sync_api", reason="the playwright Python package is not installed")

LEARNERS = 5_000
LISTED = 1_200  # pairs at or over the threshold: ~2% copies x 9 notebooks, and short pairs
LOAD_S = 10.0  # the page must be usable at once: measured about 1 s (docs/instructor/similarity.md)
MAX_BYTES = 8 * 2**20


def _report_at_scale() -> list[similarity.Pair]:
    """Real disguised-copy pairs of three notebooks, as many as a class of 5,000 lists, each learner TOP more."""
    real = []
    for notebook in ("03_multi_head_attention", "05_encoder_classifier", "09_language_model"):
        ref = similarity.reference_doc(notebook)
        stubs = similarity.boilerplate(notebook)
        for k, steps in enumerate(VARIANTS[:4]):
            copy = similarity.Doc(f"run:c{k}", notebook, {c: disguise(s, steps, k) for c, s in ref.cells.items()})
            real.append(similarity.compare(similarity.fingerprint(ref, stubs), similarity.fingerprint(copy, stubs)))
    pairs = []
    for i in range(LISTED + LEARNERS * similarity.TOP):
        p = real[i % len(real)]
        a = dataclasses.replace(p.a, owner=f"run:s{i:05d}", prints={})
        b = dataclasses.replace(p.b, owner=f"run:t{i:05d}", prints={})
        score = p.score if i < LISTED else 0.5 * p.score  # the rest: each learner's highest, under the threshold
        pairs.append(dataclasses.replace(p, a=a, b=b, score=score))
    return pairs


def test_the_page_at_5000_learners_loads_fast_and_links_every_shown_pair(tmp_path):
    found = _report_at_scale()
    page = tmp_path / "similarity.html"
    page.write_text(similarity.html_report(found, similarity.THRESHOLD, compared=len(found)), encoding="utf-8")
    size = page.stat().st_size
    assert size < MAX_BYTES, size
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
        try:
            tab = browser.new_page()
            errors: list[str] = []
            tab.on("pageerror", lambda exc: errors.append(str(exc)))
            t0 = time.perf_counter()
            tab.goto(f"file://{page}", wait_until="load")
            seconds = time.perf_counter() - t0
            rows = tab.locator("table").first.locator("tr").count()
            links = tab.evaluate("() => [...document.querySelectorAll('a[href^=\"#p\"]')].map(a => a.hash)")
            targets = tab.evaluate("() => [...document.querySelectorAll('h2[id^=p]')].map(h => '#' + h.id)")
            tab.click("a[href='#p200']")
            shown = tab.evaluate("() => document.getElementById('p200').getBoundingClientRect().top")
        finally:
            browser.close()
    print(f"similarity.html at {LEARNERS} learners: {size / 2**20:.1f} MiB, loaded in {seconds:.2f} s")
    assert errors == [] and seconds < LOAD_S, (errors, seconds)
    assert rows == 1 + LISTED  # every pair over the threshold a row; the rest only in the CSV
    assert links == targets == [f"#p{i}" for i in range(1, similarity.DETAILS + 1)]
    assert abs(shown) < 50  # the link scrolls to the pair's code
