"""What this package adds to nbgrader: a preprocessor for autograding, an exporter for feedback,
and its cell-metadata check compiled once."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager

import jinja2
import jsonschema
import nbconvert.exporters.html as nbconvert_html
from nbconvert.exporters import HTMLExporter
from nbconvert.filters.highlight import Highlight2HTML
from nbgrader.preprocessors import NbGraderPreprocessor


class _SchemaCheckedOnce:
    """nbgrader's per-cell metadata check (`jsonschema.validate`), its schema checked and compiled once.

    `jsonschema.validate` checks the schema against its meta-schema on every call: nbgrader
    calls it for every graded cell, twice per recorded notebook (autograde, feedback), about
    22 ms of a notebook's 0.5 s of recording. Same verdicts, same exception (the best match).
    """

    @staticmethod
    def validate(instance, schema) -> None:
        error = jsonschema.exceptions.best_match(_validator(json.dumps(schema, sort_keys=True)).iter_errors(instance))
        if error is not None:
            raise error


@functools.cache
def _validator(schema_text: str):
    schema = json.loads(schema_text)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def check_metadata_once() -> None:
    """Make nbgrader's metadata check use `_SchemaCheckedOnce` (in this process; idempotent)."""
    from nbgrader.nbgraderformat import common

    common.jsonschema = _SchemaCheckedOnce  # the one name of it that nbgrader uses there: validate


@functools.cache
def _engine(url: str, **kwargs):
    """One SQLAlchemy engine per database in this process, so that its compiled-statement cache lasts."""
    from sqlalchemy import create_engine

    return create_engine(url, **kwargs)


def one_engine_per_database() -> None:
    """Make nbgrader's Gradebook reuse an engine per database URL (in this process; idempotent).

    nbgrader opens a Gradebook a dozen times per notebook it records, each with an engine of
    its own, whose cache of compiled SQL starts empty: compiling the same queries again was
    a sixth of recording. A Gradebook's close() disposes of the engine's connections (the
    file is closed as before); the engine, and its cache, stay for the next one.
    """
    from nbgrader import api

    api.create_engine = _engine


class WarningsAreNotFailures(NbGraderPreprocessor):
    """Turn stderr streams into stdout so that only exceptions fail a test cell.

    Plain nbgrader gives zero to a test cell that wrote anything to stderr, so a PyTorch
    ``UserWarning`` would cost the learner its points. The text is kept, marked.
    """

    def preprocess_cell(self, cell, resources, cell_index):
        if cell.cell_type == "code":
            for output in cell.outputs:
                if output.output_type == "stream" and output.name == "stderr":
                    output.name = "stdout"
                    output.text = "".join(f"[stderr] {line}" for line in output.text.splitlines(True))
        return cell, resources


_IMG_WITHOUT_ALT = re.compile(r"<img\b(?![^>]*\balt=)", re.IGNORECASE)
NO_ALT = '<img alt="No description has been provided for this image"'


class _UnparsedPage:
    """Stands in for BeautifulSoup in nbconvert's HTML exporter: the page passes through as it is."""

    def __init__(self, html: str, features: str | None = None) -> None:
        self.html = html

    def select(self, selector: str) -> list:
        return []

    def __str__(self) -> str:
        return self.html


@contextmanager
def _unparsed_pages() -> Iterator[None]:
    """nbconvert's final BeautifulSoup pass skipped (where its module has one to swap)."""
    original = getattr(nbconvert_html, "BeautifulSoup", None)
    if original is None:
        yield
        return
    nbconvert_html.BeautifulSoup = _UnparsedPage  # type: ignore[misc,assignment]  # a stand-in, for one export
    try:
        yield
    finally:
        nbconvert_html.BeautifulSoup = original  # type: ignore[misc]  # the class put back


class _CompiledTemplates(jinja2.BytecodeCache):
    """Compiled Jinja templates kept in memory for the process (jinja checks each against its source)."""

    def __init__(self) -> None:
        self.store: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if bucket.key in self.store:
            bucket.bytecode_from_string(self.store[bucket.key])

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.store[bucket.key] = bucket.bytecode_to_string()


_TEMPLATES = _CompiledTemplates()


class _CachedHighlight:
    """nbconvert's code highlighter, remembering what it wrote for each cell source in this process.

    Every submission of a notebook repeats the course's own cells (setup, explanations' code, the
    tests), and Pygments took about a quarter of the time of recording a graded notebook. The key
    holds everything the highlighted text depends on. Sources come from learners, so what is kept is
    bounded by its size: at most HELD characters of pages in all, none from a source over LONGEST.
    """

    HELD, LONGEST = 8_000_000, 20_000
    _pages: dict[tuple, str] = {}
    _held = [0]  # characters of pages kept, in this process

    def __init__(self, highlight: Highlight2HTML) -> None:
        self.highlight = highlight

    def __call__(self, source: str, language: str | None = None, metadata: dict | None = None) -> str:
        magics = (metadata or {}).get("magics_language") if isinstance(metadata, dict) else None
        options = repr(sorted(self.highlight.extra_formatter_options.items()))
        key = (self.highlight.pygments_lexer, language, str(magics), options, source)
        page = self._pages.get(key)
        if page is None:
            page = self.highlight(source, language, metadata)
            if len(source) <= self.LONGEST and self._held[0] + len(page) <= self.HELD:
                self._pages[key] = page
                self._held[0] += len(page)
        return page


class FeedbackExporter(HTMLExporter):
    """nbconvert's HTML exporter without its last pass, a BeautifulSoup parse of the whole page.

    That pass (pure-Python html.parser over every highlighted token) took most of a feedback
    page's time on the longer notebooks (about 2 s of 07's). Of what it does, only the
    images' alt text applies to nbgrader's feedback template (its tabindex targets are
    JupyterLab classes the template does not use): that is one substitution here.
    """

    def _create_environment(self):
        """nbconvert's environment, but its templates compiled once per process (about 0.3 s a page otherwise)."""
        environment = super()._create_environment()
        environment.bytecode_cache = _TEMPLATES
        return environment

    def from_notebook_node(self, nb, resources=None, **kw):
        langinfo = nb.metadata.get("language_info", {})  # the lexer nbconvert's exporter would choose
        lexer = langinfo.get("pygments_lexer", langinfo.get("name", None))
        highlight = _CachedHighlight(Highlight2HTML(pygments_lexer=lexer, parent=self))
        self.filters = {**self.filters, "highlight_code": highlight}
        with _unparsed_pages():
            html, resources = super().from_notebook_node(nb, resources, **kw)
        return _IMG_WITHOUT_ALT.sub(NO_ALT, html), resources
