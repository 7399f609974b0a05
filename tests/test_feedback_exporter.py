"""The feedback exporter skips nbconvert's last BeautifulSoup pass and still writes the same page."""

from __future__ import annotations

import base64
import re

import nbconvert.exporters.html as nbconvert_html
import nbformat
from bs4 import BeautifulSoup
from nbconvert.exporters import HTMLExporter

from autograder import paths
from autograder.gradebook.nbgrader_ext import FeedbackExporter

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
PNG = base64.b64encode(bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000")).decode()


def _notebook() -> nbformat.NotebookNode:
    """A real source notebook (highlighted code, markdown, maths) plus outputs: text, an image without alt text, an error."""
    nb = nbformat.read(paths.source_notebook("01_scaled_dot_product_attention"), as_version=4)
    cell = nbformat.v4.new_code_cell("plot()  # <b>not a tag</b> & 'quotes'")
    cell.outputs = [
        nbformat.v4.new_output("display_data", data={"image/png": PNG, "text/plain": "<Figure>"}),
        nbformat.v4.new_output("stream", name="stdout", text="a < b > c & d\n"),
        nbformat.v4.new_output("error", ename="ValueError", evalue="bad <input>", traceback=["ValueError: bad"]),
    ]
    nb.cells.append(cell)
    return nb


def _export(cls, nb) -> str:
    html, _ = cls(template_name="classic").from_notebook_node(nb)
    return html


def test_the_page_is_the_one_nbconvert_writes():
    """Parsed and written back as nbconvert's own pass does, our page is nbconvert's page, byte for byte."""
    nb = _notebook()
    stock = _export(HTMLExporter, nb)
    ours = _export(FeedbackExporter, nb)
    assert ours != stock  # not re-serialised: the pass really was skipped
    # the exporter names some output elements with a fresh uuid on every export
    assert UUID.sub("<id>", str(BeautifulSoup(ours, features="html.parser"))) == UUID.sub("<id>", stock)
    assert 'alt="No description has been provided for this image"' in ours


def test_the_exporter_leaves_nbconvert_as_it_found_it():
    """The stand-in for BeautifulSoup is in place only during our export (other exporters keep the real one)."""
    original = nbconvert_html.BeautifulSoup
    _export(FeedbackExporter, _notebook())
    assert nbconvert_html.BeautifulSoup is original


def test_a_cell_highlighted_before_is_written_the_same_and_only_its_new_cells_are_highlighted(monkeypatch):
    """Highlighted cells are remembered per source: a second learner's page is still nbconvert's page,
    and only a cell whose source is new (or another lexer) goes through Pygments again."""
    import nbconvert.filters.highlight as highlight

    nb = _notebook()
    _export(FeedbackExporter, nb)  # the course's cells, highlighted once in this process
    calls = []
    real = highlight._pygments_highlight
    monkeypatch.setattr(
        highlight, "_pygments_highlight", lambda source, *a, **k: calls.append(source) or real(source, *a, **k)
    )
    second = nbformat.from_dict(nb)
    second.cells[-1].source = "answer = 42  # another learner's cell"
    ours = _export(FeedbackExporter, second)
    assert calls == [second.cells[-1].source]
    stock = _export(HTMLExporter, second)
    assert UUID.sub("<id>", str(BeautifulSoup(ours, features="html.parser"))) == UUID.sub("<id>", stock)
    calls.clear()
    second.metadata.language_info = {"name": "python", "pygments_lexer": "python3"}  # another lexer: not the same key
    _export(FeedbackExporter, second)
    assert len(calls) == sum(c.cell_type == "code" for c in second.cells)


def test_a_learner_with_many_large_cells_cannot_grow_the_cache_past_its_budget(monkeypatch):
    """Cell sources are the learner's: pages kept stay within HELD characters, however many unique cells come."""
    from autograder.gradebook.nbgrader_ext import _CachedHighlight

    monkeypatch.setattr(_CachedHighlight, "_pages", {})
    monkeypatch.setattr(_CachedHighlight, "_held", [0])
    monkeypatch.setattr(_CachedHighlight, "HELD", 40_000)
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(f"x_{i} = [{', '.join(str(j) for j in range(200))}]") for i in range(40)]
    _export(FeedbackExporter, nb)
    kept = sum(len(page) for page in _CachedHighlight._pages.values())
    assert 0 < kept <= 40_000 and kept == _CachedHighlight._held[0]
    assert len(_CachedHighlight._pages) < len(nb.cells)  # the budget, not the count, stopped it
